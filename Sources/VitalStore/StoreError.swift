internal import GRDB

/// Why the store failed; the description never contains a health value.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure, for the engine and the command line to answer precisely.
    public enum Code: String, Hashable, Sendable {
        /// Another process held the store longer than the busy timeout.
        case busy
        /// The file is damaged, or holds a row the store cannot read.
        case corrupt
        /// The disk (or the file system's quota) is full.
        case full
        /// The file is not a VitalBridge store.
        case foreignFile
        /// The store was written, or upgraded since it was opened, by a newer VitalBridge.
        case schema
        /// The store is of an older release, and this user cannot write it to upgrade it.
        case upgradeRefused
        /// The store cannot be written (a read-only file or folder).
        case readOnly
        /// Any other failure of SQLite or the file system.
        case failed
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A failure of kind ``Code/failed``.
    public init(_ message: String) { self.init(.failed, message) }

    public var description: String { message }

    /// `error` (a database error, or a store error thrown inside a transaction) as a store error whose message
    /// says what failed: `cannot <what>: <why>`.
    static func wrapping(_ error: any Error, _ what: String) -> StoreError {
        if let error = error as? StoreError { return StoreError(error.code, "cannot \(what): \(error.message)") }
        guard let error = error as? DatabaseError else { return StoreError(.failed, "cannot \(what): \(error)") }
        let code: Code =
            switch error.resultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED: .busy
            case .SQLITE_CORRUPT, .SQLITE_NOTADB: .corrupt
            case .SQLITE_FULL: .full
            case .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_CANTOPEN: .readOnly
            default: .failed
            }
        return StoreError(code, "cannot \(what): \(error)")
    }
}
