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

    /// Sets the store's `PRAGMA user_version`.
    static func setSchema(_ path: String, _ version: Int) throws {
        try DatabaseQueue(path: path).writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA user_version = \(version)")
        }
    }

    /// Applies a migration of a newer release to the store at `path`, as that release does: the migration and its
    /// row in one transaction, then (`numbered`) the schema number.
    static func migrateAsNewerRelease(_ path: String, numbered: Bool = true) throws {
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE newer (id INTEGER PRIMARY KEY)")
            try db.execute(
                sql:
                    "INSERT INTO grdb_migrations (identifier) VALUES ('v\(VitalStore.schemaVersion + 1): a newer release')"
            )
        }
        if numbered { try setSchema(path, VitalStore.schemaVersion + 1) }
    }

    @Test(
        "a store a newer release migrates under an open store: no write goes through, before or after its schema number",
        arguments: [false, true])
    func upgradedUnderneath(numbered: Bool) throws {
        let directory = try TemporaryDirectory("schema-guard")
        defer { directory.remove() }
        let path = directory.file("vitalbridge.sqlite")
        let store = try VitalStore(path: path)
        try store.readings.store([Self.glucose(90, at: 1)], device: Self.mac)
        try store.checkSchema()
        // with `numbered` false, the newer release was killed between its migration and its schema number
        try Self.migrateAsNewerRelease(path, numbered: numbered)
        #expect {
            try store.readings.store([Self.glucose(95, at: 2)], device: Self.mac)
        } throws: { error in
            let error = error as? StoreError
            return error?.code == .schema
                && error?.message.contains(
                    "\(VitalStore.schemaVersion + 1) migrations, where this release knows \(VitalStore.schemaVersion)")
                    == true
                && error?.message.contains("this process writes nothing more") == true
        }
        #expect { try store.checkSchema() } throws: { ($0 as? StoreError)?.code == .schema }
        // a new process of this release refuses it too, to write or to read
        #expect { try VitalStore(path: path) } throws: { ($0 as? StoreError)?.code == .schema }
        #expect { try VitalStore(path: path, readOnly: true) } throws: { ($0 as? StoreError)?.code == .schema }
        // nothing was written: the newer release finds what it had
        let rows = try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM reading")
        }
        #expect(rows == 1)
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
