import Foundation
import LayeredProtocol
import TestRequirements
import Testing
import VitalCore
import VitalStore
import VitalTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Migration 6 rewrites every reading of a 0.14.0 store in one transaction, and migration 7 adds the readings'
/// annotations in another: a process killed at any write of them leaves the store as 0.14.0 or migration 6 left
/// it, and the next process migrates the rest once, every row intact.
@Suite("Upgrade: the first open of a 0.14.0 home killed during migrations 6 and 7")
struct MigrationKillTests {
    /// The fixture's first caller's sync: the request that opens, and so migrates, the store first.
    static let demoSync = "ihealth-layer://?cmd=2&devicemodel=100&mac=004D3208D2F4&ver=100&scheme=vitalbridge-demo"
    static let otherSync = "ihealth-layer://?cmd=2&devicemodel=400&mac=004D3208D308&ver=100&scheme=otherapp"

    /// How far the store got when its process was killed, as the store file says (not as VitalBridge reads it).
    enum Phase: Sendable {
        /// Migration 6 is not committed: the store is 0.14.0's.
        case beforeMigration
        /// Migration 6 is committed, migration 7 is not.
        case migratedTo6
        /// Migrations 6 and 7 are committed, migration 8 is not.
        case migratedTo7
        /// Migrations 6, 7 and 8 are committed, migration 9 is not.
        case migratedTo8
        /// Migrations 6 to 9 are committed, migration 10 is not.
        case migratedTo9
        /// Migrations 6 to 10 are committed, migration 11 is not.
        case migratedTo10
        /// Migrations 6 to 11 are committed, migration 12 is not.
        case migratedTo11
        /// Migrations 6 to 12 are committed; the schema number (`user_version`) that says so to the next open is not.
        case migrated
        /// Both are committed.
        case upToDate
    }

    /// A copy of the fixture home in a new temporary folder.
    static func fixtureHome() throws -> TemporaryDirectory {
        let home = try TemporaryDirectory("vitalbridge-migration-kill")
        try FileManager.default.removeItem(atPath: home.path)
        try FileManager.default.copyItem(atPath: UpgradeTests.fixture, toPath: home.path)
        return home
    }

    /// Runs the first caller's sync on `home` under strace, which kills it with SIGKILL at its `write`th `pwrite64`
    /// to the store's log (SQLite writes a WAL store's transactions to the log, only checkpoints to the file itself);
    /// returns whether SIGKILL ended it and what it printed.
    static func openKilled(_ home: String, atWrite write: Int) throws -> (killed: Bool, stdout: String) {
        try killed(["open", "--home", home, demoSync], home, atWrite: write)
    }

