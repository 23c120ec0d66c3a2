import Foundation
internal import GRDB
internal import GRDBSQLite
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

    /// Opens (creating and migrating if needed) the store at `path`, or with `readOnly` an existing one to read,
    /// upgraded first if an older release wrote it: ``VitalStore/init(path:readOnly:busyTimeout:)`` says how.
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
            database = try Self.openToRead(path, configuration, busyTimeout: busyTimeout)
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
            // a newer release killed between its last migration and its schema number left the number this one's
            try Self.settle(database)
        } catch {
            throw StoreError.wrapping(error, "open the store at \(path)")
        }
    }

    /// Opens the store at `path` to read: as it is when this release wrote it; upgraded first, by a writing open,
    /// when an older one did (refused as ``StoreError/Code/upgradeRefused`` when this user cannot write it); refused
    /// when a newer one did.
    private static func openToRead(_ path: String, _ configuration: Configuration, busyTimeout: Double)
        throws(StoreError) -> DatabaseQueue
    {
        let latest = StoreSchema.version
        let version: Int
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            let found = try queue.unsafeRead { db in try Int.fetchOne(db, sql: "PRAGMA user_version") } ?? 0
            if found == latest {
                // the number is written after a release's last migration: a newer release killed before it left
                // its migrations, which the check counts
                try settle(queue)
                return queue
            }
            version = found
        } catch {
            let failure = StoreError.wrapping(error, "open the store at \(path)")
            // a store in WAL mode is read with its shared-memory file, which a user who cannot write the folder
            // cannot make: the file's header still says whether the store needs an upgrade first
            guard failure.code == .readOnly, let header = headerSchemaVersion(path), header < latest else {
                throw failure
            }
            version = header
        }
        guard version < latest else {
            throw StoreError(
                .schema,
                "cannot open the store at \(path): it was written by a newer VitalBridge (schema \(version); this one "
                    + "knows \(latest))")
        }
        // an older release's store is upgraded once, as a writing open does (whose errors name the store)
        do {
            _ = try StoreFile(path: path, readOnly: false, busyTimeout: busyTimeout)
        } catch {
            guard error.code == .readOnly else { throw error }
            throw StoreError(
                .upgradeRefused,
                "cannot open the store at \(path): its schema is \(version), older than this release's \(latest), "
                    + "and this user cannot write it to upgrade it")
        }
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try settle(queue)
            return queue
        } catch {
            throw StoreError.wrapping(error, "open the store at \(path)")
        }
    }

    /// The schema version the file's header holds (`PRAGMA user_version`, bytes 60–63), read as bytes: what a user
    /// who cannot open the store still learns of it. `nil` for a file that is not an SQLite database.
    private static func headerSchemaVersion(_ path: String) -> Int? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var header = [UInt8](repeating: 0, count: 64)
        guard pread(descriptor, &header, header.count, 0) == header.count,
            header.starts(with: Array("SQLite format 3\0".utf8))
        else { return nil }
        return header[60..<64].reduce(0) { $0 << 8 | Int($1) }
    }

    /// Throws unless the store's migrations are this release's: a newer release may upgrade the store while a
    /// process of this one runs (a `sink follow`, a service), which then stops rather than write to a schema it does
    /// not know. It counts the migrations applied, committed each with its own changes, not the schema number
    /// (`PRAGMA user_version`), which a release writes after its last migration.
    static func checkSchema(_ db: Database) throws {
        // through SQLite's C API: every write transaction asks, and GRDB's fetchOne around SQLite's work cost a
        // pushed reading about 6,000 instructions (3 %; Benchmarks/README.md, "A pushed record, 2026-12-01")
        let count = try DirectStatement.run(db.cachedStatement(sql: "SELECT count(*) FROM grdb_migrations"))
        let applied = Int(count.first ?? 0)
        guard applied == StoreSchema.version else {
            throw StoreError(
                .schema,
                "its schema changed under this process: \(applied) migrations, where this release knows "
                    + "\(StoreSchema.version) (a newer VitalBridge upgraded it); this process writes nothing more")
        }
    }

    /// The last step of opening a store, once it is migrated: checks its schema (``checkSchema(_:)``) and removes
    /// GRDB's authorizer from the connection (``removeAuthorizer(_:)``).
    private static func settle(_ connection: any DatabaseReader) throws {
        try connection.unsafeRead { db in
            try checkSchema(db)
            removeAuthorizer(db)
        }
    }

    /// Removes the authorizer GRDB gives every connection, once the schema is migrated and checked.
    ///
    /// SQLite calls an authorizer for each table and column a statement names while it prepares it. GRDB's records,
    /// for each statement, the columns it reads (a set of case-insensitive names for each one) for its observation
    /// of changes; whether it alters the schema, so that GRDB forgets its cached schema; and whether it begins or
    /// ends a transaction or a savepoint, or sets `PRAGMA query_only`, which GRDB's observers and its cancellation
    /// of async accesses use. The store observes nothing, reads no schema through GRDB, alters its schema only in
    /// its migrations (which run before this, with the authorizer in place), uses no savepoints and reaches its
    /// connection only synchronously, so nothing is cancelled in the middle of a transaction. Without it, preparing
    /// a statement costs what SQLite's own work does: GRDB's records were 1.67 M of the 12.7 M instructions of a
    /// measurement `open` (13 %, callgrind; Benchmarks/README.md, "GRDB's authorizer removed").
    /// The statements prepared before stay usable: SQLite keeps them, or, in older releases, prepares them again
    /// when they next run.
    static func removeAuthorizer(_ db: Database) {
        assert(!db.isInsideTransaction, "the authorizer is removed between transactions")
        sqlite3_set_authorizer(db.sqliteConnection, nil, nil)
    }

    /// A store in memory, for tests.
    init() throws(StoreError) {
        do {
            database = try DatabaseQueue()
            try StoreSchema.migrate(database)
            try Self.settle(database)
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
    /// A store whose schema changed since it was opened (``checkSchema(_:)``) is not written.
    static func transaction<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        try db.cachedStatement(sql: "BEGIN IMMEDIATE").execute()
        do {
            try checkSchema(db)
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
