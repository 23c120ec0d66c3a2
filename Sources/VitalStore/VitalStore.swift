import Foundation
internal import GRDB
import LayeredProtocol

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A device the hub has added or talked to.
public struct StoredDevice: Hashable, Sendable {
    public var mac: MACAddress
    public var model: DeviceModel
    public var serialNumber: String?
    public var firmwareRevision: String?
    /// The user profile an activity monitor is bound to.
    public var profile: ActivityProfile?
    /// When it was first stored.
    public var addedAt: LayeredTimestamp

    public init(
        mac: MACAddress, model: DeviceModel, serialNumber: String? = nil, firmwareRevision: String? = nil,
        profile: ActivityProfile? = nil, addedAt: LayeredTimestamp
    ) {
        self.mac = mac
        self.model = model
        self.serialNumber = serialNumber
        self.firmwareRevision = firmwareRevision
        self.profile = profile
        self.addedAt = addedAt
    }
}

/// A reading in the store.
public struct StoredReading: Hashable, Sendable {
    /// The store's identifier, increasing in the order readings were stored.
    public var id: Int64
    public var device: MACAddress
    public var reading: LayeredReading

    public init(id: Int64, device: MACAddress, reading: LayeredReading) {
        self.id = id
        self.device = device
        self.reading = reading
    }
}

/// One callback the hub sent, as the journal keeps it.
public struct Delivery: Hashable, Sendable {
    public var id: Int64
    public var caller: String
    public var device: MACAddress?
    public var action: Int
    public var status: Int
    public var deliveredAt: LayeredTimestamp
    /// The readings the callback carried.
    public var readingIDs: [Int64]
    /// Readings left pending because they did not fit.
    public var remaining: Int
}

/// Why the store failed; the description never contains a health value.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// VitalBridge's store: devices, readings and the delivery journal, in SQLite through GRDB.
///
/// The file runs in WAL mode with `synchronous = FULL`, so a committed reading survives a crash or power loss, and
/// several processes may use it at once (a writer waits up to 10 seconds for another). Readings are kept in
/// canonical units and never stored twice: a reading with the same device, kind, time and values is ignored.
public final class VitalStore: Sendable {
    private let database: any DatabaseWriter