    /// Runs `vitalbridge` with `arguments` on `home` under strace, killed at its `write`th `pwrite64` to the log.
    static func killed(_ arguments: [String], _ home: String, atWrite write: Int) throws -> (
        killed: Bool, stdout: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Requirement.executable("strace")!)
        process.arguments =
            [
                "-f", "-qq", "-o", "/dev/null", "-P", home + "/vitalbridge.sqlite-wal", "-e", "trace=pwrite64", "-e",
                "inject=pwrite64:signal=SIGKILL:when=\(write)", vitalbridgePath.path,
            ] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        // strace ends itself with the signal that ended the hub
        let killed = process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
        return (killed, String(decoding: stdout, as: UTF8.self))
    }

    /// The phase a copy of `home`'s store files is in, read by Python's sqlite3 (read-only, so that the store is
    /// left as the killed process left it).
    static func phase(_ home: String) throws -> Phase {
        let copy = try TemporaryDirectory("vitalbridge-migration-probe")
        defer { copy.remove() }
        for suffix in ["", "-wal", "-shm"]
        where FileManager.default.fileExists(atPath: home + "/vitalbridge.sqlite" + suffix) {
            try FileManager.default.copyItem(
                atPath: home + "/vitalbridge.sqlite" + suffix, toPath: copy.file("vitalbridge.sqlite" + suffix))
        }
        let probe = try runProgram(
            "/usr/bin/env",
            [
                "python3", "-c",
                """
                import sqlite3, sys
                c = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)
                version = c.execute('PRAGMA user_version').fetchone()[0]
                v6 = c.execute("SELECT count(*) FROM grdb_migrations WHERE identifier LIKE 'v6:%'").fetchone()[0]
                v7 = c.execute("SELECT count(*) FROM grdb_migrations WHERE identifier LIKE 'v7:%'").fetchone()[0]
                v8 = c.execute("SELECT count(*) FROM grdb_migrations WHERE identifier LIKE 'v8:%'").fetchone()[0]
                v9 = c.execute("SELECT count(*) FROM grdb_migrations WHERE identifier LIKE 'v9:%'").fetchone()[0]
                v10 = c.execute("SELECT count(*) FROM grdb_migrations WHERE identifier LIKE 'v10:%'").fetchone()[0]
                v11 = c.execute("SELECT count(*) FROM grdb_migrations WHERE identifier LIKE 'v11:%'").fetchone()[0]
                v12 = c.execute("SELECT count(*) FROM grdb_migrations WHERE identifier LIKE 'v12:%'").fetchone()[0]
                print(version, v6, v7, v8, v9, v10, v11, v12)
                """,
                copy.file("vitalbridge.sqlite"),
            ])
        switch probe.stdout {
        case "5 0 0 0 0 0 0 0\n": return .beforeMigration
        case "5 1 0 0 0 0 0 0\n": return .migratedTo6
        case "5 1 1 0 0 0 0 0\n": return .migratedTo7
        case "5 1 1 1 0 0 0 0\n": return .migratedTo8
        case "5 1 1 1 1 0 0 0\n": return .migratedTo9
        case "5 1 1 1 1 1 0 0\n": return .migratedTo10
        case "5 1 1 1 1 1 1 0\n": return .migratedTo11
        case "5 1 1 1 1 1 1 1\n": return .migrated
        case "\(VitalStore.schemaVersion) 1 1 1 1 1 1 1\n": return .upToDate
        default: throw StoreProbeError(output: probe.stdout + probe.stderr)
        }
    }

    struct StoreProbeError: Error, CustomStringConvertible {
        var output: String
        var description: String { "the store probe answered: \(output)" }
    }

    /// Where the `write`th write of the first open's 121 to the store's log falls, counted once with
    /// `strace -xx -e trace=pwrite64` (a write is a 24-byte frame header or a 4,096-byte page; a header whose second
    /// word is not 0 marks a commit): 1 is the log's header; 2–35 are migration 6's 17 pages, its last frame's header
    /// (write 34) marking the commit; 36–57 are migration 7's 11 pages (commit at write 56); 58–73 are migration 8's
    /// 8 pages (commit at write 72); 74–81 are migration 9's 4 pages (commit at write 80); 82–89 migration 10's 4
    /// pages (commit at write 88); 90–105 are migration 11's 8 pages (commit at write 104); 106–115 are migration
    /// 12's 5 pages (commit at write 114); 116–117 write the schema number (`PRAGMA user_version`, one page);
    /// 118–121 are the sync's journal commit, after its answer was printed. A change to what the first open writes moves these
    /// counts, and the test says so by the phase it finds: count them again then.
    enum Landing: Sendable {
        case inMigration, inMigration7, inMigration8, inMigration9, inMigration10, inMigration11, inMigration12
        case beforeSchemaNumber
        case inJournal, never

        /// The phase the store is in after the kill.
        var phase: Phase {
            switch self {
            case .inMigration: .beforeMigration
            case .inMigration7: .migratedTo6
            case .inMigration8: .migratedTo7
            case .inMigration9: .migratedTo8
            case .inMigration10: .migratedTo9
            case .inMigration11: .migratedTo10
            case .inMigration12: .migratedTo11
            case .beforeSchemaNumber: .migrated
            case .inJournal, .never: .upToDate
            }
        }
    }

    @Test(
        "killed at the Nth write to the log, in migration 6, 7, 8, 9, 10, 11, 12 or after them, the next open migrates once and gives every answer, reading and device 0.14.0 gave",
        .needs(.strace, .python3),
        arguments: [
            (1, Landing.inMigration), (2, .inMigration), (5, .inMigration), (20, .inMigration), (34, .inMigration),
            (35, .inMigration), (36, .inMigration7), (46, .inMigration7), (56, .inMigration7), (57, .inMigration7),
            (58, .inMigration8), (66, .inMigration8), (72, .inMigration8), (73, .inMigration8),
            (74, .inMigration9), (78, .inMigration9), (80, .inMigration9), (81, .inMigration9),
            (82, .inMigration10), (86, .inMigration10), (88, .inMigration10), (89, .inMigration10),
            (90, .inMigration11), (98, .inMigration11), (104, .inMigration11), (105, .inMigration11),
            (106, .inMigration12), (110, .inMigration12), (114, .inMigration12), (115, .inMigration12),
            (116, .beforeSchemaNumber), (117, .beforeSchemaNumber), (118, .inJournal), (122, .never),
        ])
    func killedDuringMigration(write: Int, lands: Landing) throws {
        let home = try Self.fixtureHome()
        defer { home.remove() }
        let first = try Self.openKilled(home.path, atWrite: write)
        let answer = try UpgradeTests.expected("sync-demo.txt")
        switch lands {
        case .never:
            // past the last write: the open ends by itself, so every smaller count is reached
            #expect(!first.killed && first.stdout == answer)
        case .inJournal:
            // the journal is committed after the hand-off: the answer was printed whole before the kill
            #expect(first.killed, "write \(write) was not reached: the hub ended by itself")
            #expect(first.stdout == answer, "write \(write)")
        case .inMigration, .inMigration7, .inMigration8, .inMigration9, .inMigration10, .inMigration11,
            .inMigration12, .beforeSchemaNumber:
            #expect(first.killed, "write \(write) was not reached: the hub ended by itself")
            #expect(first.stdout.isEmpty, "write \(write)")
        }
        #expect(try Self.phase(home.path) == lands.phase, "write \(write)")
        try Self.expectIntact(home, write: write)
    }

    @Test(
        "a command that only reads, killed as it upgrades the home, leaves each migration whole; the next one finishes the upgrade once",
        .needs(.strace, .python3),
        arguments: [
            (5, Landing.inMigration), (35, .inMigration), (57, .inMigration7), (98, .inMigration11),
            (110, .inMigration12), (116, .beforeSchemaNumber),
        ])
    func readingCommandKilledDuringUpgrade(write: Int, lands: Landing) throws {
        let home = try Self.fixtureHome()
        defer { home.remove() }
        let first = try Self.killed(["records", "--home", home.path], home.path, atWrite: write)
        #expect(first.killed && first.stdout.isEmpty, "write \(write) was not reached: records ended by itself")
        #expect(try Self.phase(home.path) == lands.phase, "write \(write)")
        try Self.expectIntact(home, write: write)
    }

    /// Checks `home` after a kill: as UpgradeTests.opensIntact, the next answers, readings and devices are 0.14.0's,
    /// the store migrated once, whole.
    static func expectIntact(_ home: TemporaryDirectory, write: Int) throws {
        // then as UpgradeTests.opensIntact: the next answers, the readings and the devices are 0.14.0's (doctor's
        // store check is the integrity check and schema below)
        for (arguments, expected) in [
            (["open", "--home", home.path, Self.demoSync], "sync-demo.txt"),
            (["open", "--home", home.path, Self.otherSync], "sync-other.txt"),
            (["records", "--home", home.path, "--format", "json"], "records.json"),
            (["devices", "--home", home.path], "devices.txt"),
        ] {
            let output = try vitalbridge(arguments)
            let text = try UpgradeTests.expected(expected)
            #expect(output.status == 0, "write \(write), \(expected): \(output.stderr)")
            #expect(output.stdout == text, "write \(write), \(expected)")
        }
        #expect(try Self.phase(home.path) == .upToDate, "write \(write)")
        let store = try VitalStore(path: home.file("vitalbridge.sqlite"))
        #expect(try store.integrityCheck() == "ok", "write \(write)")
        let stored = try store.readings.all()
        #expect(stored.count == 110 && Set(stored.map { "\($0.device) \($0.reading)" }).count == 110, "write \(write)")
    }
}

