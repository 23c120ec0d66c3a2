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
/// lock, and gives the jobs of ``VitalStore`` (readings, the delivery journal, day items) their transactions.
///
/// Its schema's migrations are named and never edited once shipped; each says what its tables hold.
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
                guard version == Self.migrator.migrations.count else {
                    throw StoreError(
                        .schema,
                        "its schema is \(version), not \(Self.migrator.migrations.count); open it to write once")
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
            try Self.migrate(database)
        } catch {
            throw StoreError.wrapping(error, "open the store at \(path)")
        }
    }

    /// A store in memory, for tests.
    init() throws(StoreError) {
        do {
            database = try DatabaseQueue()
            try Self.migrate(database)
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
            "pending", "day_item", "hub",
        ]
        guard tables.isSubset(of: ours) else {
            throw StoreError(.foreignFile, "the file is not a VitalBridge store (an SQLite file with other tables)")
        }
    }

    /// Runs the migrations a store lacks. The number of migrations applied is kept in `PRAGMA user_version` too,
    /// so that opening an up-to-date store costs one pragma rather than the migrator's queries.
    static func migrate(_ database: any DatabaseWriter) throws {
        let latest = migrator.migrations.count
        let version = try database.unsafeRead { db in try Int.fetchOne(db, sql: "PRAGMA user_version") } ?? 0
        guard version != latest else { return }
        guard version < latest else {
            throw StoreError(
                .schema, "it was written by a newer VitalBridge (schema \(version); this one knows \(latest))")
        }
        try migrator.migrate(database)
        try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA user_version = \(latest)") }
    }

    /// The schema version this release writes (`PRAGMA user_version` of an up-to-date store).
    static var schemaVersion: Int { migrator.migrations.count }

    /// The schema's migrations; a shipped migration is never edited, only followed by new ones.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: devices, readings, deliveries") { db in
            try db.execute(
                sql: """
                    CREATE TABLE device (
                        mac TEXT PRIMARY KEY NOT NULL,
                        model INTEGER NOT NULL,
                        serial TEXT,
                        firmware TEXT,
                        profile TEXT,
                        added_at INTEGER NOT NULL
                    );
                    CREATE TABLE reading (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        device_mac TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        measured_at INTEGER NOT NULL,
                        payload TEXT NOT NULL,
                        UNIQUE (device_mac, kind, measured_at, payload)
                    );
                    CREATE INDEX reading_by_device_time ON reading (device_mac, measured_at);
                    CREATE TABLE delivery (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        caller TEXT NOT NULL,
                        device_mac TEXT,
                        action INTEGER NOT NULL,
                        status INTEGER NOT NULL,
                        delivered_at INTEGER NOT NULL,
                        remaining INTEGER NOT NULL
                    );
                    CREATE TABLE delivery_reading (
                        delivery_id INTEGER NOT NULL REFERENCES delivery(id),
                        reading_id INTEGER NOT NULL REFERENCES reading(id),
                        caller TEXT NOT NULL,
                        PRIMARY KEY (delivery_id, reading_id)
                    );
                    CREATE INDEX delivered_by_caller ON delivery_reading (caller, reading_id);
                    """)
        }
        migrator.registerMigration("v2: reservations, application id") { db in
            try db.execute(
                sql: """
                    CREATE TABLE reservation (
                        caller TEXT NOT NULL,
                        reading_id INTEGER NOT NULL REFERENCES reading(id),
                        owner TEXT NOT NULL,
                        expires_at REAL NOT NULL,
                        PRIMARY KEY (caller, reading_id)
                    );
                    CREATE INDEX reservation_by_owner ON reservation (owner);
                    PRAGMA application_id = \(applicationID);
                    """)
        }
        migrator.registerMigration("v3: pending readings by caller") { db in
            // `pending` holds, for each caller that asked for a device (`pending_caller`), the device's readings not
            // yet delivered to it, in delivery order: a callback reads what it carries, not the history.
            try db.execute(
                sql: """
                    CREATE TABLE pending_caller (
                        device_mac TEXT NOT NULL,
                        caller TEXT NOT NULL,
                        PRIMARY KEY (device_mac, caller)
                    ) WITHOUT ROWID;
                    CREATE TABLE pending (
                        caller TEXT NOT NULL,
                        device_mac TEXT NOT NULL,
                        measured_at INTEGER NOT NULL,
                        reading_id INTEGER NOT NULL REFERENCES reading(id),
                        PRIMARY KEY (caller, device_mac, measured_at, reading_id)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v4: items of a day, revised readings") { db in
            // `day_item` keeps what a smartband pushed, item by item, as it came; a day's summary is a reading made
            // from them and revised in place (`revision`) when a new item changes it. A delivery journals the
            // revision it carried, so a revised day is pending again for callers that had the older one.
            try db.execute(
                sql: """
                    ALTER TABLE reading ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE reservation ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE delivery_reading ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
                    CREATE TABLE day_item (
                        device_mac TEXT NOT NULL,
                        day INTEGER NOT NULL,
                        kind INTEGER NOT NULL,
                        key INTEGER NOT NULL,
                        bytes BLOB NOT NULL,
                        PRIMARY KEY (device_mac, day, kind, key)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v5: the hub's identity") { db in
            // A random UUID made once per store: exports name the hub by it (FHIR `meta.source`) and scope their
            // identifiers to it, so that two hubs never claim each other's patients or readings.
            try db.execute(
                sql: "CREATE TABLE hub (id TEXT NOT NULL); INSERT INTO hub (id) VALUES (?)",
                arguments: [UUID().uuidString.lowercased()])
        }
        migrator.registerMigration("v6: readings in typed columns") { db in
            // A reading's values move from 0.14.0's `name=value;` text into one typed column per stored field
            // (`ReadingColumns`); the text's uniqueness constraint goes with it (a re-sent reading is recognized by
            // its values). Every row is converted keeping its identifier and revision, so deliveries, reservations
            // and the pending queue still name it; a row whose text cannot be read keeps it in `unconverted` and
            // reads as it did (an error naming the row), never dropped.
            try db.execute(
                sql: """
                    CREATE TABLE new_reading (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        device_mac TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        measured_at INTEGER NOT NULL,
                        revision INTEGER NOT NULL DEFAULT 0,
                        sys REAL, dia REAL, hr INTEGER, arr INTEGER,
                        mgdl REAL,
                        kg REAL, fat REAL, musclepct REAL, muscle REAL, ffm REAL, slm REAL, water REAL, bmr INTEGER,
                        imp REAL,
                        spo2 INTEGER, pi REAL,
                        c REAL,
                        steps INTEGER, cal INTEGER, sleep INTEGER, eff INTEGER, swim INTEGER, swimcal INTEGER,
                        dist INTEGER, deep INTEGER, light INTEGER, awake INTEGER,
                        hrmin INTEGER, hravg INTEGER, hrmax INTEGER, hrn INTEGER, sports TEXT,
                        rr TEXT,
                        unconverted TEXT
                    );
                    """)
            let columns = Set(try db.columns(in: "new_reading").map(\.name))
            let rows = try Row.fetchCursor(
                db, sql: "SELECT id, device_mac, kind, measured_at, revision, payload FROM reading ORDER BY id")
            while let row = try rows.next() {
                let kind: String = row[2]
                let time: Int64 = row[3]
                let payload: String = row[5]
                var names = ["id", "device_mac", "kind", "measured_at", "revision"]
                var values: [DatabaseValue] = [row[0], row[1], row[2], row[3], row[4]]
                if let reading = LegacyPayload.decode(
                    kind: kind, measuredAt: LayeredTimestamp(secondsSince1970: time), payload: payload)
                {
                    // only this migration's columns: a field added later has no value in a 0.14.0 row
                    for (field, value) in zip(reading.kind.storedFields, ReadingColumns.values(of: reading))
                    where columns.contains(field.name!) {
                        guard let value else { continue }
                        names.append(field.name!)
                        values.append(value.databaseValue)
                    }
                } else {
                    names.append("unconverted")
                    values.append(payload.databaseValue)
                }
                // a few statements (one per kind and set of values), each prepared once
                let marks = Array(repeating: "?", count: names.count).joined(separator: ", ")
                try db.cachedStatement(
                    sql: "INSERT INTO new_reading (\(names.joined(separator: ", "))) VALUES (\(marks))"
                ).execute(arguments: StatementArguments(values))
            }
            try db.execute(
                sql: """
                    DELETE FROM sqlite_sequence WHERE name = 'new_reading';
                    INSERT INTO sqlite_sequence (name, seq) SELECT 'new_reading', seq FROM sqlite_sequence
                    WHERE name = 'reading';
                    DROP TABLE reading;
                    ALTER TABLE new_reading RENAME TO reading;
                    CREATE INDEX reading_by_device_time ON reading (device_mac, measured_at);
                    """)
        }
        return migrator
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
