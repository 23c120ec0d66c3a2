import Foundation
import SinkSettings
import TestRequirements
import Testing
import VitalSinks
import VitalTestSupport

@Suite("SinkPassword")
struct SinkPasswordTests {
    @Test(
        "a password file is read only with mode 600 or 400",
        arguments: [
            (0o644, false), (0o640, false), (0o604, false), (0o660, false), (0o700, false), (0o600, true),
            (0o400, true),
        ])
    func modes(_ mode: Int, _ accepted: Bool) throws {
        let folder = try TemporaryDirectory("vitalbridge-password")
        defer { folder.remove() }
        let path = try file(folder, "password", "hunter2-secret\nsecond line\n", mode: mode)
        if accepted {
            #expect(try SinkPassword.read(file: path) == "hunter2-secret")
        } else {
            #expect {
                _ = try SinkPassword.read(file: path)
            } throws: { error in
                let error = error as! SinkError
                return error.code == .passwordFile && error.message.contains(path)
                    && error.message.contains("mode \(String(mode, radix: 8))") && !error.message.contains("hunter2")
            }
        }
    }

    @Test("the first line is the password, without its line ending", arguments: ["pw\n", "pw\r\n", "pw", "pw\nmore"])
    func firstLine(_ contents: String) throws {
        let folder = try TemporaryDirectory("vitalbridge-password")
        defer { folder.remove() }
        #expect(try SinkPassword.read(file: file(folder, "password", contents, mode: 0o600)) == "pw")
    }

    @Test("a symbolic link, a folder, a missing or an empty file is refused, naming the file and the problem")
    func refusals() throws {
        let folder = try TemporaryDirectory("vitalbridge-password")
        defer { folder.remove() }
        let target = try file(folder, "password", "hunter2-secret\n", mode: 0o600)
        try FileManager.default.createSymbolicLink(atPath: folder.file("link"), withDestinationPath: target)
        try FileManager.default.createDirectory(atPath: folder.file("folder"), withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: folder.file("folder"))
        let empty = try file(folder, "empty", "\n", mode: 0o600)
        for (path, problem) in [
            (folder.file("link"), "symbolic link"), (folder.file("folder"), "not a regular file"),
            (folder.file("missing"), "does not exist"), (empty, "is empty"),
        ] {
            #expect {
                _ = try SinkPassword.read(file: path)
            } throws: { error in
                let error = error as! SinkError
                #expect(error.message.contains(path) && error.message.contains(problem), "\(error.message)")
                return error.code == .passwordFile && !error.message.contains("hunter2")
            }
        }
    }

    @Test("a file of another user is refused", .enabled(if: geteuid() == 0, "needs root, to give a file to nobody"))
    func anotherOwner() throws {
        let folder = try TemporaryDirectory("vitalbridge-password")
        defer { folder.remove() }
        let path = try file(folder, "password", "hunter2-secret\n", mode: 0o600)
        #expect(chown(path, 65534, 65534) == 0)
        #expect {
            _ = try SinkPassword.read(file: path)
        } throws: { error in
            let error = error as! SinkError
            return error.message.contains("belongs to user 65534") && !error.message.contains("hunter2")
        }
    }

    @Test("the password file's place: PGPASSFILE, else ~/.pgpass")
    func passfilePlace() {
        #expect(SinkPassword.defaultPassfile(environment: ["PGPASSFILE": "/x/pass", "HOME": "/home/a"]) == "/x/pass")
        #expect(SinkPassword.defaultPassfile(environment: ["PGPASSFILE": "", "HOME": "/home/a"]) == "/home/a/.pgpass")
        #expect(SinkPassword.defaultPassfile(environment: ["HOME": "/home/a"]) == "/home/a/.pgpass")
    }

    @Test("a socket matches localhost in the default folder, its folder elsewhere")
    func socketHost() throws {
        let debian = try SinkAddress("postgresql://hub@%2Fvar%2Frun%2Fpostgresql/health")
        #expect(SinkPassword.passfileHost(debian) == ("localhost", 5432))
        let other = try SinkAddress("postgresql://hub@/health?host=/tmp/pg&port=6000")
        #expect(SinkPassword.passfileHost(other) == ("/tmp/pg", 6000))
    }

    /// The escaped form of `text` in a password file.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ":", with: "\\:")
    }

    /// Password files for the password role: `H`, `P`, `D`, `U`, `S` and `W` stand for the host, port, database,
    /// user, socket folder and the escaped password.
    static let passfiles: [(name: String, contents: String, mode: Int, socket: Bool)] = [
        ("exact", "H:P:D:U:W\n", 0o600, false),
        ("wildcards", "*:*:*:*:W\n", 0o600, false),
        ("wildcard user and port", "H:*:D:*:W\n", 0o600, false),
        ("commented out", "#H:P:D:U:W\n*:*:*:*:wrong\n", 0o600, false),
        ("first match wins", "*:*:*:*:wrong\nH:P:D:U:W\n", 0o600, false),
        ("other host first", "localhost:P:D:U:wrong\nH:P:D:U:W\n", 0o600, false),
        ("escaped star is a star", "\\*:*:*:*:W\n", 0o600, false),
        ("partial wildcard is literal", "127.0.0.*:*:*:*:W\n", 0o600, false),
        ("unescaped password ends at a colon", "*:*:*:*:vb:pa\\ss#1\n", 0o600, false),
        ("crlf", "*:*:*:*:W\r\n", 0o600, false),
        ("wrong port", "H:1:D:U:W\n", 0o600, false),
        ("wrong database", "H:P:other:U:W\n", 0o600, false),
        ("escaped user", "H:P:D:vitalbridge\\_password:W\n", 0o600, false),
        ("too few fields", "H:P:D:W\n", 0o600, false),
        ("blank lines and comments", "\n# a comment\n\n*:*:*:*:W\n", 0o600, false),
        ("group-readable file is ignored", "*:*:*:*:W\n", 0o640, false),
        ("owner-only 400", "*:*:*:*:W\n", 0o400, false),
        ("socket folder", "S:P:D:U:W\n", 0o600, true),
        ("socket as localhost outside the default folder", "localhost:P:D:U:W\n", 0o600, true),
        ("socket wildcards", "*:*:*:*:W\n", 0o600, true),
    ]

    @Test(
        "~/.pgpass is looked up as libpq does: psql connects exactly when the lookup finds the password",
        .needs(.postgres), arguments: passfiles.indices)
    func pgpassAgainstPsql(_ index: Int) throws {
        let cluster = try cluster()
        let (name, template, mode, socket) = Self.passfiles[index]
        let database = try cluster.makeDatabase(owner: cluster.passwordRole)
        let folder = try TemporaryDirectory("vitalbridge-pgpass")
        defer { folder.remove() }
        let host = socket ? cluster.socketDirectory : "127.0.0.1"
        var contents = ""
        for character in template {
            switch character {
            case "H": contents += "127.0.0.1"
            case "P": contents += "\(cluster.port)"
            case "D": contents += database
            case "U": contents += cluster.passwordRole
            case "S": contents += cluster.socketDirectory
            case "W": contents += Self.escaped(cluster.password)
            default: contents.append(character)
            }
        }
        let passfile = try file(folder, "pgpass", contents, mode: mode)
        let address =
            socket
            ? SinkAddress(
                user: cluster.passwordRole, database: database,
                endpoint: .unixSocket(directory: cluster.socketDirectory, port: cluster.port))
            : SinkAddress(
                user: cluster.passwordRole, database: database, endpoint: .tcp(host: "127.0.0.1", port: cluster.port),
                sslMode: .disable)
        let found = SinkPassword.lookup(for: address, passfile: passfile, logger: testLogger)
        let psql = try SpawnedProgram.run(
            cluster.binaries + "/psql",
            [
                "-X", "-w", "-A", "-t", "-c", "SELECT 1",
                "host=\(host) port=\(cluster.port) dbname=\(database) user=\(cluster.passwordRole) sslmode=disable",
            ], environment: ["PGPASSFILE": passfile, "PGPASSWORD": "", "PGSERVICEFILE": "/nonexistent"])
        let connected = psql.status == 0
        #expect(
            connected == (found == cluster.password),
            "\(name): psql \(connected ? "connected" : "failed: \(psql.stderr)"), lookup found \(found == nil ? "nothing" : found == cluster.password ? "the password" : "another password")"
        )
    }
}