/// Two writers storing one device's readings at once: the store (typed columns, a re-sent reading recognized by its
/// values, no longer by a uniqueness constraint on 0.14.0's text) holds each reading once, and each caller gets each
/// reading once. Two `open` processes take turns on the device by its lease (the second waits for it) and on the
/// store by its write transactions; two connections without a lease race on the store alone.
@Suite("Typed columns: two writers racing to store and deliver one device's readings")
struct RacingSyncTests {
    /// The results of `bodies`, each run on a thread of its own (not the test's task pool, which may have one free
    /// thread on a busy machine), all started together; and whether they ran at the same time: each began before
    /// every other ended.
    static func together<T: Sendable>(_ bodies: [@Sendable () throws -> T]) throws -> (results: [T], overlapped: Bool) {
        let ended = Outcomes<T>()
        let group = DispatchGroup()
        for (index, body) in bodies.enumerated() {
            group.enter()
            Thread {
                let start = ContinuousClock.now
                let result = Result { try body() }.map { ($0, start..<ContinuousClock.now) }
                ended.lock.withLock { ended.outcomes[index] = result }
                group.leave()
            }.start()
        }
        group.wait()
        let results = try bodies.indices.map { try ended.outcomes[$0]!.get() }
        let spans = results.map(\.1)
        return (results.map(\.0), spans.map(\.lowerBound).max()! < spans.map(\.upperBound).min()!)
    }

