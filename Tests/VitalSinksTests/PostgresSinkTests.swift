import Foundation
import SinkSettings
import TestRequirements
import Testing
import VitalCore
import VitalTestSupport

@testable import VitalSinks

@Suite("PostgresSink", .needs(.postgres), .timeLimit(.minutes(3)))
struct PostgresSinkTests {
    @Test("migrating twice leaves one schema with every migration once and every typed column")
    func migrateTwice() async throws {
        let (sink, database) = try await migratedSink()
        defer { Task { await sink.close() } }
        try await sink.migrate()
        #expect(
            try value(
                "SELECT string_agg(version::text, ',' ORDER BY version) FROM vitalbridge.schema_migrations", database)
                == SinkSchema.migrations.map { "\($0.version)" }.joined(separator: ","))
        let columns = try cluster().psql(
            """
            SELECT column_name || ' ' || format_type(atttypid, atttypmod) FROM information_schema.columns c
            JOIN pg_attribute a ON a.attrelid = 'vitalbridge.readings'::regclass AND a.attname = c.column_name
            WHERE table_schema = 'vitalbridge' AND table_name = 'readings'
            """, database: database
        ).split(separator: "\n").map(String.init)
        for column in SinkSchema.typedColumns {
            #expect(columns.contains("\(column.name) \(column.sqlType)"), "\(column.name)")
        }
        for expected in [
            "systolic_mmhg double precision", "heart_rate_bpm integer", "weight_kg double precision",
            "spo2_pct integer", "temperature_c double precision", "distance_m integer", "sports jsonb",
            "rr_intervals_ms double precision[]", "arrhythmia boolean", "glucose_mg_dl double precision",
        ] {
            #expect(columns.contains(expected), "\(expected)")
        }
    }

    @Test("five hubs migrating one database at once make one schema")
    func concurrentMigrations() async throws {
        let cluster = try cluster()
        let database = try cluster.makeDatabase()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    let sink = try await PostgresSink.connect(
                        socketAddress(cluster, database), password: nil, logger: testLogger)
                    try await sink.migrate()
                    await sink.close()
                }
            }
            try await group.waitForAll()
        }
        #expect(try value("SELECT count(*) FROM pg_namespace WHERE nspname = 'vitalbridge'", database) == "1")
        #expect(
            try value("SELECT count(*) FROM vitalbridge.schema_migrations", database)
                == "\(SinkSchema.migrations.count)")
    }

    @Test("a push inserts, updates and deletes, and moves the hub's position")
    func pushAppliesChanges() async throws {
        let (sink, database) = try await migratedSink()
        defer { Task { await sink.close() } }
        #expect(try await sink.position(hub: hubA) == 0)
        try await sink.push(
            batch([
                insert(1, version: 1, pressure(120, 80)), insert(2, version: 2, pressure(130, 85, minute: 1)),
                insert(3, version: 3, pressure(140, 90, minute: 2)),
            ]))
        #expect(try live(database) == ["1@1", "2@2", "3@3"])
        #expect(try await sink.position(hub: hubA) == 3)
        try await sink.push(
            batch([update(1, version: 4, pressure(121, 81)), delete(2, version: 5, reason: "a mistake")], through: 6))
        #expect(try live(database) == ["1@4", "3@3"])
        #expect(try value("SELECT systolic_mmhg FROM vitalbridge.readings WHERE reading_id = 1", database) == "121")
        #expect(
            try value("SELECT reading_id || '@' || version || ' ' || reason FROM vitalbridge.deletions", database)
                == "2@5 a mistake")
        #expect(try await sink.position(hub: hubA) == 6)
        #expect(
            try value(
                "SELECT string_agg(mac || ' ' || model_name, ',' ORDER BY mac) FROM vitalbridge.devices", database)
                == "004D3208D2F4 BP5,004D3208D2F5 HS4S")
        #expect(try value("SELECT string_agg(name, ',' ORDER BY name) FROM vitalbridge.people", database) == "ana,ben")
    }

    @Test("the same batch twice, or an older batch after a newer, changes nothing")
    func replaysChangeNothing() async throws {
        let (sink, database) = try await migratedSink()
        defer { Task { await sink.close() } }
        let first = batch([
            insert(1, version: 1, pressure(120, 80)), insert(2, version: 2, pressure(130, 85, minute: 1)),
            insert(3, version: 3, pressure(140, 90, minute: 2)),
        ])
        let second = batch([
            update(1, version: 4, pressure(122, 82)), delete(3, version: 5),
            insert(4, version: 6, pressure(118, 79, minute: 3)),
        ])
        try await sink.push(first)
        try await sink.push(second)
        let after = try snapshot(database)
        try await sink.push(second)
        #expect(try snapshot(database) == after)
        try await sink.push(first)
        #expect(try snapshot(database) == after)
        #expect(try live(database) == ["1@4", "2@2", "4@6"])
        #expect(try await sink.position(hub: hubA) == 6)
    }

    @Test("a deleted reading stays deleted when an older insert is replayed")
    func deleteThenOlderInsert() async throws {
        let (sink, database) = try await migratedSink()
        defer { Task { await sink.close() } }
        try await sink.push(batch([insert(7, version: 1, pressure(120, 80))]))
        try await sink.push(batch([delete(7, version: 2)]))
        try await sink.push(batch([insert(7, version: 1, pressure(120, 80))]))
        try await sink.push(batch([update(7, version: 2, pressure(125, 80))]))
        #expect(try live(database).isEmpty)
        #expect(try value("SELECT version FROM vitalbridge.deletions WHERE reading_id = 7", database) == "2")
    }

    @Test("a reading returned to quarantine comes back with a newer version")
    func quarantineThenBack() async throws {
        let (sink, database) = try await migratedSink()
        defer { Task { await sink.close() } }
        try await sink.push(batch([insert(7, version: 1, pressure(120, 80))]))
        try await sink.push(batch([delete(7, version: 2, reason: ReadingChange.quarantineReason)]))
        #expect(try live(database).isEmpty)
        try await sink.push(batch([insert(7, version: 3, pressure(120, 80), person: "ben")]))
        #expect(try live(database) == ["7@3"])
        #expect(try value("SELECT person FROM vitalbridge.readings WHERE reading_id = 7", database) == "ben")
        // the older deletion, replayed, neither removes it nor leaves a newer tombstone
        try await sink.push(batch([delete(7, version: 2, reason: ReadingChange.quarantineReason)]))
        #expect(try live(database) == ["7@3"])
    }

    @Test("one batch's several changes of a reading leave its newest")
    func newestInBatch() async throws {
        let (sink, database) = try await migratedSink()
        defer { Task { await sink.close() } }
        try await sink.push(
            batch([
                insert(1, version: 1, pressure(120, 80)), update(1, version: 2, pressure(121, 80)),
                insert(2, version: 3, pressure(130, 80)), delete(2, version: 4),
            ]))
        #expect(try live(database) == ["1@2"])
        #expect(try value("SELECT reading_id FROM vitalbridge.deletions", database) == "2")
    }

    @Test("the position never moves back")
    func positionOnlyGrows() async throws {
        let (sink, _) = try await migratedSink()
        defer { Task { await sink.close() } }
        try await sink.push(batch([insert(1, version: 10, pressure(120, 80))], through: 12))
        try await sink.push(batch([], through: 5))
        #expect(try await sink.position(hub: hubA) == 12)
        try await sink.push(batch([], through: 20))
        #expect(try await sink.position(hub: hubA) == 20)
        #expect(try await sink.position(hub: hubB) == 0)
    }

    @Test("two hubs in one database keep their own rows and positions")
    func twoHubs() async throws {
        let (sink, database) = try await migratedSink()
        defer { Task { await sink.close() } }
        try await sink.push(batch([insert(1, version: 1, pressure(120, 80))], hub: hubA))
        try await sink.push(
            batch([insert(1, version: 5, pressure(150, 95)), insert(2, version: 6, pressure(110, 70))], hub: hubB))
        try await sink.push(batch([delete(1, version: 2)], hub: hubA))
        #expect(try live(database, hub: hubA).isEmpty)
        #expect(try live(database, hub: hubB) == ["1@5", "2@6"])
        #expect(try await sink.position(hub: hubA) == 2)
        #expect(try await sink.position(hub: hubB) == 6)
        #expect(try value("SELECT count(*) FROM vitalbridge.devices", database) == "4")
    }

    @Test("a push whose server process is killed throws, applies nothing, and a retry completes")
    func terminatedMidPush() async throws {
        let cluster = try cluster()
        let (sink, database) = try await migratedSink()
        try await sink.push(batch([insert(1, version: 1, pressure(120, 80))]))
        let before = try snapshot(database)
        let big = batch(
            (2...20_001).map { insert(Int64($0), version: Int64($0), pressure(120, 80, minute: Int64($0))) })
        // another session holds the deletions table, so that the push waits inside its transaction, after the hub,
        // devices and people and before its readings: there it is killed
        let locker = try SpawnedProgram(
            cluster.binaries + "/psql",
            [
                "-X", "-q", "-h", cluster.socketDirectory, "-p", "\(cluster.port)", "-U", cluster.superuser, "-d",
                database, "-c",
                "BEGIN; LOCK TABLE vitalbridge.deletions IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(60);",
            ])
        defer {
            _ = try? cluster.psql(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)' AND query LIKE '%pg_sleep(60)%' AND pid <> pg_backend_pid()"
            )
            _ = locker.wait()
        }
        try await waitFor(
            database,
            "SELECT count(*) FROM pg_locks WHERE relation = 'vitalbridge.deletions'::regclass AND mode = 'AccessExclusiveLock' AND granted"
        )
        let push = Task { try await sink.push(big) }
        try await waitFor(
            database,
            "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)' AND wait_event_type = 'Lock' AND query LIKE '%vitalbridge.readings%'"
        )
        #expect(
            try value(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '\(database)' AND wait_event_type = 'Lock' AND query LIKE '%vitalbridge.readings%'",
                database) == "1")
        await #expect(throws: SinkError.self) { try await push.value }
        #expect(await sink.queriesWaiting == 0)
        await sink.close()
        _ = try cluster.psql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)' AND query LIKE '%pg_sleep(60)%' AND pid <> pg_backend_pid()"
        )
        #expect(try snapshot(database) == before)
        #expect(try value("SELECT position FROM vitalbridge.hubs", database) == "1")
        let retry = try await PostgresSink.connect(socketAddress(cluster, database), password: nil, logger: testLogger)
        try await retry.push(big)
        #expect(try value("SELECT count(*) FROM vitalbridge.readings", database) == "20001")
        #expect(try await retry.position(hub: hubA) == 20_001)
        await retry.close()
    }

    /// Waits until `sql` (a count) is at least 1, for 20 s at most.
    func waitFor(_ database: String, _ sql: String) async throws {
        for _ in 0..<400 {
            if let count = Int(try value(sql, database)), count >= 1 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("waited 20 s for: \(sql)")
    }

    @Test("one reading of every kind fills its typed columns, flags and unavailable fields")
    func typedColumns() async throws {
        let (sink, database) = try await migratedSink()
        defer { Task { await sink.close() } }
        let time = Timestamp(secondsSince1970: 1_763_625_600)
        let day = time.day
        var annotatedPressure = annotated(
            .bloodPressure(
                BloodPressureReading(systolic: 121.5, diastolic: 79, heartRate: 66, arrhythmia: true, measuredAt: time)),
            [(.heartRate, .nan)], status: [.bodyMovement, .irregularPulse])
        annotatedPressure.annotations.userIndex = 2
        annotatedPressure.annotations.deviceTime = Timestamp(secondsSince1970: 1_763_625_540)
        let readings: [Reading] = [
            annotatedPressure,
            .glucose(GlucoseReading(mgPerDeciliter: 104.5, measuredAt: time)),
            .weight(
                WeightReading(
                    kilograms: 71.25, measuredAt: time,
                    bodyComposition: BodyComposition(
                        bodyFatPercentage: 21.4, basalMetabolism: 6400, musclePercentage: 40.1, muscleMass: 30.5,
                        fatFreeMass: 56.0, softLeanMass: 52.2, bodyWaterMass: 40.9, impedance: 512.3))),
            .oximetry(
                OximetryReading(
                    oxygenSaturation: 97, heartRate: 64, perfusionIndex: 3.2, wave: [20, 60, 90, 40], measuredAt: time)),
            .temperature(TemperatureReading(celsius: 36.85, measuredAt: time)),
            .activity(
                ActivityDay(
                    date: day, steps: 8421, calories: 312, sleepMinutes: 412, sleepEfficiency: 88, swimMinutes: 20,
                    swimCalories: 150)),
            .band(
                BandDay(
                    date: day, steps: 9000, calories: 400, distance: 6120,
                    sleep: .init(deep: 95, light: 270, awake: 47),
                    heartRate: .init(minimum: 52, average: 71, maximum: 128, minutes: 1380),
                    sports: [.init(type: 1, start: 490, end: 525, calories: 120)],
                    sportTotals: [
                        .init(type: 1, steps: 9000, calories: 320, distance: 6120),
                        .init(type: 2, steps: 0, calories: 80, distance: 0, count: 220),
                    ],
                    sleepSegments: [.init(type: 1, start: 40, end: 40), .init(type: 3, start: 40, end: 135)])),
            .heartRate(HeartRateReading(heartRate: 62, rrIntervals: [812.5, 790, 1003.25], measuredAt: time)),
        ]
        #expect(Set(readings.map(\.kind)) == Set(ReadingKind.allCases))
        try await sink.push(
            batch(readings.enumerated().map { insert(Int64($0.offset + 1), version: Int64($0.offset + 1), $0.element) })
        )
        for (offset, reading) in readings.enumerated() {
            let id = offset + 1
            let fields = reading.kind.fields.filter { $0.column != nil }
            for column in SinkSchema.typedColumns {
                let stored = try value(
                    "SELECT coalesce(\(column.name)::text, 'NULL') FROM vitalbridge.readings WHERE reading_id = \(id)",
                    database)
                let field = fields.first { $0.column == column.column }
                let expected = field.flatMap { $0.value(in: reading) }
                #expect(
                    Self.matches(stored, expected),
                    "\(reading.kind) \(column.name): stored \(stored), expected \(String(describing: expected))")
            }
        }
        #expect(
            try value(
                "SELECT systolic_mmhg || ' ' || diastolic_mmhg || ' ' || coalesce(heart_rate_bpm::text, 'NULL') || ' ' || arrhythmia || ' ' || flags::text || ' ' || unavailable::text || ' ' || user_index || ' ' || measured_at || ' ' || device_time || ' ' || kind || ' ' || device_mac || ' ' || person FROM vitalbridge.readings WHERE reading_id = 1",
                database)
                == #"121.5 79 NULL true {bodyMovement,irregularPulse} {"heart_rate_bpm": "NaN"} 2 2025-11-20 08:00:00+00 2025-11-20 07:59:00+00 blood_pressure 004D3208D2F4 ana"#
        )
        #expect(
            try value(
                "SELECT sports::text || ' ' || distance_m FROM vitalbridge.readings WHERE reading_id = 7", database)
                == #"[{"end": 525, "type": 1, "start": 490, "calories": 120}] 6120"#)
        #expect(
            try value("SELECT rr_intervals_ms::text FROM vitalbridge.readings WHERE reading_id = 8", database)
                == "{812.5,790,1003.25}")
        #expect(
            try value(
                "SELECT flags::text || coalesce(unavailable::text, 'NULL') FROM vitalbridge.readings WHERE reading_id = 2",
                database)
                == "{}NULL")
    }

    /// Whether psql's text of a typed column is `expected`.
    static func matches(_ stored: String, _ expected: FieldValue?) -> Bool {
        switch expected {
        case nil: return stored == "NULL"
        case .number(let number): return Double(stored) == number
        case .integer(let integer): return Int(stored) == integer
        case .flag(let flag): return stored == (flag ? "true" : "false")
        case .intervals(let intervals):
            let numbers = stored.dropFirst().dropLast().split(separator: ",").map { Double($0) }
            return numbers == intervals.map { Optional($0) }
        case .samples(let samples):
            return stored == "{" + samples.map(String.init).joined(separator: ",") + "}"
        case .sports(let sports):
            guard let data = stored.data(using: .utf8),
                let objects = try? JSONSerialization.jsonObject(with: data) as? [[String: Int]]
            else { return false }
            return objects
                == sports.map { ["type": $0.type, "start": $0.start, "end": $0.end, "calories": $0.calories] }
        case .sportTotals(let totals):
            guard let data = stored.data(using: .utf8),
                let objects = try? JSONSerialization.jsonObject(with: data) as? [[String: Int]]
            else { return false }
            return objects
                == totals.map { total in
                    var object = [
                        "type": total.type, "steps": total.steps, "calories": total.calories,
                        "distance": total.distance,
                    ]
                    object["count"] = total.count
                    return object
                }
        case .sleepSegments(let segments):
            guard let data = stored.data(using: .utf8),
                let objects = try? JSONSerialization.jsonObject(with: data) as? [[String: Int]]
            else { return false }
            return objects == segments.map { ["type": $0.type, "start": $0.start, "end": $0.end] }
        }
    }

    @Test("the blood_pressure view gives each person's latest reading with the documented query")
    func latestBloodPressure() async throws {
        let (sink, database) = try await migratedSink()
        defer { Task { await sink.close() } }
        try await sink.push(
            batch([
                insert(1, version: 1, pressure(120, 80, minute: 0), person: "ana"),
                insert(2, version: 2, pressure(125, 82, minute: 10), person: "ana"),
                insert(3, version: 3, pressure(140, 90, minute: 5), person: "ben"),
                insert(4, version: 4, pressure(150, 95, minute: 1), person: "ben"),
            ]))
        let rows = try cluster().psql(SinkSchema.latestBloodPressureQuery, database: database)
            .split(separator: "\n").map { $0.split(separator: "|").map(String.init) }
        #expect(
            rows.map { [$0[1], $0[3], $0[4], $0[5]] } == [["ana", "125", "82", "70"], ["ben", "140", "90", "70"]])
    }

    @Test("100,000 readings are pushed in batches of 5,000, and the sink keeps none of its queries afterwards")
    func hundredThousand() async throws {
        let (sink, database) = try await migratedSink()
        defer { Task { await sink.close() } }
        let start = ContinuousClock.now
        for first in stride(from: 1, through: 100_000, by: 5_000) {
            let changes = (first..<first + 5_000).map { (id: Int) -> ReadingChange in
                let systolic = Double(100 + id % 60)
                return insert(Int64(id), version: Int64(id), pressure(systolic, 80, minute: Int64(id)))
            }
            try await sink.push(batch(changes))
        }
        let elapsed = ContinuousClock.now - start
        print("pushed 100,000 readings in \(elapsed)")
        // an answered query is forgotten: before, each stayed attached to the connection until it closed
        #expect(await sink.queriesWaiting == 0)
        #expect(try value("SELECT count(*) FROM vitalbridge.readings", database) == "100000")
        #expect(elapsed < .seconds(60))
    }
}

