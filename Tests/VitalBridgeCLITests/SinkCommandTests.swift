import Foundation
import LayeredProtocol
import TestRequirements
import Testing
import VitalCore
import VitalStore
import VitalTestSupport

/// `vitalbridge sink`, through the real process against a private PostgreSQL cluster: every reading of a home in
/// the database exactly once, whatever is killed or terminated on the way.
@Suite("vitalbridge sink", .needs(.postgres))
struct SinkCommandTests {
    static let mac = MACAddress(macOf(.bg5))!

    /// A home whose BG5 holds `count` stored glucose readings (one a minute).
    static func home(_ count: Int, from start: Int = 0) throws -> TestHome {
        let home = try TestHome()
        try add(count, from: start, to: home)
        return home
    }

    static func add(_ count: Int, from start: Int, to home: TestHome) throws {
        let store = try home.store()
        try store.saveDevice(StoredDevice(mac: mac, model: .bg5, addedAt: Timestamp(secondsSince1970: 0)))
        for batch in stride(from: start, to: start + count, by: 5_000) {
            try store.readings.store(
                (batch..<min(batch + 5_000, start + count)).map { index in
                    .glucose(
                        GlucoseReading(
                            mgPerDeciliter: Double(70 + index % 200),
                            measuredAt: Timestamp(secondsSince1970: 1_700_000_000 + Int64(index) * 60)))
                }, device: mac)
        }
    }

    /// The URL of `database` over the cluster's socket, as its superuser.
    static func socketURL(_ cluster: PrivatePostgres, _ database: String) -> String {
        "postgresql://\(cluster.superuser)@\(cluster.socketDirectory.replacingOccurrences(of: "/", with: "%2F")):\(cluster.port)/\(database)"
    }

    /// A home of `count` readings with a sink `lab` to a new database of the shared cluster.
    static func homeWithSink(_ count: Int) throws -> (TestHome, PrivatePostgres, String) {
        let cluster = try PrivatePostgres.shared()
        let database = try cluster.makeDatabase()
        let home = try Self.home(count)
        let added = try home.run(["sink", "add", "--home", home.path, "lab", socketURL(cluster, database)])
        #expect(added.status == 0, "\(added.stderr)")
        return (home, cluster, database)
    }

    /// Checks that `database` holds each exported reading of `home` exactly once at its version, no other reading
    /// of the hub, and a tombstone for each deleted one.
    static func expectExact(
        _ home: TestHome, _ cluster: PrivatePostgres, _ database: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let store = try home.store()
        let hub = try store.hubID()
        var live: [String] = []
        var deleted: [String] = []
        var cursor = try store.feed.start()
        while true {
            let page = try store.feed.changes(after: cursor, limit: 10_000)
            guard let last = page.last else { break }
            for change in page {
                if change.operation == .delete {
                    deleted.append("\(change.readingID)")
                } else {
                    live.append("\(change.readingID) \(change.version)")
                }
            }
            cursor.sequence = last.sequence
        }
        #expect(live.count == (try store.readings.all().count), sourceLocation: sourceLocation)
        let rows = try cluster.psql(
            "SELECT reading_id || ' ' || version FROM vitalbridge.readings WHERE hub_id = '\(hub)'", database: database
        ).split(separator: "\n").map(String.init)
        #expect(rows.count == live.count, "rows \(rows.count), readings \(live.count)", sourceLocation: sourceLocation)
        #expect(Set(rows) == Set(live), sourceLocation: sourceLocation)
        let tombstones = try cluster.psql(
            "SELECT reading_id FROM vitalbridge.deletions WHERE hub_id = '\(hub)'", database: database
        ).split(separator: "\n").map(String.init)
        #expect(Set(deleted).isSubset(of: Set(tombstones)), sourceLocation: sourceLocation)
    }