    /// Opens (creating and migrating if needed) the store at `path`.
    ///
    /// One connection (a `DatabaseQueue`) serves the process: a `vitalbridge` process handles one request, and other
    /// processes share the file through SQLite's WAL locks. The journal mode and `synchronous = FULL` are set here
    /// rather than through GRDB's WAL set-up, which would lower `synchronous` to NORMAL and write a schema change
    /// into the file at every open.
    ///
    /// A process may end without releasing the store: every commit is already durable in the write-ahead log, which
    /// the next connection reads back. The log is checkpointed into the file every 100 pages.
    public init(path: String) throws(StoreError) {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.journalMode = .default
        configuration.prepareDatabase { db in
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            guard mode == "wal" else { throw StoreError("the file refuses WAL mode (journal mode \(mode ?? "none"))") }
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // A process that ends without closing the store leaves its log for the next one to read back at open;
            // checkpointing past 100 pages (SQLite's default is 1,000) keeps that read short.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 100")
        }
        // Two processes opening a new store at once would both find it unmigrated: migrate under a file lock.
        let lock = open(path + ".lock", O_CREAT | O_RDWR, 0o644)
        guard lock >= 0 else { throw StoreError("cannot open the store at \(path): cannot create its lock file") }
        defer { close(lock) }
        flock(lock, LOCK_EX)
        defer { flock(lock, LOCK_UN) }
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
            try Self.migrate(database)
        } catch {
            throw StoreError("cannot open the store at \(path): \(error)")
        }
    }

    /// A store in memory, for tests.
    public init() throws(StoreError) {
        do {
            database = try DatabaseQueue()
            try Self.migrate(database)
        } catch {
            throw StoreError("cannot create an in-memory store: \(error)")
        }
    }

    /// Runs the migrations a store lacks. The number of migrations applied is kept in `PRAGMA user_version` too,
    /// so that opening an up-to-date store costs one pragma rather than the migrator's queries.
    static func migrate(_ database: any DatabaseWriter) throws {
        let latest = migrator.migrations.count
        let version = try database.unsafeRead { db in try Int.fetchOne(db, sql: "PRAGMA user_version") } ?? 0
        guard version != latest else { return }
        guard version < latest else {
            throw StoreError("it was written by a newer VitalBridge (schema \(version); this one knows \(latest))")
        }
        try migrator.migrate(database)
        try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA user_version = \(latest)") }
    }

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
        return migrator
    }

    // MARK: Devices

    /// Stores `device`, or updates it (serial, firmware, profile) if it is known; its first `addedAt` is kept.
    public func saveDevice(_ device: StoredDevice) throws(StoreError) {
        try write("save a device") { db in
            try db.execute(
                sql: """
                    INSERT INTO device (mac, model, serial, firmware, profile, added_at) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (mac) DO UPDATE SET model = excluded.model,
                        serial = coalesce(excluded.serial, serial), firmware = coalesce(excluded.firmware, firmware),
                        profile = coalesce(excluded.profile, profile)
                    """,
                arguments: [
                    device.mac.description, device.model.rawValue, device.serialNumber, device.firmwareRevision,
                    device.profile.map(ProfileCodec.encode), device.addedAt.secondsSince1970,
                ])
        }
    }

    /// Every stored device, by MAC.
    public func devices() throws(StoreError) -> [StoredDevice] {
        try query("list devices") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM device ORDER BY mac").compactMap(Self.device(from:))
        }
    }

    /// The stored device `mac`, if any.
    public func device(_ mac: MACAddress) throws(StoreError) -> StoredDevice? {
        try query("read a device") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM device WHERE mac = ?", arguments: [mac.description]).flatMap(
                Self.device(from:))
        }
    }

    private static func device(from row: Row) -> StoredDevice? {
        guard let mac = MACAddress(row["mac"] as String), let model = DeviceModel(rawValue: row["model"]) else {
            return nil
        }
        return StoredDevice(
            mac: mac, model: model, serialNumber: row["serial"], firmwareRevision: row["firmware"],
            profile: (row["profile"] as String?).flatMap(ProfileCodec.decode),
            addedAt: LayeredTimestamp(secondsSince1970: row["added_at"]))
    }

    // MARK: Readings

    /// Stores `readings` of device `mac` in one transaction; readings the store already has are skipped. Returns
    /// the identifiers of all of them (new or already stored), one per reading, in order.
    @discardableResult
    public func storeReadings(_ readings: [LayeredReading], device mac: MACAddress) throws(StoreError) -> [Int64] {
        try write("store readings") { db in
            let insert = try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO reading (device_mac, kind, measured_at, payload) VALUES (?, ?, ?, ?)")
            let find = try db.cachedStatement(
                sql: "SELECT id FROM reading WHERE device_mac = ? AND kind = ? AND measured_at = ? AND payload = ?")
            var ids: [Int64] = []
            ids.reserveCapacity(readings.count)
            let macText = mac.description
            for reading in readings {
                let (kind, payload) = ReadingCodec.encode(reading)
                let arguments: StatementArguments = [macText, kind, reading.measuredAt.secondsSince1970, payload]
                try insert.execute(arguments: arguments)
                if db.changesCount > 0 {
                    ids.append(db.lastInsertedRowID)
                } else if let id = try Int64.fetchOne(find, arguments: arguments) {
                    ids.append(id)
                } else {
                    throw StoreError("a reading was neither stored nor found")
                }
            }
            return ids
        }
    }

    /// The identifier of `reading` of device `mac`, if the store has it.
    public func readingID(of reading: LayeredReading, device mac: MACAddress) throws(StoreError) -> Int64? {
        try query("find a reading") { db in
            let (kind, payload) = ReadingCodec.encode(reading)
            return try Int64.fetchOne(
                db, sql: "SELECT id FROM reading WHERE device_mac = ? AND kind = ? AND measured_at = ? AND payload = ?",
                arguments: [mac.description, kind, reading.measuredAt.secondsSince1970, payload])
        }
    }

    /// The stored readings, oldest first: of one device, from a time on, when given.
    public func readings(device mac: MACAddress? = nil, since: LayeredTimestamp? = nil) throws(StoreError)
        -> [StoredReading]
    {
        try query("read readings") { db in
            var sql = "SELECT * FROM reading WHERE 1"
            var arguments: StatementArguments = []
            if let mac {
                sql += " AND device_mac = ?"
                arguments += [mac.description]
            }
            if let since {
                sql += " AND measured_at >= ?"
                arguments += [since.secondsSince1970]
            }
            sql += " ORDER BY measured_at, id"
            return try Row.fetchAll(db, sql: sql, arguments: arguments).compactMap(Self.reading(from:))
        }
    }

    /// The readings of device `mac` not yet delivered to `caller`, oldest first.
    public func undeliveredReadings(device mac: MACAddress, caller: String) throws(StoreError) -> [StoredReading] {
        try query("read pending readings") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM reading WHERE device_mac = ? AND id NOT IN
                        (SELECT reading_id FROM delivery_reading WHERE caller = ?)
                    ORDER BY measured_at, id
                    """, arguments: [mac.description, caller]
            ).compactMap(Self.reading(from:))
        }
    }

    private static func reading(from row: Row) -> StoredReading? {
        guard let mac = MACAddress(row["device_mac"] as String),
            let reading = ReadingCodec.decode(
                kind: row["kind"], measuredAt: LayeredTimestamp(secondsSince1970: row["measured_at"]),
                payload: row["payload"])
        else { return nil }
        return StoredReading(id: row["id"], device: mac, reading: reading)
    }

    // MARK: Deliveries

    /// Journals a callback: who it went to, when, with which readings and status.
    @discardableResult
    public func recordDelivery(
        caller: String, device: MACAddress?, action: Int, status: Int, at time: LayeredTimestamp, readingIDs: [Int64],
        remaining: Int
    ) throws(StoreError) -> Int64 {
        try write("journal a delivery") { db in
            try db.execute(
                sql: """
                    INSERT INTO delivery (caller, device_mac, action, status, delivered_at, remaining)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [caller, device?.description, action, status, time.secondsSince1970, remaining])
            let id = db.lastInsertedRowID
            let item = try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO delivery_reading (delivery_id, reading_id, caller) VALUES (?, ?, ?)")
            for readingID in readingIDs { try item.execute(arguments: [id, readingID, caller]) }
            return id
        }
    }

    /// The journal, oldest first.
    public func deliveries() throws(StoreError) -> [Delivery] {
        try query("read the journal") { db in
            // one row per delivered reading (or one with a NULL reading), a delivery's rows together
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT delivery.*, delivery_reading.reading_id FROM delivery
                    LEFT JOIN delivery_reading ON delivery_reading.delivery_id = delivery.id
                    ORDER BY delivery.id, delivery_reading.reading_id
                    """)
            var journal: [Delivery] = []
            while let row = try rows.next() {
                let id: Int64 = row["id"]
                if journal.last?.id != id {
                    journal.append(
                        Delivery(
                            id: id, caller: row["caller"],
                            device: (row["device_mac"] as String?).flatMap { MACAddress($0) }, action: row["action"],
                            status: row["status"], deliveredAt: LayeredTimestamp(secondsSince1970: row["delivered_at"]),
                            readingIDs: [], remaining: row["remaining"]))
                }
                if let readingID: Int64 = row["reading_id"] { journal[journal.count - 1].readingIDs.append(readingID) }
            }
            return journal
        }
    }

    // MARK: Access

    /// The value of `PRAGMA name` on the store's connection, for tests of its settings.
    func pragma(_ name: String) throws(StoreError) -> String? {
        try query("read PRAGMA \(name)") { db in try String.fetchOne(db, sql: "PRAGMA \(name)") }
    }

    private func write<T>(_ what: String, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try database.write(body)
        } catch {
            throw StoreError("cannot \(what): \(error)")
        }
    }

    /// Runs `body`, which reads with one statement (every read of the store does): SQLite runs it as a read
    /// transaction of its own, so it needs neither GRDB's transaction nor its read-only guard (four statements more
    /// per read).
    private func query<T>(_ what: String, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try database.unsafeRead(body)
        } catch {
            throw StoreError("cannot \(what): \(error)")
        }
    }
}