@Suite("PostgresSink over TCP", .needs(.postgres), .timeLimit(.minutes(3)))
struct PostgresSinkTCPTests {
    func tcp(
        _ cluster: PrivatePostgres, user: String, database: String, host: String = "127.0.0.1",
        _ mode: SinkAddress.SSLMode, rootCertificate: String? = nil
    ) -> SinkAddress {
        SinkAddress(
            user: user, database: database, endpoint: .tcp(host: host, port: cluster.port), sslMode: mode,
            sslRootCertificate: rootCertificate)
    }

    /// Whether the server sees a TLS connection of `user` to `database`.
    func serverSeesTLS(_ user: String, _ database: String) throws -> Bool {
        try value(
            "SELECT count(*) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.usename = '\(user)' AND a.datname = '\(database)' AND s.ssl",
            "postgres") == "1"
    }

    @Test("sslmode=require over TCP uses TLS, and the server sees it")
    func requireUsesTLS() async throws {
        let cluster = try cluster()
        let database = try cluster.makeDatabase(owner: cluster.sslRole)
        let sink = try await PostgresSink.connect(
            tcp(cluster, user: cluster.sslRole, database: database, .require), password: cluster.password,
            logger: testLogger)
        try await sink.migrate()
        #expect(try serverSeesTLS(cluster.sslRole, database))
        await sink.close()
    }

