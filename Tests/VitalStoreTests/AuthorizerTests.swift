import Foundation
import GRDB
import Testing
import VitalCore
import VitalTestSupport

@testable import VitalStore

/// The store's connections run without GRDB's authorizer once they are open (`StoreFile.removeAuthorizer`): GRDB's
/// own transactions must still end as they did with it.
@Suite("Connections without GRDB's authorizer")
struct AuthorizerTests {
    struct Failure: Error {}

    @Test("every connection the store opens prepares its statements without GRDB's authorizer, upgraded ones too")
    func removedOnEveryOpen() throws {
        let directory = try TemporaryDirectory("authorizer")
        defer { directory.remove() }
        let path = directory.file("vitalbridge.sqlite")
        // release 0.14.0's store (schema 5), opened to read: upgraded by a writing open first
        let older = directory.file("older.sqlite")
        try FileManager.default.copyItem(
            atPath: Oracles.root.appendingPathComponent("Tests/Fixtures/home-0.14.0/vitalbridge.sqlite").path,
            toPath: older)
        let stores = [
            try VitalStore(path: path), try VitalStore(path: path, readOnly: true),
            try VitalStore(path: older, readOnly: true), try VitalStore(),
        ]
        for store in stores {
            // GRDB's authorizer records the columns a statement reads as it is prepared: none without it
            let region = try store.file.query("prepare") { db in
                try db.makeStatement(sql: "SELECT mac, model FROM device").databaseRegion
            }
            #expect(region.isEmpty)
        }
        // and with it, the same statement names its table: what the check above would see if it stayed
        let plain = try DatabaseQueue(path: path)
        let region = try plain.read { db in try db.makeStatement(sql: "SELECT mac, model FROM device").databaseRegion }
        #expect(!region.isEmpty)
    }

    @Test("a failed read or write leaves no transaction, read-only mode or row; a reader sees the next commit")
    func failuresEndWhole() throws {
        let directory = try TemporaryDirectory("authorizer")
        defer { directory.remove() }
        let path = directory.file("vitalbridge.sqlite")
        let store = try VitalStore(path: path)
        let reader = try VitalStore(path: path, readOnly: true)
        for opened in [store, reader] {
            #expect(throws: StoreError.self) {
                try opened.file.snapshot("read, then fail") { db -> Int in
                    #expect(db.isInsideTransaction)
                    throw Failure()
                }
            }
            try opened.file.query("look") { db in #expect(!db.isInsideTransaction) }
            #expect(try opened.pragma("query_only") == "0")
        }
        // a write that fails leaves nothing; the next one commits, and the reader, whose snapshot ended, sees it
        let mac = try #require(MACAddress("004D3208D2F4"))
        let reading = Reading.glucose(
            GlucoseReading(mgPerDeciliter: 110, measuredAt: Timestamp(secondsSince1970: 1_700_000_000)))
        #expect(throws: StoreError.self) {
            try store.file.write("write, then fail") { db -> Void in
                try db.execute(sql: "INSERT INTO device (mac, model, added_at) VALUES ('004D3208D2F4', 100, 0)")
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM device") == 1)
                throw Failure()
            }
        }
        #expect(try store.devices().isEmpty)
        try store.readings.store([reading], device: mac)
        #expect(try reader.readings.all(device: mac).map(\.reading) == [reading])
        #expect(try store.pragma("query_only") == "0")
    }
}
