import Foundation
import GRDB
import Testing
import VitalCore
import VitalTestSupport

@testable import VitalStore

/// A pulse oximeter reading keeps the pulse wave its device sent (schema 10): comma-separated samples in
/// `reading.wave`, NULL without one; a reading re-sent with the same values and wave is the same reading.
@Suite("Pulse wave in the store")
struct PulseWaveStoreTests {
    static let device = MACAddress("004D3208D307")!
    static let time = Timestamp(secondsSince1970: 1_763_700_000)

    static func oximetry(wave: [Int]?, spO2: Int = 97) -> Reading {
        .oximetry(
            OximetryReading(oxygenSaturation: spO2, heartRate: 64, perfusionIndex: 2.5, wave: wave, measuredAt: time))
    }

    @Test("the wave is kept as comma-separated text, NULL without one, and read back whole")
    func keptAsText() throws {
        let directory = try TemporaryDirectory("pulse-wave")
        defer { directory.remove() }
        let path = directory.file("vitalbridge.sqlite")
        let store = try VitalStore(path: path)
        let withWave = Self.oximetry(wave: [20, 60, 90, 40, 0, 100])
        let without = Self.oximetry(wave: nil, spO2: 95)
        try store.readings.store([withWave, without], device: Self.device)
        let rows = try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: "SELECT wave, typeof(wave) AS type FROM reading ORDER BY id")
        }
        #expect(rows == [["wave": "20,60,90,40,0,100", "type": "text"], ["wave": nil, "type": "null"]])
        #expect(try store.readings.all().map(\.reading) == [withWave, without])
    }

    @Test("a reading re-sent with the same values and wave is stored once; another wave is another reading")
    func resent() throws {
        let directory = try TemporaryDirectory("pulse-wave")
        defer { directory.remove() }
        let store = try VitalStore(path: directory.file("vitalbridge.sqlite"))
        let reading = Self.oximetry(wave: [20, 60, 90, 40])
        let first = try store.readings.store([reading], device: Self.device)
        #expect(try store.readings.store([reading], device: Self.device) == first)
        #expect(try store.readings.id(of: reading, device: Self.device) == first[0])
        let other = Self.oximetry(wave: [20, 60, 90, 41])
        let second = try store.readings.store([other], device: Self.device)
        #expect(second != first)
        #expect(try store.readings.all().map(\.reading) == [reading, other])
    }

    @Test(
        "a wave column the store did not write makes its row unreadable, named, never a shorter wave",
        arguments: ["'20,,40'", "'20,101'", "'-1'", "''", "'a'", "12.5", "'20;40'", "X'3230'"])
    func unreadable(value: String) throws {
        let directory = try TemporaryDirectory("pulse-wave")
        defer { directory.remove() }
        let path = directory.file("vitalbridge.sqlite")
        let store = try VitalStore(path: path)
        try store.readings.store([Self.oximetry(wave: [20, 60])], device: Self.device)
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "UPDATE reading SET wave = \(value)") }
        #expect(throws: StoreError.self, "\(value)") { try store.readings.all() }
    }

    @Test("a store of schema 8 opens migrated: the wave column is added, NULL for every reading, which read as before")
    func upgradeFromV8() throws {
        let directory = try TemporaryDirectory("pulse-wave")
        defer { directory.remove() }
        let path = directory.file("vitalbridge.sqlite")
        let old = Self.oximetry(wave: nil)
        do {
            // a home as the release before this one left it: migrations up to v8, schema number 8
            let queue = try DatabaseQueue(path: path)
            try StoreSchema.migrator.migrate(queue, upTo: "v8: the change feed, deletions and sinks")
            try queue.write { db in
                try db.execute(sql: "PRAGMA user_version = 8")
                try db.execute(
                    sql: """
                        INSERT INTO reading (device_mac, kind, measured_at, spo2, hr, pi)
                        VALUES ('004D3208D307', 'oximetry', \(Self.time.secondsSince1970), 97, 64, 2.5)
                        """)
            }
            #expect(try queue.read { db in try db.columns(in: "reading").contains { $0.name == "wave" } } == false)
            try queue.close()
        }
        let store = try VitalStore(path: path)
        #expect(try store.readings.all().map(\.reading) == [old])
        let (wave, migrations) = try DatabaseQueue(path: path).read { db in
            (
                try Row.fetchAll(db, sql: "SELECT wave FROM reading"),
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations WHERE identifier LIKE 'v10:%'")
            )
        }
        #expect(wave == [["wave": nil]])
        #expect(migrations == ["v10: a pulse oximeter's pulse wave"])
    }
}