    /// The outputs of `vitalbridge open` of each of `urls` on `home`, the processes started together, in the order
    /// of `urls`; and whether they ran at the same time.
    static func race(_ home: TestHome, _ urls: [String]) throws -> (outputs: [ProcessOutput], overlapped: Bool) {
        let (outputs, overlapped) = try together(urls.map { url in { try home.open(url) } })
        return (outputs, overlapped)
    }

    /// What `url`'s caller gets when it syncs until nothing remains.
    static func drain(_ home: TestHome, _ url: String) throws -> [String] {
        var delivered: [String] = []
        for _ in 0..<20 {
            let output = try home.open(url)
            #expect(output.status == 0, "\(output.stderr)")
            delivered += deliveredReadings(output.stdout)
            if !output.stdout.contains("remaining=") { break }
        }
        return delivered
    }

    /// Each reading of the device is stored once: `count` of them, no two alike. Returns them as callbacks give
    /// them.
    static func storedOnce(_ home: TestHome, count: Int) throws -> Set<String> {
        let store = try home.store()
        let stored = try store.readings.all()
        #expect(stored.count == count && Set(stored.map { "\($0.device) \($0.reading)" }).count == count)
        #expect(try store.integrityCheck() == "ok")
        #expect(try store.journal.reservations().isEmpty)
        return Set(stored.map { "\($0.device) \($0.reading.resultObject(unit: nil).json)" })
    }

    static let records = 300
    static let rounds = 5

