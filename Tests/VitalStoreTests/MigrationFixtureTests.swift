import Foundation
import GRDB
import Testing
import VitalTestSupport

@testable import VitalStore

/// Each migration run from its own fixture: the store the migrations before it made, with the rows of
/// `Tests/Fixtures/migrations/vN.sql` (written at schema N − 1) added before migration N, then compared whole — its
/// schema and every row of every table — with `vN.expected`. A migration is never edited once shipped, so its
/// expected store never changes either; `VITALBRIDGE_RECORD_MIGRATIONS=1` writes the expected files anew, for a new
/// migration only.
@Suite struct MigrationFixtureTests {
    static let folder = Oracles.root.appendingPathComponent("Tests/Fixtures/migrations")

    @Test("every migration turns its fixture into the store it expects", arguments: 1...StoreSchema.version)
    func migration(number: Int) throws {
        let migrator = StoreSchema.migrator
        let names = migrator.migrations
        let queue = try DatabaseQueue()
        for step in 1...number {
            if let rows = try? String(contentsOf: Self.folder.appendingPathComponent("v\(step).sql"), encoding: .utf8) {
                try queue.write { db in try db.execute(sql: rows) }
            }
            try migrator.migrate(queue, upTo: names[step - 1])
        }
        let dump = try queue.read { db in try Self.dump(db) }
        let expected = Self.folder.appendingPathComponent("v\(number).expected")
        if ProcessInfo.processInfo.environment["VITALBRIDGE_RECORD_MIGRATIONS"] == "1" {
            try dump.write(to: expected, atomically: true, encoding: .utf8)
        }
        #expect(dump == (try String(contentsOf: expected, encoding: .utf8)), "migration \(names[number - 1])")
    }

    /// The store as text: each table's and index's SQL, then each table's rows (sorted), the hub's random identity
    /// written as `<uuid>`.
    static func dump(_ db: Database) throws -> String {
        var lines: [String] = []
        let objects = try Row.fetchAll(
            db, sql: "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type DESC, name")
        for object in objects {
            lines.append("\(object["type"] as String) \(object["name"] as String): \(object["sql"] as String)")
        }
        for table in objects where table["type"] as String == "table" {
            let name: String = table["name"]
            lines.append("-- \(name)")
            lines += try Row.fetchAll(db, sql: "SELECT * FROM \(name)").map(\.description).sorted()
        }
        let text = lines.joined(separator: "\n") + "\n"
        return text.replacingOccurrences(
            of: "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", with: "<uuid>",
            options: .regularExpression)
    }
}
