import GRDB
import Testing

@testable import VitalStore

/// The statements a pushed reading runs through SQLite's C API bind, answer and fail as GRDB's own would.
@Suite("Direct statements")
struct DirectStatementTests {
    @Test("values of each storage class are bound as they are, a text with a NUL inside kept whole")
    func bindsEveryStorageClass() throws {
        let store = try VitalStore()
        try store.file.database.write { db in
            try db.execute(sql: "CREATE TEMP TABLE t (id INTEGER PRIMARY KEY, a, b, c, d)")
            let insert = try db.cachedStatement(sql: "INSERT INTO t (a, b, c, d) VALUES (?, ?, ?, ?)")
            try DirectStatement.run(insert, 7.databaseValue, 2.5.databaseValue, "x\u{0}y".databaseValue, .null)
            // hex: GRDB reads a text back only up to its first NUL
            let row = try #require(try Row.fetchOne(db, sql: "SELECT a, b, hex(c), typeof(c), d FROM t"))
            #expect(row[0] as Int64 == 7)
            #expect(row[1] as Double == 2.5)
            #expect(row[2] as String == "780079")
            #expect(row[3] as String == "text")
            #expect((row[4] as DatabaseValue).isNull)
            let find = try db.cachedStatement(sql: "SELECT id FROM t WHERE a = ? ORDER BY id")
            try DirectStatement.run(insert, 7.databaseValue, DatabaseValue.null, DatabaseValue.null, .null)
            #expect(try DirectStatement.run(find, 7.databaseValue) == [1, 2])
            #expect(try DirectStatement.run(find, 8.databaseValue) == [])
        }
    }

    @Test("a wrong number of arguments is refused, naming both counts; SQLite's errors keep their code")
    func refusesAndReports() throws {
        let store = try VitalStore()
        try store.file.database.write { db in
            try db.execute(sql: "CREATE TEMP TABLE t (id INTEGER PRIMARY KEY, a UNIQUE)")
            let insert = try db.cachedStatement(sql: "INSERT INTO t (a) VALUES (?)")
            let miscount = #expect(throws: DatabaseError.self) {
                try DirectStatement.run(insert, 1.databaseValue, 2.databaseValue)
            }
            #expect(miscount?.message == "2 arguments for 1 parameters")
            try DirectStatement.run(insert, 1.databaseValue)
            let duplicate = #expect(throws: DatabaseError.self) { try DirectStatement.run(insert, 1.databaseValue) }
            #expect(duplicate?.resultCode == .SQLITE_CONSTRAINT)
            #expect(duplicate?.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE)
            // the statement was reset after the failure: it runs again
            try DirectStatement.run(insert, 2.databaseValue)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") == 2)
        }
    }
}
