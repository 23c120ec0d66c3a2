import Foundation
import GRDB
import Testing
import VitalCore
import VitalStore
import VitalTestSupport

/// A store of another release: an older one is upgraded by any open, a newer one is never written.
@Suite struct SchemaGuardTests {
    static let mac = MACAddress("004D3208D308")!

    static func glucose(_ value: Double, at second: Int64) -> Reading {
        .glucose(GlucoseReading(mgPerDeciliter: value, measuredAt: Timestamp(secondsSince1970: 1_795_000_000 + second)))
    }

    /// Sets the store's `PRAGMA user_version`, as another release's migration does.
    static func setSchema(_ path: String, _ version: Int) throws {
        try DatabaseQueue(path: path).writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA user_version = \(version)")
        }
    }

    @Test("a store a newer release upgraded under an open store: no write goes through, the check says why")
    func upgradedUnderneath() throws {
        let directory = try TemporaryDirectory("schema-guard")
        defer { directory.remove() }
        let path = directory.file("vitalbridge.sqlite")
        let store = try VitalStore(path: path)
        try store.readings.store([Self.glucose(90, at: 1)], device: Self.mac)
        try store.checkSchema()
        try Self.setSchema(path, VitalStore.schemaVersion + 1)
        #expect {
            try store.readings.store([Self.glucose(95, at: 2)], device: Self.mac)
        } throws: { error in
            let error = error as? StoreError
            return error?.code == .schema
                && error?.message.contains("its schema became \(VitalStore.schemaVersion + 1)") == true
                && error?.message.contains("this process writes nothing more") == true
        }
        #expect { try store.checkSchema() } throws: { ($0 as? StoreError)?.code == .schema }
        // nothing was written: the newer release finds what it had
        try Self.setSchema(path, VitalStore.schemaVersion)
        #expect(try VitalStore(path: path, readOnly: true).readings.all().map(\.reading) == [Self.glucose(90, at: 1)])
    }

    @Test("opened to read, a newer release's store is refused naming both schemas; an older one is upgraded once")
    func readOnlyOpen() throws {
        let directory = try TemporaryDirectory("schema-guard")
        defer { directory.remove() }
        let newer = directory.file("newer.sqlite")
        _ = try VitalStore(path: newer)
        try Self.setSchema(newer, 99)
        #expect {
            try VitalStore(path: newer, readOnly: true)
        } throws: { error in
            let error = error as? StoreError
            return error?.code == .schema
                && error?.message.hasSuffix(
                    "written by a newer VitalBridge (schema 99; this one knows \(VitalStore.schemaVersion))") == true
        }
        // release 0.14.0's store (schema 5)
        let older = directory.file("older.sqlite")
        try FileManager.default.copyItem(
            atPath: Oracles.root.appendingPathComponent("Tests/Fixtures/home-0.14.0/vitalbridge.sqlite").path,
            toPath: older)
        let store = try VitalStore(path: older, readOnly: true)
        #expect(try !store.readings.all().isEmpty)
        let version = try DatabaseQueue(path: older).read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") }
        #expect(version == VitalStore.schemaVersion)
    }
}
