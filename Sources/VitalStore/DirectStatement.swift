import Foundation
internal import GRDB
internal import GRDBSQLite

/// Runs one of the store's prepared statements through SQLite's C API: binds its arguments, steps it to the end and
/// resets it, answering the first column of each row it returns.
///
/// It is for the statements a pushed reading runs (one transaction a reading: the schema check that starts it,
/// `ReadingWriter.lookUp(_:)`'s search of the times around it, finding the stored readings of its time, inserting
/// it, its feed entry, its pending rows), inside a transaction GRDB began on the same connection, and for the schema
/// check when the store opens (a `SELECT` alone, which leaves the connection as it found it).
/// GRDB's own `execute(arguments:)` and `fetchAll` cost more than SQLite's work on these small statements: the
/// arguments go through an unspecialized generic `StatementArguments` (an array of existentials mapped, checked and
/// copied), and each fetch makes a cursor; together about a fifth of a pushed reading's instructions
/// (Benchmarks/push-cpu.sh). The statement is still prepared and cached by GRDB (`cachedStatement`); what is skipped
/// is GRDB's bookkeeping around a step: transaction observers (the store registers none) and its notion of the
/// current statement, which a statement that neither begins nor ends a transaction does not change.
///
/// An SQLite error becomes a GRDB `DatabaseError` with SQLite's extended code and message, as GRDB's own would, so
/// `StoreError.wrapping` names it the same way.
enum DirectStatement {
    /// Runs `statement` with `arguments`, which must be as many as its parameters; returns column 0 of each row it
    /// gives, as integers (none for a statement that returns no rows).
    @discardableResult
    static func run(_ statement: Statement, _ arguments: DatabaseValue...) throws -> [Int64] {
        try run(statement, arguments)
    }

    /// Runs `statement` with `arguments`: the same as the variadic `run(_:_:)`, for an array.
    @discardableResult
    static func run(_ statement: Statement, _ arguments: [DatabaseValue]) throws -> [Int64] {
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        sqlite3_reset(handle)
        guard sqlite3_bind_parameter_count(handle) == Int32(arguments.count) else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "\(arguments.count) arguments for \(sqlite3_bind_parameter_count(handle)) parameters",
                sql: statement.sql)
        }
        for (index, argument) in zip(Int32(1)..., arguments) {
            let code: Int32
            switch argument.storage {
            case .null: code = sqlite3_bind_null(handle, index)
            case .int64(let value): code = sqlite3_bind_int64(handle, index, value)
            case .double(let value): code = sqlite3_bind_double(handle, index, value)
            case .string(let value):
                // by its length in bytes, as GRDB binds it: a NUL inside the text is kept, not an end
                code = value.withCString { text in
                    sqlite3_bind_text(handle, index, text, Int32(value.utf8.count), transient)
                }
            case .blob(let value):
                code = value.withUnsafeBytes { bytes in
                    sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), transient)
                }
            }
            guard code == SQLITE_OK else { throw error(code, statement) }
        }
        var rows: [Int64] = []
        while true {
            switch sqlite3_step(handle) {
            case SQLITE_DONE: return rows
            case SQLITE_ROW: rows.append(sqlite3_column_int64(handle, 0))
            case let code: throw error(code, statement)
            }
        }
    }

    /// The `DatabaseError` of SQLite result `code` on `statement`'s connection, with SQLite's message.
    private static func error(_ code: Int32, _ statement: Statement) -> DatabaseError {
        let connection = sqlite3_db_handle(statement.sqliteStatement)
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        return DatabaseError(resultCode: ResultCode(rawValue: extended), message: message, sql: statement.sql)
    }

    /// SQLite copies a bound text or blob (`SQLITE_TRANSIENT`): the Swift string it came from may go at once.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

extension Optional where Wrapped == any DatabaseValueConvertible {
    /// The value to bind: SQL NULL for `nil`.
    var bound: DatabaseValue { self?.databaseValue ?? .null }
}
