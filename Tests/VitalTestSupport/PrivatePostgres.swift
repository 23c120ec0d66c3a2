import Foundation

/// A private PostgreSQL cluster (`Tests/postgres.sh`): started once per test process, in a temporary folder, and
/// stopped when the process exits; or, when `VITALBRIDGE_TEST_POSTGRES=DIR` names a running cluster (CI starts one
/// before `swift test`), that one. Each test takes a fresh database of its own with ``makeDatabase(owner:)``.
public struct PrivatePostgres: Sendable {
    /// The folder of the server's Unix socket (and of the cluster).
    public let socketDirectory: String
    /// The server's port, on 127.0.0.1 and in the socket's name.
    public let port: Int
    /// The superuser, let in over the socket without a password.
    public let superuser: String
    /// A role that logs in with ``password``, over the socket or TCP (with or without TLS).
    public let passwordRole: String
    /// A role that logs in with ``password`` over TCP with TLS only.
    public let sslRole: String
    /// The password of ``passwordRole`` and ``sslRole``: it holds `:`, `\` and `#`.
    public let password: String
    /// The CA (PEM) that signed the server's certificate (for localhost and 127.0.0.1).
    public let caCertificate: String
    /// A CA that signed nothing of this cluster.
    public let otherCACertificate: String
    /// The server's log.
    public let log: String
    /// The folder of the server's programs (psql, pg_ctl).
    public let binaries: String

    /// The shared cluster; throws, with the end of the cluster's log, when it cannot be started.
    public static func shared() throws -> PrivatePostgres {
        try started.get()
    }

    private static let started: Result<PrivatePostgres, PostgresStartError> = {
        if let folder = ProcessInfo.processInfo.environment["VITALBRIDGE_TEST_POSTGRES"], !folder.isEmpty {
            return Result { try PrivatePostgres(environmentFile: folder + "/cluster.env") }
                .mapError { PostgresStartError(message: "VITALBRIDGE_TEST_POSTGRES=\(folder): \($0)") }
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vitalbridge-postgres-\(UUID().uuidString)"
        ).path
        do {
            let cluster = try start(in: folder)
            stopFolder.withLock { $0 = folder }
            atexit {
                if let folder = PrivatePostgres.stopFolder.withLock({ $0 }) {
                    _ = try? SpawnedProgram.run("/bin/bash", [PrivatePostgres.script, "stop", folder])
                    try? FileManager.default.removeItem(atPath: folder)
                }
            }
            return .success(cluster)
        } catch let error as PostgresStartError {
            return .failure(error)
        } catch {
            return .failure(PostgresStartError(message: "\(error)"))
        }
    }()

    /// `Tests/postgres.sh`.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("postgres.sh").path

    /// A cluster of the caller's own in `folder` (new, or empty), for a test that stops or restarts its server:
    /// the caller stops it with ``stop()``. Throws, with the end of its log, when it cannot be started.
    public static func start(in folder: String) throws -> PrivatePostgres {
        let output: ProcessOutput
        do {
            output = try SpawnedProgram.run("/bin/bash", [script, "start", folder])
        } catch {
            throw PostgresStartError(message: "cannot run Tests/postgres.sh: \(error)")
        }
        guard output.status == 0 else {
            let log = (try? String(contentsOfFile: folder + "/postgres.log", encoding: .utf8)) ?? ""
            let tail = log.split(separator: "\n").suffix(20).joined(separator: "\n")
            throw PostgresStartError(
                message: "Tests/postgres.sh start \(folder) failed: \(output.stderr)\nlog:\n\(tail)")
        }
        return try PrivatePostgres(environmentFile: folder + "/cluster.env")
    }

    /// Stops the server at once, as a crash would, and starts it again (its connections are gone).
    public func restart() throws {
        let output = try SpawnedProgram.run("/bin/bash", [Self.script, "restart", socketDirectory])
        guard output.status == 0 else {
            throw PostgresStartError(message: "Tests/postgres.sh restart failed: \(output.stderr)\n\(logTail())")
        }
    }

    /// Stops the server of a cluster ``start(in:)`` made.
    public func stop() {
        _ = try? SpawnedProgram.run("/bin/bash", [Self.script, "stop", socketDirectory])
    }

    /// The folder of a cluster this process started, to stop at exit.
    private static let stopFolder = LockedValue<String?>(nil)

    private init(environmentFile: String) throws {
        let text = try String(contentsOfFile: environmentFile, encoding: .utf8)
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        func value(_ key: String) throws -> String {
            guard let value = values[key] else {
                throw PostgresStartError(message: "\(environmentFile) has no \(key)")
            }
            return value
        }
        socketDirectory = try value("SOCKET_DIR")
        guard let port = Int(try value("PORT")) else {
            throw PostgresStartError(message: "\(environmentFile) has no port")
        }
        self.port = port
        superuser = try value("SUPERUSER")
        passwordRole = try value("PASSWORD_ROLE")
        sslRole = try value("SSL_ROLE")
        password = try value("PASSWORD")
        caCertificate = try value("CA")
        otherCACertificate = try value("OTHER_CA")
        log = try value("LOG")
        binaries = try value("BIN")
    }

    /// Runs `sql` as the superuser in `database` with psql; throws with psql's message when it fails.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        let output = try SpawnedProgram.run(
            binaries + "/psql",
            [
                "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", socketDirectory, "-p", "\(port)", "-U",
                superuser, "-d", database, "-c", sql,
            ])
        guard output.status == 0 else {
            throw PostgresStartError(message: "psql failed: \(output.stderr)")
        }
        return output.stdout
    }

    /// A new, empty database of the test's own (owned by `owner`, the superuser when `nil`); its name.
    public func makeDatabase(owner: String? = nil) throws -> String {
        let name = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try psql("CREATE DATABASE \(name) OWNER \(owner ?? superuser)")
        return name
    }

    /// The last `lines` lines of the server's log.
    public func logTail(_ lines: Int = 20) -> String {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    /// The folder of the newest installed PostgreSQL server's programs (`/usr/lib/postgresql/VERSION/bin`), or the
    /// folder of an `initdb` on `PATH`; `nil` when there is none.
    public static func serverBinaries() -> String? {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        let newest = versions.compactMap { Int($0) }.sorted().last { version in
            FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/initdb")
                && FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/pg_ctl")
        }
        if let newest { return "\(root)/\(newest)/bin" }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map(String.init).first {
            FileManager.default.isExecutableFile(atPath: $0 + "/initdb")
                && FileManager.default.isExecutableFile(atPath: $0 + "/pg_ctl")
        }
    }
}

/// Why the private cluster is not there: what failed, with the end of its log.
public struct PostgresStartError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// A value behind a lock, for the folder the exit handler reads.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
