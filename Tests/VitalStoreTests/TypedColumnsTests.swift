import Foundation
import GRDB
import Testing
import VitalCore
import VitalTestSupport

@testable import VitalStore

/// A reading's values are typed columns of the `reading` table, one per stored field, and a release-0.14.0 store's
/// text converts to them row by row.
@Suite("Typed columns")
struct TypedColumnsTests {
    static let device = MACAddress("004D3208D30B")!
    static let time = Timestamp(secondsSince1970: 1_763_700_000)
    static let weight = Reading.weight(
        WeightReading(
            kilograms: 80, measuredAt: time,
            bodyComposition: BodyComposition(
                bodyFatPercentage: 22.5, basalMetabolism: 6_500, musclePercentage: 35, impedance: 480)))
    static let pressure = Reading.bloodPressure(
        BloodPressureReading(systolic: 120, diastolic: 80, heartRate: 61, arrhythmia: true, measuredAt: time))

    /// A new store in `directory`, holding `readings`.
    static func store(_ directory: TemporaryDirectory, _ readings: [Reading]) throws -> (VitalStore, String) {
        let path = directory.file("vitalbridge.sqlite")
        let store = try VitalStore(path: path)
        try store.readings.store(readings, device: device)
        return (store, path)
    }

    @Test("every stored field of every kind has a column of its type; a value is kept in it as a number or text")
    func columns() throws {
        let directory = try TemporaryDirectory("typed-columns")
        defer { directory.remove() }
        let (store, path) = try Self.store(directory, [Self.weight])
        let declared = try DatabaseQueue(path: path).read { db in
            try Dictionary(uniqueKeysWithValues: db.columns(in: "reading").map { ($0.name, $0.type) })
        }
        for kind in ReadingKind.allCases {
            for field in kind.storedFields {
                let type =
                    switch field.type {
                    case .number: "REAL"
                    case .integer, .flag: "INTEGER"
                    case .sports, .intervals, .sportTotals, .sleepSegments, .samples: "TEXT"
                    }
                #expect(declared[field.name!] == type, "\(kind).\(field.name!)")
            }
        }
        #expect(
            Set(declared.keys)
                == Set(
                    ReadingColumns.names + ReadingColumns.annotationNames + [
                        "id", "device_mac", "kind", "measured_at", "revision", "unconverted", "deleted_at",
                    ]))
        let row = try DatabaseQueue(path: path).read { db in
            try Row.fetchOne(db, sql: "SELECT kind, kg, fat, musclepct, bmr, imp, muscle, typeof(bmr) FROM reading")
        }
        #expect(
            row == [
                "kind": "weight", "kg": 80.0, "fat": 22.5, "musclepct": 35.0, "bmr": 6_500, "imp": 480.0, "muscle": nil,
                "typeof(bmr)": "integer",
            ])
        // a re-sent reading is recognized by its values
        let first = try store.readings.id(of: Self.weight, device: Self.device)
        #expect(try store.readings.store([Self.weight], device: Self.device) == [first])
        #expect(try store.readings.all().map(\.reading) == [Self.weight])
    }

    @Test("a value not of its column's type makes its row unreadable, named, never a wrong number or a missing value")
    func wrongTypes() throws {
        let directory = try TemporaryDirectory("typed-columns")
        defer { directory.remove() }
        let (store, path) = try Self.store(directory, [Self.pressure])
        let raw = try DatabaseQueue(path: path)
        for (flag, expected) in [(1, true), (0, false)] {
            try raw.write { db in try db.execute(sql: "UPDATE reading SET arr = ?", arguments: [flag]) }
            guard case .bloodPressure(var reading) = Self.pressure else { return }
            reading.arrhythmia = expected
            #expect(try store.readings.all().map(\.reading) == [.bloodPressure(reading)])
        }
        for change in [
            "arr = 2", "arr = 'yes'", "sys = 'high'", "hr = 61.5", "sys = NULL", "kind = 'lactate'",
            "mgdl = 90, sys = NULL",
        ] {
            try raw.write { db in
                try db.execute(
                    sql: "UPDATE reading SET kind = 'blood_pressure', sys = 120.0, hr = 61, arr = 1, mgdl = NULL")
                try db.execute(sql: "UPDATE reading SET \(change)")
            }
            #expect(throws: StoreError.self, "\(change)") { try store.readings.all() }
            do {
                _ = try store.readings.all()
            } catch {
                #expect(error.code == .corrupt && error.message.contains("reading 1 of 004D3208D30B"), "\(change)")
            }
        }
    }

    @Test("a batch finds every reading the store has: beside a few or many stored ones, or twice in the batch")
    func batches() throws {
        let store = try VitalStore()
        func glucose(_ value: Double, at seconds: Int64) -> Reading {
            .glucose(GlucoseReading(mgPerDeciliter: value, measuredAt: Timestamp(secondsSince1970: seconds)))
        }
        let history = (0..<30).map { glucose(90 + Double($0), at: 1_000 + 60 * Int64($0)) }
        let ids = try store.readings.store(history, device: Self.device)
        #expect(Set(ids).count == 30)
        // all of them again, in one batch: each is found
        #expect(try store.readings.store(history.reversed(), device: Self.device) == ids.reversed())
        // two readings whose span holds 25 stored ones (more than the range read takes): looked up one by one
        let wide = try store.readings.store([history[5], glucose(80, at: 1_000 + 60 * 29 + 1)], device: Self.device)
        #expect(wide[0] == ids[5] && !ids.contains(wide[1]))
        // a reading twice in one batch, and another at the same time with another value
        let twice = try store.readings.store(
            [glucose(100, at: 9_000), glucose(100, at: 9_000), glucose(101, at: 9_000)], device: Self.device)
        #expect(twice[0] == twice[1] && twice[2] != twice[0])
        #expect(try store.readings.all().count == 33)
    }

    @Test("a 0.14.0 store converts every row, keeping its identifier, revision and references; unreadable text stays")
    func migration() throws {
        let directory = try TemporaryDirectory("typed-columns")
        defer { directory.remove() }
        let path = directory.file("vitalbridge.sqlite")
        try FileManager.default.copyItem(
            atPath: Oracles.root.appendingPathComponent("Tests/Fixtures/home-0.14.0/vitalbridge.sqlite").path,
            toPath: path)
        // rows 0.14.0 could not read, and a flag written as 2 (which it read as false)
        let raw = try DatabaseQueue(path: path)
        try raw.write { db in
            try db.execute(sql: "UPDATE reading SET payload = 'mgdl=90;x=1' WHERE id = 7")
            try db.execute(sql: "UPDATE reading SET kind = 'lactate' WHERE id = 9")
            try db.execute(
                sql: "UPDATE reading SET payload = 'sys=107.0;dia=57.0;hr=71;arr=2', revision = 3 WHERE id = 1")
        }
        let before = try raw.read { db in
            (
                rows: try Row.fetchAll(
                    db, sql: "SELECT id, device_mac, kind, measured_at, revision, payload FROM reading ORDER BY id"),
                journal: try Row.fetchAll(db, sql: "SELECT * FROM delivery_reading ORDER BY delivery_id, reading_id"),
                sequence: try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'reading'")
            )
        }
        try raw.close()
        let store = try VitalStore(path: path)
        let after = try DatabaseQueue(path: path).read { db in
            (
                rows: try Row.fetchAll(
                    db, sql: "SELECT \(ReadingColumns.selected), unconverted, revision FROM reading ORDER BY id"),
                journal: try Row.fetchAll(db, sql: "SELECT * FROM delivery_reading ORDER BY delivery_id, reading_id"),
                foreignKeys: try Row.fetchAll(db, sql: "PRAGMA foreign_key_check"),
                version: try Int.fetchOne(db, sql: "PRAGMA user_version")
            )
        }
        #expect(after.version == VitalStore.schemaVersion)
        #expect(after.journal == before.journal && after.foreignKeys.isEmpty)
        #expect(after.rows.count == before.rows.count && before.rows.count == 110)
        for (old, new) in zip(before.rows, after.rows) {
            let id: Int64 = old[0]
            #expect(new[0] as Int64 == id && new["revision"] as Int == old[4] as Int)
            #expect(new[1] as String == old[1] as String && new[2] as String == old[2] as String)
            #expect(new[3] as Int64 == old[3] as Int64)
            let legacy = LegacyPayload.decode(
                kind: old[2], measuredAt: Timestamp(secondsSince1970: old[3]), payload: old[5])
            if let legacy {
                #expect(try VitalStore.reading(from: new).reading == legacy, "row \(id)")
                #expect(new["unconverted"] as String? == nil)
            } else {
                #expect([7, 9].contains(id))
                #expect(new["unconverted"] as String? == old[5] as String)
                #expect(throws: StoreError.self) { try VitalStore.reading(from: new) }
            }
        }
        // 0.14.0 read a flag of 2 as false
        guard case .bloodPressure(let first) = try VitalStore.reading(from: after.rows[0]).reading else {
            Issue.record("row 1 is not a blood pressure")
            return
        }
        #expect(first.arrhythmia == false && first.systolic == 107)
        // reading the store names the first row it cannot read, as 0.14.0 did
        do {
            _ = try store.readings.all()
            Issue.record("the unreadable rows were skipped")
        } catch {
            #expect(error.code == .corrupt && error.message.contains("reading 7 of"), "\(error)")
        }
        // identifiers go on after the last one the store ever gave
        let next = try store.readings.store([Self.pressure], device: Self.device)
        #expect(next == [(before.sequence ?? 0) + 1])
    }
}
