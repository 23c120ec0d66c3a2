import Foundation
internal import GRDB
import VitalCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The store's file, as GRDB's demo app has its `AppDatabase`: it opens the file (WAL, `synchronous = FULL`),
/// refuses a file that is not a VitalBridge store before writing to it, migrates a new or older store under a file
/// lock (`StoreSchema`), and gives the jobs of ``VitalStore`` (readings, the delivery journal, day items) their
/// transactions.
struct StoreFile: Sendable {
    let database: any DatabaseWriter

    /// Opens (creating and migrating if needed) the store at `path`, or with `readOnly` an existing, up-to-date one
    /// without writing to it: ``VitalStore/init(path:readOnly:busyTimeout:)`` says how.
    init(path: String, readOnly: Bool, busyTimeout: Double) throws(StoreError) {
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.journalMode = .default
        configuration.readonly = readOnly
        configuration.prepareDatabase { db in
            // Nothing is written to a file that is not ours: this check comes before the first write (WAL mode).
            try Self.checkOwnership(db)
            guard !readOnly else { return }
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            guard mode == "wal" else {
                throw StoreError(.failed, "the file refuses WAL mode (journal mode \(mode ?? "none"))")
            }
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // A process that ends without closing the store leaves its log for the next one to read back at open;
            // checkpointing past 100 pages (SQLite's default is 1,000) keeps that read short.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 100")
        }
        if readOnly {
            do {
                database = try DatabaseQueue(path: path, configuration: configuration)
                let version = try database.unsafeRead { db in try Int.fetchOne(db, sql: "PRAGMA user_version") } ?? 0
                guard version == StoreSchema.version else {
                    throw StoreError(
                        .schema,
                        "its schema is \(version), not \(StoreSchema.version); open it to write once")
                }
            } catch {
                throw StoreError.wrapping(error, "open the store at \(path)")
            }
            return
        }
        // Two processes opening a new store at once would both find it unmigrated: migrate under a file lock.
        let lock = open(path + ".lock", O_CREAT | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard lock >= 0 else {
            throw StoreError(
                errno == EACCES || errno == EROFS ? .readOnly : .failed,
                "cannot open the store at \(path): cannot open its lock file: \(String(cString: strerror(errno)))")
        }
        defer { close(lock) }
        flock(lock, LOCK_EX)
        defer { flock(lock, LOCK_UN) }
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
            try StoreSchema.migrate(database)
        } catch {
            throw StoreError.wrapping(error, "open the store at \(path)")
        }
    }

    /// A store in memory, for tests.
    init() throws(StoreError) {
        do {
            database = try DatabaseQueue()
            try StoreSchema.migrate(database)
        } catch {
            throw StoreError.wrapping(error, "create an in-memory store")
        }
    }

    /// The `PRAGMA application_id` of a VitalBridge store ("VBRG").
    static let applicationID: Int32 = 0x5642_5247

    /// Throws unless the connection's file is a VitalBridge store, a store of a VitalBridge from before the
    /// application id, one whose creation a crash interrupted (some of its tables only), or an empty database;
    /// reads only.
    static func checkOwnership(_ db: Database) throws {
        let id = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
        if id == applicationID { return }
        guard id == 0 else {
            throw StoreError(
                .foreignFile, "the file is not a VitalBridge store (an SQLite file of another application)")
        }
        // the migrations table is made before the first migration's transaction: a process killed in between
        // leaves it alone
        let tables = Set(
            try String.fetchAll(
                db,
                sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"))
        let ours: Set = [
            "grdb_migrations", "device", "reading", "delivery", "delivery_reading", "reservation", "pending_caller",
            "pending", "day_item", "hub", "person", "assignment", "caller_person", "feed", "sink",
        ]
        guard tables.isSubset(of: ours) else {
            throw StoreError(.foreignFile, "the file is not a VitalBridge store (an SQLite file with other tables)")
        }
    }

    // MARK: Transactions

    /// Runs `body` in one write transaction; any error rolls it back and becomes a ``StoreError`` saying `what`
    /// failed.
    func write<T>(_ what: String, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try database.writeWithoutTransaction { db in try Self.transaction(db, body) }
        } catch {
            throw StoreError.wrapping(error, what)
        }
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction of `db` (writers queue at its start and never fail half-way
    /// on a lock), rolled back if anything throws.
    ///
    /// Its `BEGIN` and `COMMIT` are prepared once per connection. GRDB's `write` parses and prepares both anew each
    /// time, which cost a device that pushes its readings (one transaction a reading) 15 % of its instructions: a
    /// BP5's sync of 20,000 records counted 3,420 M under callgrind, 2,922 M with this.
    static func transaction<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        try db.cachedStatement(sql: "BEGIN IMMEDIATE").execute()
        do {
            let result = try body(db)
            try db.cachedStatement(sql: "COMMIT").execute()
            return result
        } catch {
            // SQLite may have rolled back already (a full disk, an I/O error)
            if db.isInsideTransaction { try? db.rollback() }
            throw error
        }
    }

    /// Runs `body`, which reads with one statement: SQLite runs it as a read transaction of its own, so it needs
    /// neither GRDB's transaction nor its read-only guard (four statements more per read). A read that answers one
    /// question with more than one statement uses ``snapshot(_:_:)``.
    func query<T>(_ what: String, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try database.unsafeRead(body)
        } catch {
            throw StoreError.wrapping(error, what)
        }
    }

    /// Runs `body`, which reads with several statements to answer one question, in one read transaction: under WAL
    /// every statement sees the same snapshot, so a commit of another process between two of them is seen by none.
    /// Any error becomes a ``StoreError`` saying `what` failed.
    func snapshot<T>(_ what: String, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try database.read(body)
        } catch {
            throw StoreError.wrapping(error, what)
        }
    }
}