    @Test("sslmode=verify-full with the cluster's CA connects to localhost and 127.0.0.1; verify-ca too")
    func verifyWithCA() async throws {
        let cluster = try cluster()
        let database = try cluster.makeDatabase(owner: cluster.sslRole)
        for address in [
            tcp(
                cluster, user: cluster.sslRole, database: database, host: "localhost", .verifyFull,
                rootCertificate: cluster.caCertificate),
            tcp(
                cluster, user: cluster.sslRole, database: database, .verifyFull, rootCertificate: cluster.caCertificate),
            tcp(cluster, user: cluster.sslRole, database: database, .verifyCA, rootCertificate: cluster.caCertificate),
        ] {
            let sink = try await PostgresSink.connect(address, password: cluster.password, logger: testLogger)
            #expect(try serverSeesTLS(cluster.sslRole, database))
            await sink.close()
        }
    }

    @Test(
        "a wrong CA, or TLS off for a TLS-only role, fails clearly",
        arguments: [
            (SinkAddress.SSLMode.verifyFull, "localhost", true, "certificate"),
            (SinkAddress.SSLMode.verifyCA, "127.0.0.1", true, "certificate"),
            (SinkAddress.SSLMode.disable, "127.0.0.1", false, "pg_hba.conf"),
        ])
    func failsClearly(_ mode: SinkAddress.SSLMode, _ host: String, _ otherCA: Bool, _ says: String) async throws {
        let cluster = try cluster()
        let database = try cluster.makeDatabase(owner: cluster.sslRole)
        let address = tcp(
            cluster, user: cluster.sslRole, database: database, host: host, mode,
            rootCertificate: otherCA ? cluster.otherCACertificate : nil)
        await #expect {
            _ = try await PostgresSink.connect(address, password: cluster.password, logger: testLogger)
        } throws: { error in
            guard let error = error as? SinkError else { return false }
            #expect(error.message.contains("\(host):\(cluster.port)"), "\(error.message)")
            #expect(error.message.lowercased().contains(says.lowercased()), "\(error.message)")
            #expect(!error.message.contains(cluster.password) && !error.message.contains("\n"))
            return error.code == .connectionFailed
        }
    }

    @Test(
        "a connection that fails says where and what failed, on one line",
        arguments: [
            ("refused", "connection refused"), ("no socket", "no such socket"),
            ("no password", "asks for a password"), ("no database", "does not exist"),
            ("no CA file", "sslrootcert /nonexistent/ca.pem: no such file"),
        ])
    func connectionFailures(_ situation: String, _ says: String) async throws {
        let cluster = try cluster()
        let database = try cluster.makeDatabase(owner: cluster.sslRole)
        var address = tcp(cluster, user: cluster.sslRole, database: database, .require)
        var password: String? = cluster.password
        switch situation {
        case "refused": address.endpoint = .tcp(host: "127.0.0.1", port: 1)
        case "no socket":
            address = SinkAddress(
                user: cluster.sslRole, database: database, endpoint: .unixSocket(directory: "/nonexistent", port: 5432))
        case "no password": password = nil
        case "no database": address.database = "nonexistent"
        default:
            address.sslMode = .verifyFull
            address.sslRootCertificate = "/nonexistent/ca.pem"
        }
        await #expect {
            _ = try await PostgresSink.connect(address, password: password, logger: testLogger)
        } throws: { error in
            guard let error = error as? SinkError else { return false }
            #expect(error.message.contains(address.serverDescription), "\(error.message)")
            #expect(error.message.contains(says), "\(error.message)")
            #expect(!error.message.contains("\n") && !error.message.contains(cluster.password))
            return error.code == .connectionFailed
        }
    }

    @Test("the position of a database not yet migrated says to migrate")
    func positionBeforeMigrating() async throws {
        let cluster = try cluster()
        let database = try cluster.makeDatabase()
        let sink = try await PostgresSink.connect(socketAddress(cluster, database), password: nil, logger: testLogger)
        await #expect {
            _ = try await sink.position(hub: hubA)
        } throws: { error in
            (error as? SinkError)?.message.contains("migrate first") == true
        }
        await sink.close()
    }

    @Test("a wrong password fails without showing it")
    func wrongPassword() async throws {
        let cluster = try cluster()
        let database = try cluster.makeDatabase(owner: cluster.passwordRole)
        await #expect {
            _ = try await PostgresSink.connect(
                tcp(cluster, user: cluster.passwordRole, database: database, .prefer), password: "Wr0ng-Passw0rd",
                logger: testLogger)
        } throws: { error in
            let message = (error as? SinkError)?.message ?? ""
            #expect(message.contains("password authentication failed"), "\(message)")
            return !message.contains("Wr0ng-Passw0rd")
        }
    }

    @Test("the password comes from --password-file or from ~/.pgpass")
    func passwordSources() async throws {
        let cluster = try cluster()
        let database = try cluster.makeDatabase(owner: cluster.passwordRole)
        let folder = try TemporaryDirectory("vitalbridge-sink-password")
        defer { folder.remove() }
        let address = tcp(cluster, user: cluster.passwordRole, database: database, .prefer)
        let fromFile = try SinkPassword.read(file: file(folder, "password", cluster.password + "\n", mode: 0o600))
        let passfile = try file(
            folder, "pgpass",
            "127.0.0.1:\(cluster.port):\(database):\(cluster.passwordRole):"
                + SinkPasswordTests.escaped(cluster.password) + "\n", mode: 0o600)
        let fromPgpass = try #require(SinkPassword.lookup(for: address, passfile: passfile, logger: testLogger))
        for password in [fromFile, fromPgpass] {
            let sink = try await PostgresSink.connect(address, password: password, logger: testLogger)
            try await sink.migrate()
            try await sink.push(batch([insert(1, version: 1, pressure(120, 80))]))
            #expect(try await sink.position(hub: hubA) == 1)
            await sink.close()
        }
    }
}