    @Test("one caller's two syncs at once, 5 rounds: each reading stored once and delivered to the caller once")
    func oneCaller() throws {
        var overlaps = 0
        for round in 0..<Self.rounds {
            let home = try TestHome(fleet: glucoseFleet(Self.records))
            let sync = request(.sync, .bg5)
            let (outputs, overlapped) = try Self.race(home, [sync, sync])
            if overlapped { overlaps += 1 }
            for output in outputs { #expect(output.status == 0, "round \(round): \(output.stderr)") }
            let delivered = outputs.flatMap { deliveredReadings($0.stdout) } + (try Self.drain(home, sync))
            let everything = try Self.storedOnce(home, count: Self.records)
            #expect(delivered.count == Set(delivered).count, "round \(round): a reading was delivered twice")
            #expect(Set(delivered) == everything, "round \(round): \(Set(delivered).count) of \(everything.count)")
        }
        #expect(overlaps > 0, "the two processes never ran at the same time")
    }

    @Test("two callers' syncs at once, 5 rounds: each reading stored once, and each caller gets every reading once")
    func twoCallers() throws {
        let callers = ["org.vitalbridge.demo", "com.example.second"]
        let syncs = callers.map {
            request(.sync, .bg5, extra: "&appid=\($0)").replacingOccurrences(of: "&scheme=vitalbridge-demo", with: "")
        }
        var overlaps = 0
        for round in 0..<Self.rounds {
            let home = try TestHome(fleet: glucoseFleet(Self.records), whitelist: [callers[1]: "second-app://"])
            let (outputs, overlapped) = try Self.race(home, syncs)
            if overlapped { overlaps += 1 }
            var delivered: [[String]] = [[], []]
            for (index, output) in outputs.enumerated() {
                #expect(output.status == 0, "round \(round), \(callers[index]): \(output.stderr)")
                delivered[index] += deliveredReadings(output.stdout)
            }
            for index in 0..<2 { delivered[index] += try Self.drain(home, syncs[index]) }
            let everything = try Self.storedOnce(home, count: Self.records)
            for (caller, got) in zip(callers, delivered) {
                #expect(got.count == Set(got).count, "round \(round): \(caller) got a reading twice")
                #expect(
                    Set(got) == everything, "round \(round): \(caller) got \(Set(got).count) of \(everything.count)")
            }
        }
        #expect(overlaps > 0, "the two processes never ran at the same time")
    }

    @Test(
        "two connections storing the same 300 readings at once, in batches of other sizes, 5 rounds: each reading stored once, and both get its one identifier"
    )
    func twoConnections() throws {
        let device = MACAddress("004D3208D30B")!
        let readings = (0..<Int64(Self.records)).map {
            Reading.glucose(
                GlucoseReading(
                    mgPerDeciliter: 80 + Double($0 % 120),
                    measuredAt: Timestamp(secondsSince1970: 1_763_700_000 + 60 * $0)))
        }
        var overlaps = 0
        for round in 0..<Self.rounds {
            let directory = try TemporaryDirectory("vitalbridge-typed-race")
            defer { directory.remove() }
            let path = directory.file("vitalbridge.sqlite")
            // each makes its own connection to a store not yet made, and stores every reading, oldest first
            let (identifiers, overlapped) = try Self.together(
                [10, 7].map { size in
                    {
                        let store = try VitalStore(path: path)
                        var identifiers: [Reading: Int64] = [:]
                        for start in stride(from: 0, to: readings.count, by: size) {
                            let batch = Array(readings[start..<min(start + size, readings.count)])
                            for (reading, id) in zip(batch, try store.readings.store(batch, device: device)) {
                                identifiers[reading] = id
                            }
                        }
                        return identifiers
                    }
                })
            if overlapped { overlaps += 1 }
            #expect(identifiers[0] == identifiers[1], "round \(round)")
            let store = try VitalStore(path: path)
            let stored = try store.readings.all()
            #expect(stored.count == readings.count, "round \(round)")
            #expect(Set(stored.map(\.reading)) == Set(readings), "round \(round)")
            #expect(Set(stored.map(\.id)) == Set(identifiers[0].values), "round \(round)")
            #expect(try store.integrityCheck() == "ok")
        }
        #expect(overlaps > 0, "the two connections never stored at the same time")
    }
}

/// What threads of ``RacingSyncTests/together(_:)`` ended with, by their index, and when each ran.
private final class Outcomes<T>: @unchecked Sendable {
    let lock = NSLock()
    var outcomes: [Int: Result<(T, Range<ContinuousClock.Instant>), any Error>] = [:]
}