    @Test("a sink added to a home with a history receives all of it, then its corrections and deletions, once")
    func history() throws {
        let (home, cluster, database) = try Self.homeWithSink(2_500)
        let pushed = try home.run(["sink", "push", "--home", home.path])
        #expect(pushed.status == 0 && pushed.stdout == "lab: pushed 2500 changes; it has the feed up to 2500\n")
        try Self.expectExact(home, cluster, database)
        // new readings and deletions are queued in the transactions that make them
        try Self.add(10, from: 2_500, to: home)
        for id in [1, 2_000, 2_505] {
            #expect(
                try home.run(["records", "delete", "--home", home.path, "--id", "\(id)", "--reason", "wrong strip"])
                    .status == 0)
        }
        let status = try home.run(["sink", "status", "--home", home.path])
        // 10 new readings (2,505's insert replaced by its deletion) and 2 deletions of pushed ones
        #expect(status.stdout.split(separator: "\n")[2].hasPrefix("lab   12"), "\(status.stdout)")
        #expect(try home.run(["sink", "push", "--home", home.path]).stdout.hasPrefix("lab: pushed 12 changes"))
        try Self.expectExact(home, cluster, database)
        #expect(try home.run(["sink", "push", "--home", home.path]).stdout.hasPrefix("lab: pushed 0 changes"))
        let reason = try cluster.psql(
            "SELECT reason FROM vitalbridge.deletions WHERE reading_id = 2000", database: database)
        #expect(reason == "wrong strip\n")
        // the typed columns hold the stored values
        let glucose = try cluster.psql(
            "SELECT glucose_mg_dl, measured_at = to_timestamp(1700000000 + 9 * 60) FROM vitalbridge.readings WHERE reading_id = 10",
            database: database)
        #expect(glucose == "79|t\n", "\(glucose)")
    }

    @Test(
        "bad sinks are refused in one line naming what is wrong, and a password in the URL is never echoed",
        arguments: [
            (["sink", "add", "lab", "postgresql://hub:s3cr3t-pw@db.example.org/health"], "password"),
            (["sink", "add", "lab", "mysql://hub@db.example.org/health"], "scheme"),
            (["sink", "add", "lab", "postgresql://db.example.org/health"], "user"),
            (["sink", "add", "lab", "postgresql://hub@db.example.org/health?sslmode=sometimes"], "sslmode"),
            (["sink", "add", "_lab", "postgresql://hub@db.example.org/health"], "a sink's name"),
            (["sink", "add", "la b", "postgresql://hub@db.example.org/health"], "a sink's name"),
            (["sink", "push", "nosuch"], "no sink named nosuch"),
            (["sink", "status", "nosuch"], "no sink named nosuch"),
            (["sink", "remove", "nosuch"], "no sink named nosuch"),
            (["sink", "follow", "nosuch"], "no sink named nosuch"),
        ])
    func refusals(arguments: [String], message: String) throws {
        let home = try Self.home(3)
        let output = try home.run(arguments + ["--home", home.path])
        #expect(output.status == 1, "\(output.stdout)")
        #expect(output.stderr.contains(message) && output.stderr.filter { $0 == "\n" }.count == 1, "\(output.stderr)")
        #expect(!output.stderr.contains("s3cr3t-pw"))
        #expect(try home.store().sinks.all().isEmpty)
    }

    @Test("a second sink of the same name, a password file others may read, and a symbolic link are refused")
    func refusedSinkSetup() throws {
        let home = try Self.home(3)
        let url = "postgresql://hub@127.0.0.1/health"
        #expect(try home.run(["sink", "add", "--home", home.path, "lab", url]).status == 0)
        let again = try home.run(["sink", "add", "--home", home.path, "lab", url])
        #expect(again.status == 1 && again.stderr.contains("has a sink named lab already"))
        let file = home.path + "/../pw-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data("s3cr3t\n".utf8).write(to: URL(fileURLWithPath: file))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        let open = try home.run(["sink", "add", "--home", home.path, "other", url, "--password-file", file])
        #expect(open.status == 1 && open.stderr.contains("has mode 644") && !open.stderr.contains("s3cr3t"))
        let link = file + ".link"
        defer { try? FileManager.default.removeItem(atPath: link) }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        let linked = try home.run(["sink", "add", "--home", home.path, "other", url, "--password-file", link])
        #expect(linked.status == 1 && linked.stderr.contains("symbolic link"))
        #expect(try home.store().sinks.all().map(\.name) == ["lab"])
    }

    @Test("over TCP with verify-full and a password file: pushed; the password is in no file of the home, nor shown")
    func passwordFileOverTLS() throws {
        let cluster = try PrivatePostgres.shared()
        let database = try cluster.makeDatabase(owner: cluster.sslRole)
        let home = try Self.home(40)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pw-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data((cluster.password + "\n").utf8).write(to: URL(fileURLWithPath: file))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        let url =
            "postgresql://\(cluster.sslRole)@localhost:\(cluster.port)/\(database)?sslmode=verify-full&sslrootcert=\(cluster.caCertificate)"
        let added = try home.run(["sink", "add", "--home", home.path, "tls", url, "--password-file", file])
        #expect(added.status == 0, "\(added.stderr)")
        // every log line, PostgresNIO's own included (to files: they are more than a pipe holds)
        let pushed = try SpawnedProgram(
            vitalbridgePath.path, ["sink", "push", "--home", home.path],
            environment: ["VITALBRIDGE_LOG_LEVEL": "trace"]
        ).wait()
        #expect(pushed.status == 0, "\(pushed.stderr)")
        try Self.expectExact(home, cluster, database)
        #expect(!pushed.stdout.contains(cluster.password) && !pushed.stderr.contains(cluster.password))
        for name in try FileManager.default.subpathsOfDirectory(atPath: home.path) {
            let data = (try? Data(contentsOf: URL(fileURLWithPath: home.path + "/" + name))) ?? Data()
            #expect(data.range(of: Data(cluster.password.utf8)) == nil, "\(name) holds the password")
        }
        #expect(try home.run(["sink", "list", "--home", home.path]).stdout.contains(file))
        // a wrong CA fails, naming the TLS failure; the sink keeps it as its last error
        let wrong = url.replacingOccurrences(of: cluster.caCertificate, with: cluster.otherCACertificate)
        #expect(
            try home.run(["sink", "add", "--home", home.path, "badca", wrong, "--password-file", file]).status == 0)
        let refused = try home.run(["sink", "push", "--home", home.path, "badca"])
        #expect(refused.status == 1 && refused.stderr.contains("cannot push to sink badca"), "\(refused.stderr)")
        let status = try home.run(["sink", "status", "--home", home.path, "badca"])
        #expect(status.stdout.contains("never") && status.stdout.contains("cannot connect"), "\(status.stdout)")
    }

    @Test("libpq's password file (PGPASSFILE) gives the password of a TCP sink")
    func pgpass() throws {
        let cluster = try PrivatePostgres.shared()
        let database = try cluster.makeDatabase(owner: cluster.passwordRole)
        let home = try Self.home(25)
        let passfile = FileManager.default.temporaryDirectory.appendingPathComponent("pgpass-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: passfile) }
        let escaped = cluster.password.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
            of: ":", with: "\\:")
        try Data("127.0.0.1:\(cluster.port):\(database):\(cluster.passwordRole):\(escaped)\n".utf8).write(
            to: URL(fileURLWithPath: passfile))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: passfile)
        let url = "postgresql://\(cluster.passwordRole)@127.0.0.1:\(cluster.port)/\(database)"
        #expect(try home.run(["sink", "add", "--home", home.path, "lab", url]).status == 0)
        let pushed = try home.run(["sink", "push", "--home", home.path], environment: ["PGPASSFILE": passfile])
        #expect(pushed.status == 0, "\(pushed.stderr)")
        try Self.expectExact(home, cluster, database)
        // without it, the server's refusal is the error, with no password in it
        let refused = try home.run(["sink", "push", "--home", home.path], environment: ["PGPASSFILE": "/nonexistent"])
        #expect(refused.status == 1 && refused.stderr.contains("cannot push to sink lab"))
    }

    @Test("100 SIGKILLs of sink push at random points, with readings added and deleted between: exactly once after")
    func killed() throws {
        let (home, cluster, database) = try Self.homeWithSink(3_000)
        var next = 3_000
        let (killed, rounds) = try Self.killPushes(home, kills: 100, seed: 3_636, batchSize: 20, within: 200_000) {
            round, random in
            // more to push each round: new readings, and now and then a deletion
            try Self.add(40, from: next, to: home)
            next += 40
            if round % 5 == 0 {
                let id = Int.random(in: 1...next, using: &random)
                _ = try home.run([
                    "records", "delete", "--home", home.path, "--id", "\(id)", "--reason", "round \(round)",
                ])
            }
        }
        #expect(killed == 100, "only \(killed) pushes of \(rounds) were killed before they ended")
        let last = try home.run(["sink", "push", "--home", home.path])
        #expect(last.status == 0, "\(last.stderr)")
        try Self.expectExact(home, cluster, database)
    }

    /// Starts `sink push` of `home` (batches of `batchSize`) and SIGKILLs it after a random wait of up to `within`
    /// microseconds, until `kills` pushes were killed before they ended (at most `kills * 3` rounds), running
    /// `between` after each round. Returns the kills and the rounds.
    static func killPushes(
        _ home: TestHome, kills: Int, seed: UInt64, batchSize: Int, within: UInt32,
        between: (_ round: Int, _ random: inout SeededGenerator) throws -> Void
    ) throws -> (killed: Int, rounds: Int) {
        var random = SeededGenerator(seed: seed)
        var killed = 0
        var rounds = 0
        while killed < kills && rounds < kills * 3 {
            rounds += 1
            let push = try SpawnedProgram(
                vitalbridgePath.path, ["sink", "push", "--home", home.path, "--batch-size", "\(batchSize)"])
            usleep(UInt32.random(in: 0...within, using: &random))
            kill(push.pid, SIGKILL)
            if push.wait().status == 128 + SIGKILL { killed += 1 }
            try between(rounds, &random)
        }
        return (killed, rounds)
    }

    @Test("server backends terminated mid-batch: the push fails naming why, nothing half-applied, the next completes")
    func terminatedBackends() throws {
        let (home, cluster, database) = try Self.homeWithSink(20_000)
        var failures = 0
        var attempts = 0
        while attempts < 20 {
            attempts += 1
            let push = try SpawnedProgram(
                vitalbridgePath.path, ["sink", "push", "--home", home.path, "--batch-size", "500"])
            // terminate every backend of the database, again and again, while the push runs: each time one is
            // there, however slowly the push starts (a fixed delay let a push under ThreadSanitizer connect only
            // after the last termination, and complete)
            var terminated = 0
            while terminated < 3, Self.isRunning(push.pid) {
                let ended = try cluster.psql(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '\(database)' AND pid <> pg_backend_pid()"
                )
                if ended.trimmingCharacters(in: .whitespacesAndNewlines) == "0" {
                    usleep(10_000)
                } else {
                    terminated += 1
                    usleep(150_000)
                }
            }
            let output = push.wait()
            if output.status == 0 { break }
            failures += 1
            #expect(output.status == 1 && output.stderr.contains("cannot push to sink lab"), "\(output.stderr)")
        }
        #expect(failures >= 1, "no push was interrupted")
        let last = try home.run(["sink", "push", "--home", home.path])
        #expect(last.status == 0, "\(last.stderr)")
        try Self.expectExact(home, cluster, database)
    }

    /// Whether process `pid`, a child not yet waited for, is still running (not exited and left a zombie).
    static func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return !stat[close...].hasPrefix(") Z")
    }

    @Test("the server stopped at once and restarted during a push: the push fails naming it, the next completes")
    func serverRestarted() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pg-restart-\(UUID().uuidString)")
            .path
        let cluster = try PrivatePostgres.start(in: folder)
        defer {
            cluster.stop()
            try? FileManager.default.removeItem(atPath: folder)
        }
        let database = try cluster.makeDatabase()
        let home = try Self.home(30_000)
        #expect(
            try home.run(["sink", "add", "--home", home.path, "lab", Self.socketURL(cluster, database)]).status == 0)
        var interrupted = 0
        for _ in 0..<5 {
            let push = try SpawnedProgram(
                vitalbridgePath.path, ["sink", "push", "--home", home.path, "--batch-size", "250"])
            usleep(600_000)
            try cluster.restart()
            let output = push.wait()
            if output.status == 0 { break }
            interrupted += 1
            #expect(output.status == 1 && output.stderr.contains("cannot push to sink lab"), "\(output.stderr)")
        }
        #expect(interrupted >= 1, "no push was under way when the server stopped")
        let last = try home.run(["sink", "push", "--home", home.path])
        #expect(last.status == 0, "\(last.stderr)")
        try Self.expectExact(home, cluster, database)
    }

    @Test("sink follow pushes readings as they are stored, and SIGTERM stops it cleanly (exit 0)")
    func follow() throws {
        let (home, cluster, database) = try Self.homeWithSink(100)
        let follow = try SpawnedProgram(
            vitalbridgePath.path, ["sink", "follow", "--home", home.path, "--poll", "0.1"])
        /// Waits up to 30 s for the database to hold `count` readings; whether it did.
        func reach(_ count: Int) -> Bool {
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                let rows = try? cluster.psql("SELECT count(*) FROM vitalbridge.readings", database: database)
                if rows == "\(count)\n" { return true }
                usleep(100_000)
            }
            return false
        }
        #expect(reach(100))
        // stored by another process while it follows: pushed without being asked
        try Self.add(25, from: 100, to: home)
        #expect(reach(125))
        kill(follow.pid, SIGTERM)
        let output = follow.wait()
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("lab: pushed 100 changes") && output.stdout.hasSuffix("stopped\n"))
        try Self.expectExact(home, cluster, database)
    }

    @Test("five homes pushing into one database at once: every reading of each once")
    func fiveHomes() throws {
        let cluster = try PrivatePostgres.shared()
        let database = try cluster.makeDatabase()
        let homes = try (0..<5).map { _ in try Self.home(2_000) }
        for home in homes {
            #expect(
                try home.run(["sink", "add", "--home", home.path, "lab", Self.socketURL(cluster, database)]).status == 0
            )
        }
        let pushes = try homes.map {
            try SpawnedProgram(vitalbridgePath.path, ["sink", "push", "--home", $0.path, "--batch-size", "300"])
        }
        for push in pushes {
            let output = push.wait()
            #expect(output.status == 0, "\(output.stderr)")
        }
        for home in homes { try Self.expectExact(home, cluster, database) }
        #expect(try cluster.psql("SELECT count(*) FROM vitalbridge.readings", database: database) == "10000\n")
        #expect(try cluster.psql("SELECT count(*) FROM vitalbridge.hubs", database: database) == "5\n")
    }
}
