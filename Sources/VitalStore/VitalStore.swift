import Foundation
internal import GRDB
import VitalCore

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

/// Who holds a reservation of pending readings (``VitalStore/reservePending(device:caller:for:_:)``), for how long,
/// and how to tell that another owner is gone.
public struct ReservationOwner: Sendable {
    /// The owner's identifier, unique among the processes that share the store (a process id with its start time).
    public var owner: String
    /// How long a reservation lasts, in seconds: longer than any hand-off takes.
    public var lifetime: Double
    /// The time now, in seconds since 1970; reservations expire by it.
    public var clock: @Sendable () -> Double
    /// Whether the owner named by the argument is gone (its process ended): its reservations are returned to
    /// pending at once instead of at their expiry.
    public var isAbandoned: @Sendable (String) -> Bool

    public init(
        owner: String, lifetime: Double = 60,
        clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
        isAbandoned: @escaping @Sendable (String) -> Bool = { _ in false }
    ) {
        self.owner = owner
        self.lifetime = lifetime
        self.clock = clock
        self.isAbandoned = isAbandoned
    }

    /// The owner of request `number` of this owner: `<owner>#<number>`, with the same lifetime and clock.
    public func request(_ number: Int) -> ReservationOwner {
        ReservationOwner(owner: "\(owner)#\(number)", lifetime: lifetime, clock: clock, isAbandoned: isAbandoned)
    }
}

/// An item a device pushed for one day, kept as it came (a smartband's totals, sport, sleep segment or heart-rate
/// hour): what the day's summary reading is made from.
public struct DayItem: Hashable, Sendable {
    public var date: LayeredDate
    /// What the item is, by the device's own type code.
    public var kind: Int
    /// What tells the item from the day's others of its kind (a sport code, a start minute, an hour): an item with
    /// the date, kind and key of a stored one replaces it.
    public var key: Int
    /// The item as the device sent it.
    public var bytes: [UInt8]

    public init(date: LayeredDate, kind: Int, key: Int, bytes: [UInt8]) {
        self.date = date
        self.kind = kind
        self.key = key
        self.bytes = bytes
    }
}

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
        /// The store was written by a newer VitalBridge, or opened read-only before its migration.
        case schema
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

/// VitalBridge's store: devices, readings and the delivery journal, in SQLite through GRDB.
///
/// The file runs in WAL mode with `synchronous = FULL`, so a committed reading survives a crash or power loss, and
/// several processes may use it at once (a writer waits up to 10 seconds for another). Readings are kept in
/// canonical units and never stored twice: a reading with the same device, kind, time and values is ignored.
public final class VitalStore: Sendable {
    private let database: any DatabaseWriter

    /// Opens (creating and migrating if needed) the store at `path`; with `readOnly`, opens an existing,
    /// up-to-date store without writing anything to it. A process that needs the store while another writes waits
    /// up to `busyTimeout` seconds, then fails with ``StoreError/Code/busy``.
    ///
    /// One connection (a `DatabaseQueue`) serves the process: a `vitalbridge` process handles one request, and other
    /// processes share the file through SQLite's WAL locks. The journal mode and `synchronous = FULL` are set here
    /// rather than through GRDB's WAL set-up, which would lower `synchronous` to NORMAL and write a schema change
    /// into the file at every open. A file that is not a VitalBridge store is refused before anything is written to
    /// it.
    ///
    /// A process may end without releasing the store: every commit is already durable in the write-ahead log, which
    /// the next connection reads back. The log is checkpointed into the file every 100 pages.
    public init(path: String, readOnly: Bool = false, busyTimeout: Double = 10) throws(StoreError) {
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
    public init() throws(StoreError) {
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
    public static var schemaVersion: Int { migrator.migrations.count }

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
        return migrator
    }

    /// The hub's identity: a random UUID (lowercase, `8-4-4-4-12` hex digits) made when the store was created or
    /// first opened by a VitalBridge that knows it, and never changed.
    public func hubID() throws(StoreError) -> String {
        try query("read the hub's identity") { db in
            guard let id = try String.fetchOne(db, sql: "SELECT id FROM hub") else {
                throw StoreError(.corrupt, "the store has no hub identity")
            }
            return id
        }
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
            try Row.fetchAll(db, sql: "SELECT * FROM device ORDER BY mac").map(Self.device(from:))
        }
    }

    /// The stored device `mac`, if any.
    public func device(_ mac: MACAddress) throws(StoreError) -> StoredDevice? {
        try query("read a device") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM device WHERE mac = ?", arguments: [mac.description]).map(
                Self.device(from:))
        }
    }

    /// The device of `row`; a row the store cannot read is an error naming it, never skipped.
    private static func device(from row: Row) throws -> StoredDevice {
        let macText: String = row["mac"]
        guard let mac = MACAddress(macText), let model = DeviceModel(rawValue: row["model"]) else {
            throw StoreError(.corrupt, "the device row \(macText) has an unknown MAC or model")
        }
        let profile = try (row["profile"] as String?).map { text in
            guard let profile = ProfileCodec.decode(text) else {
                throw StoreError(.corrupt, "the device row \(macText) has an unreadable profile")
            }
            return profile
        }
        return StoredDevice(
            mac: mac, model: model, serialNumber: row["serial"], firmwareRevision: row["firmware"], profile: profile,
            addedAt: LayeredTimestamp(secondsSince1970: row["added_at"]))
    }

    // MARK: Readings

    /// Stores `readings` of device `mac` in one transaction; readings the store already has are skipped. Returns
    /// the identifiers of all of them (new or already stored), one per reading, in order.
    ///
    /// A scale sends a weight and its body composition on two characteristics, one after the other, so a weight
    /// may come twice: a weight with a body composition completes a stored one of the same device, time and mass
    /// that has none (revised in place, and pending again for every caller that asked for the device), and a weight
    /// without one is the stored one that has it.
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
            // a new reading is pending for every caller that has asked for this device
            let callers = try String.fetchAll(
                db.cachedStatement(sql: "SELECT caller FROM pending_caller WHERE device_mac = ?"),
                arguments: [macText])
            let queue = try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO pending (caller, device_mac, measured_at, reading_id) VALUES (?, ?, ?, ?)")
            for reading in readings {
                let (kind, payload) = ReadingCodec.encode(reading)
                let time = reading.measuredAt.secondsSince1970
                if case .weight(let weight) = reading,
                    let (id, revised) = try Self.completeWeight(weight, payload: payload, device: macText, in: db)
                {
                    ids.append(id)
                    if revised { for caller in callers { try queue.execute(arguments: [caller, macText, time, id]) } }
                    continue
                }
                let arguments: StatementArguments = [macText, kind, time, payload]
                try insert.execute(arguments: arguments)
                if db.changesCount > 0 {
                    let id = db.lastInsertedRowID
                    ids.append(id)
                    for caller in callers { try queue.execute(arguments: [caller, macText, time, id]) }
                } else if let id = try Int64.fetchOne(find, arguments: arguments) {
                    ids.append(id)
                } else {
                    throw StoreError(.corrupt, "a reading was neither stored nor found")
                }
            }
            return ids
        }
    }

    /// Revises reading `?2` to payload `?1`: pending again for the callers it was delivered to.
    static let reviseReading = "UPDATE reading SET payload = ?, revision = revision + 1 WHERE id = ?"

    /// The stored weight of device `mac` that `weight` completes (revised to `payload`) or is already part of:
    /// same time and mass, one with a body composition and the other without.
    private static func completeWeight(_ weight: WeightReading, payload: String, device mac: String, in db: Database)
        throws -> (id: Int64, revised: Bool)?
    {
        let find = try db.cachedStatement(
            sql: "SELECT id, payload FROM reading WHERE device_mac = ? AND kind = 'weight' AND measured_at = ?")
        for row in try Row.fetchAll(find, arguments: [mac, weight.measuredAt.secondsSince1970]) {
            guard
                case .weight(let stored)? = ReadingCodec.decode(
                    kind: "weight", measuredAt: weight.measuredAt, payload: row[1]),
                stored.kilograms == weight.kilograms
            else { continue }
            switch (stored.bodyComposition, weight.bodyComposition) {
            case (nil, .some):
                try db.cachedStatement(sql: reviseReading).execute(arguments: [payload, row[0]])
                return (row[0], true)
            case (.some, nil):
                return (row[0], false)
            default:
                continue
            }
        }
        return nil
    }

    /// Keeps `items` of device `mac` as they came and revises the summary of each day they change, in one
    /// transaction: what a smartband pushed is durable once this returns.
    ///
    /// An item with the date, kind and key of one stored replaces it (today's running totals, updated in place); an
    /// item stored already changes nothing. For each day whose items changed, `summarize` makes the day's reading
    /// from all its items, oldest kind and key first. A new day's reading is stored and pending for every caller
    /// that asked for the device; a day whose reading changed is revised in place and pending again for each of
    /// them, including those it was delivered to. `summarize`'s errors pass through as ``StoreError``s.
    ///
    /// - Returns: how many day readings were stored or revised.
    @discardableResult
    public func storeDayItems(
        _ items: [DayItem], device mac: MACAddress, summarize: (LayeredDate, [DayItem]) throws -> LayeredReading
    ) throws(StoreError) -> Int {
        try write("store a device's items") { db in
            let macText = mac.description
            let upsert = try db.cachedStatement(
                sql: """
                    INSERT INTO day_item (device_mac, day, kind, key, bytes) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (device_mac, day, kind, key) DO UPDATE SET bytes = excluded.bytes
                    WHERE bytes IS NOT excluded.bytes
                    """)
            var days: [LayeredDate] = []
            for item in items {
                try upsert.execute(
                    arguments: [macText, item.date.daysSince1970, item.kind, item.key, Data(item.bytes)])
                if db.changesCount > 0, !days.contains(item.date) { days.append(item.date) }
            }
            let dayItems = try db.cachedStatement(
                sql: "SELECT kind, key, bytes FROM day_item WHERE device_mac = ? AND day = ? ORDER BY kind, key")
            let find = try db.cachedStatement(
                sql: "SELECT id, payload FROM reading WHERE device_mac = ? AND kind = ? AND measured_at = ?")
            let insert = try db.cachedStatement(
                sql: "INSERT INTO reading (device_mac, kind, measured_at, payload) VALUES (?, ?, ?, ?)")
            let revise = try db.cachedStatement(sql: Self.reviseReading)
            let callers = try String.fetchAll(
                db.cachedStatement(sql: "SELECT caller FROM pending_caller WHERE device_mac = ?"),
                arguments: [macText])
            let queue = try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO pending (caller, device_mac, measured_at, reading_id) VALUES (?, ?, ?, ?)")
            var changed = 0
            for day in days {
                let stored = try Row.fetchAll(dayItems, arguments: [macText, day.daysSince1970]).map {
                    DayItem(date: day, kind: $0[0], key: $0[1], bytes: [UInt8]($0[2] as Data))
                }
                let reading = try summarize(day, stored)
                let (kind, payload) = ReadingCodec.encode(reading)
                let time = reading.measuredAt.secondsSince1970
                let id: Int64
                if let row = try Row.fetchOne(find, arguments: [macText, kind, time]) {
                    guard (row[1] as String) != payload else { continue }
                    id = row[0]
                    try revise.execute(arguments: [payload, id])
                } else {
                    try insert.execute(arguments: [macText, kind, time, payload])
                    id = db.lastInsertedRowID
                }
                for caller in callers { try queue.execute(arguments: [caller, macText, time, id]) }
                changed += 1
            }
            return changed
        }
    }

    /// The items device `mac` pushed, by day, then kind and key, from `since` on when given: what day summaries are
    /// made of (a smartband's heart-rate minutes), read from the file as it goes.
    public func forEachDayItem(device mac: MACAddress, since: LayeredDate? = nil, _ body: (DayItem) throws -> Void)
        throws(StoreError)
    {
        try query("read a device's items") { db in
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT day, kind, key, bytes FROM day_item WHERE device_mac = ? AND day >= ?
                    ORDER BY day, kind, key
                    """, arguments: [mac.description, since?.daysSince1970 ?? Int.min])
            while let row = try rows.next() {
                try body(
                    DayItem(
                        date: LayeredDate(daysSince1970: row[0]), kind: row[1], key: row[2],
                        bytes: [UInt8](row[3] as Data)))
            }
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
        var readings: [StoredReading] = []
        try forEachReading(device: mac, since: since) { readings.append($0) }
        return readings
    }

    /// Passes the stored readings to `body` one at a time, oldest first (of one device, from a time on, when
    /// given), reading them from the file as it goes: memory stays flat for any size of history. A row the store
    /// cannot read stops it with a ``StoreError/Code/corrupt`` error naming the row.
    public func forEachReading(
        device mac: MACAddress? = nil, since: LayeredTimestamp? = nil, _ body: (StoredReading) throws -> Void
    ) throws(StoreError) {
        try query("read readings") { db in
            var stream = try ReadingStream(db, device: mac, since: since, counting: false)
            while let reading = try stream.next() { try body(reading) }
        }
    }

    /// Runs `body` with the readings of device `mac` from `since` on, oldest first, as a stream with its count:
    /// what a callback re-sends when a caller asks again from a time (`since`), read only as far as it fits.
    ///
    /// A database error becomes a ``StoreError``; any other error `body` throws passes through.
    public func withReadings<T>(
        device mac: MACAddress, since: LayeredTimestamp, _ body: (inout ReadingStream) throws -> T
    ) throws -> T {
        do {
            // the count and the rows in one read transaction: under WAL another process's commit between the two
            // statements would otherwise be read but not counted
            return try database.read { db in
                var stream = try ReadingStream(db, device: mac, since: since, counting: true)
                return try body(&stream)
            }
        } catch let error as DatabaseError {
            throw StoreError.wrapping(error, "read readings")
        }
    }

    /// The readings of device `mac` not yet delivered to `caller` and not reserved for a delivery in progress,
    /// oldest first, from the delivery journal itself (for tests and tools; a callback reads the `pending` queue
    /// that ``reservePending(device:caller:for:_:)`` keeps, which must always agree with this).
    public func undeliveredReadings(device mac: MACAddress, caller: String) throws(StoreError) -> [StoredReading] {
        try query("read pending readings") { db in
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT \(Self.readingColumns) FROM reading WHERE device_mac = ?1
                        AND NOT \(Self.deliveredAsRevised)
                        AND id NOT IN (SELECT reading_id FROM reservation WHERE caller = ?2)
                    ORDER BY measured_at, id
                    """, arguments: [mac.description, caller])
            return try Array(rows.map(Self.reading(from:)))
        }
    }

    /// Whether caller `?2` was delivered the `reading` row as it is now (its current revision).
    static let deliveredAsRevised = """
        EXISTS (SELECT 1 FROM delivery_reading WHERE delivery_reading.caller = ?2
            AND delivery_reading.reading_id = reading.id AND delivery_reading.revision = reading.revision)
        """

    /// The columns ``reading(from:)`` reads, in its order (by position: faster than by name, row after row).
    static let readingColumns = "reading.id, reading.device_mac, reading.kind, reading.measured_at, reading.payload"

    /// The reading of `row` (the ``readingColumns``); a row the store cannot read is an error naming it, never
    /// skipped.
    static func reading(from row: Row) throws -> StoredReading {
        let id: Int64 = row[0]
        let macText: String = row[1]
        guard let mac = MACAddress(macText) else {
            throw StoreError(.corrupt, "reading \(id) has an unreadable device MAC")
        }
        guard
            let reading = ReadingCodec.decode(
                kind: row[2], measuredAt: LayeredTimestamp(secondsSince1970: row[3]), payload: row[4])
        else { throw StoreError(.corrupt, "reading \(id) of \(macText) cannot be read (kind or values unknown)") }
        return StoredReading(id: id, device: mac, reading: reading)
    }

    // MARK: Deliveries

    /// Reserves readings of device `mac` for a callback to `caller` that `reservation`'s owner is about to hand
    /// over, in one serialized step across processes: no two owners ever hold the same reading for one caller.
    ///
    /// In one write transaction it first returns to pending every reservation that expired or whose owner
    /// `reservation` says is gone, then passes the pending readings (oldest first) to `choose`, and reserves the
    /// identifiers `choose` returns with what it made of them. The owner then hands the callback over and calls
    /// ``recordDelivery(caller:device:action:status:at:readingIDs:remaining:owner:)``, or
    /// ``releaseReservations(owner:)`` if the hand-off failed. If the owner never comes back (it crashed), its
    /// readings are pending again once its reservation expires: a reading is delivered at least once.
    public func reservePending<T>(
        device mac: MACAddress, caller: String, for reservation: ReservationOwner,
        _ choose: (inout ReadingStream) throws -> (T, readingIDs: [Int64])
    ) throws -> T {
        try reservationWrite("reserve pending readings") { db in
            let now = reservation.clock()
            try db.execute(sql: "DELETE FROM reservation WHERE expires_at <= ?", arguments: [now])
            for owner in try String.fetchAll(db, sql: "SELECT DISTINCT owner FROM reservation")
            where owner != reservation.owner && reservation.isAbandoned(owner) {
                try db.execute(sql: "DELETE FROM reservation WHERE owner = ?", arguments: [owner])
            }
            try Self.queuePending(db, device: mac, caller: caller)
            var pending = try ReadingStream(db, pendingFor: caller, device: mac)
            let (result, ids) = try choose(&pending)
            try Self.insertReservations(ids, caller: caller, for: reservation, at: now, db)
            return result
        }
    }

    /// Makes `caller` one of the callers device `mac` keeps a `pending` queue for, the first time it asks: the
    /// queue starts with every reading of the device the journal has not delivered to it.
    private static func queuePending(_ db: Database, device mac: MACAddress, caller: String) throws {
        try db.execute(
            sql: "INSERT OR IGNORE INTO pending_caller (device_mac, caller) VALUES (?, ?)",
            arguments: [mac.description, caller])
        guard db.changesCount > 0 else { return }
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO pending (caller, device_mac, measured_at, reading_id)
                SELECT ?2, device_mac, measured_at, id FROM reading WHERE device_mac = ?1
                    AND NOT \(Self.deliveredAsRevised)
                """, arguments: [mac.description, caller])
    }

    /// Reserves the readings `ids` for `caller` as `reservation`'s owner, taking them over from any other owner:
    /// for a live reading, reserved by the request that measured it as soon as it is stored.
    public func reserve(_ ids: [Int64], caller: String, for reservation: ReservationOwner) throws(StoreError) {
        do {
            try reservationWrite("reserve readings") { db in
                try Self.insertReservations(ids, caller: caller, for: reservation, at: reservation.clock(), db)
            }
        } catch {
            throw StoreError.wrapping(error, "reserve readings")
        }
    }

    /// Runs `body` in one IMMEDIATE transaction, committed with `synchronous = NORMAL`, then restores FULL.
    ///
    /// IMMEDIATE: the write lock is taken before anything is read, so that no other process can choose the same
    /// readings between the read and the reservation. NORMAL: a reservation need not survive a power cut (lost, its
    /// readings are simply pending again), so its commit skips the flush a reading's commit needs; in WAL mode the
    /// commits stay atomic and in order, and the next FULL commit flushes them with its own. A database error
    /// becomes a ``StoreError`` saying `what` failed; any other error `body` throws passes through.
    private func reservationWrite<T>(_ what: String, _ body: (Database) throws -> T) throws -> T {
        do {
            return try database.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                var result: T?
                do {
                    try db.inTransaction(.immediate) {
                        result = try body(db)
                        return .commit
                    }
                } catch {
                    try db.execute(sql: "PRAGMA synchronous = FULL")
                    throw error
                }
                try db.execute(sql: "PRAGMA synchronous = FULL")
                return result!
            }
        } catch let error as DatabaseError {
            throw StoreError.wrapping(error, what)
        }
    }

    private static func insertReservations(
        _ ids: [Int64], caller: String, for reservation: ReservationOwner, at now: Double, _ db: Database
    ) throws {
        // a reservation holds the revision it carries: if the reading is revised meanwhile, it stays pending
        let insert = try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO reservation (caller, reading_id, owner, expires_at, revision)
                VALUES (?1, ?2, ?3, ?4, (SELECT revision FROM reading WHERE id = ?2))
                """)
        for id in ids { try insert.execute(arguments: [caller, id, reservation.owner, now + reservation.lifetime]) }
    }

    /// Returns the readings `owner` reserved to pending (its hand-off failed).
    public func releaseReservations(owner: String) throws(StoreError) {
        try write("release reserved readings") { db in
            try db.execute(sql: "DELETE FROM reservation WHERE owner = ?", arguments: [owner])
        }
    }

    /// The readings reserved for deliveries in progress, as (caller, reading id, owner), for tests and tools.
    public func reservations() throws(StoreError) -> [(caller: String, readingID: Int64, owner: String)] {
        try query("read reservations") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM reservation ORDER BY caller, reading_id").map {
                (caller: $0["caller"], readingID: $0["reading_id"], owner: $0["owner"])
            }
        }
    }

    /// Journals a callback that was handed over: who it went to, when, with which readings and status. The
    /// reservations of `owner`, if given, end in the same transaction.
    @discardableResult
    public func recordDelivery(
        caller: String, device: MACAddress?, action: Int, status: Int, at time: LayeredTimestamp, readingIDs: [Int64],
        remaining: Int, owner: String? = nil
    ) throws(StoreError) -> Int64 {
        try write("journal a delivery") { db in
            try db.execute(
                sql: """
                    INSERT INTO delivery (caller, device_mac, action, status, delivered_at, remaining)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [caller, device?.description, action, status, time.secondsSince1970, remaining])
            let id = db.lastInsertedRowID
            // the revision delivered is the one reserved, else the reading's current one
            let revision = try db.cachedStatement(
                sql: """
                    SELECT coalesce(
                        (SELECT revision FROM reservation WHERE caller = ?1 AND reading_id = ?2 AND owner = ?3),
                        (SELECT revision FROM reading WHERE id = ?2), 0)
                    """)
            let item = try db.cachedStatement(
                sql: """
                    INSERT OR IGNORE INTO delivery_reading (delivery_id, reading_id, caller, revision)
                    VALUES (?, ?, ?, ?)
                    """)
            let delivered = try db.cachedStatement(sql: Self.deliveredFromPending)
            for readingID in readingIDs {
                let delivering = try Int64.fetchOne(revision, arguments: [caller, readingID, owner]) ?? 0
                try item.execute(arguments: [id, readingID, caller, delivering])
                try delivered.execute(arguments: [caller, readingID, delivering])
            }
            if let owner { try db.execute(sql: "DELETE FROM reservation WHERE owner = ?", arguments: [owner]) }
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
                    let device = try (row["device_mac"] as String?).map { text in
                        guard let mac = MACAddress(text) else {
                            throw StoreError(.corrupt, "delivery \(id) names an unreadable device MAC")
                        }
                        return mac
                    }
                    journal.append(
                        Delivery(
                            id: id, caller: row["caller"], device: device, action: row["action"],
                            status: row["status"], deliveredAt: LayeredTimestamp(secondsSince1970: row["delivered_at"]),
                            readingIDs: [], remaining: row["remaining"]))
                }
                if let readingID: Int64 = row["reading_id"] { journal[journal.count - 1].readingIDs.append(readingID) }
            }
            return journal
        }
    }

    /// Removes reading `?2` from the pending queue of caller `?1`, if revision `?3` delivered is its current one.
    static let deliveredFromPending = """
        DELETE FROM pending WHERE caller = ?1
            AND (device_mac, measured_at, reading_id) = (
                SELECT device_mac, measured_at, id FROM reading WHERE id = ?2 AND revision = ?3)
        """

    /// SQLite's plans for the queries a callback runs on the pending queue (count, selection, removal of a
    /// delivered reading), for tests that they use indexes.
    func explainPendingQueries(device mac: MACAddress, caller: String) throws -> [String] {
        try database.unsafeRead { db in
            let arguments: StatementArguments = [caller, mac.description]
            return try [ReadingStream.pendingCount, ReadingStream.pendingReadings, Self.deliveredFromPending].map {
                sql in
                let details = try Row.fetchAll(
                    db, sql: "EXPLAIN QUERY PLAN " + sql,
                    arguments: sql == Self.deliveredFromPending ? [caller, 1, 0] : arguments)
                return details.map { $0["detail"] as String }.joined(separator: "; ")
            }
        }
    }

    // MARK: Access

    /// The result of `PRAGMA integrity_check`: `ok` for a sound file, else the problems SQLite found.
    public func integrityCheck() throws(StoreError) -> String {
        try query("check the file's integrity") { db in
            try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "\n")
        }
    }

    /// The value of `PRAGMA name` on the store's connection, for tests of its settings.
    func pragma(_ name: String) throws(StoreError) -> String? {
        try query("read PRAGMA \(name)") { db in try String.fetchOne(db, sql: "PRAGMA \(name)") }
    }

    private func write<T>(_ what: String, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try database.write(body)
        } catch {
            throw StoreError.wrapping(error, what)
        }
    }

    /// Runs `body`, which reads with one statement (every read of the store does): SQLite runs it as a read
    /// transaction of its own, so it needs neither GRDB's transaction nor its read-only guard (four statements more
    /// per read).
    private func query<T>(_ what: String, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try database.unsafeRead(body)
        } catch {
            throw StoreError.wrapping(error, what)
        }
    }
}

/// Readings read from the store one at a time, oldest first (by time, then by identifier), with how many there are
/// in all: a callback takes from it only what fits. Valid only inside the store call that handed it over.
public struct ReadingStream {
    /// How many readings the stream holds in all.
    public let count: Int
    private let rows: RowCursor

    /// The readings of device `mac` (all devices when `nil`) from `since` on; counted only when `counting`.
    init(_ db: Database, device mac: MACAddress?, since: LayeredTimestamp?, counting: Bool) throws {
        var conditions = "1"
        var arguments: StatementArguments = []
        if let mac {
            conditions += " AND device_mac = ?"
            arguments += [mac.description]
        }
        if let since {
            conditions += " AND measured_at >= ?"
            arguments += [since.secondsSince1970]
        }
        count =
            counting
            ? try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM reading WHERE \(conditions)", arguments: arguments) ?? 0
            : 0
        rows = try Row.fetchCursor(
            db, sql: "SELECT \(VitalStore.readingColumns) FROM reading WHERE \(conditions) ORDER BY measured_at, id",
            arguments: arguments)
    }

    /// The readings of device `mac` pending for `caller` and not reserved, from its `pending` queue.
    init(_ db: Database, pendingFor caller: String, device mac: MACAddress) throws {
        let arguments: StatementArguments = [caller, mac.description]
        count = try Int.fetchOne(db, sql: Self.pendingCount, arguments: arguments) ?? 0
        rows = try Row.fetchCursor(db, sql: Self.pendingReadings, arguments: arguments)
    }

    /// The pending rows of caller `?1` for device `?2` that no delivery in progress holds.
    private static let unreserved = """
        pending.caller = ?1 AND pending.device_mac = ?2 AND NOT EXISTS (
            SELECT 1 FROM reservation WHERE reservation.caller = ?1 AND reservation.reading_id = pending.reading_id)
        """
    static let pendingCount = "SELECT COUNT(*) FROM pending WHERE \(unreserved)"
    static let pendingReadings = """
        SELECT \(VitalStore.readingColumns) FROM pending JOIN reading ON reading.id = pending.reading_id
        WHERE \(unreserved)
        ORDER BY pending.measured_at, pending.reading_id
        """

    /// The next reading; `nil` after the last. A row the store cannot read is a ``StoreError`` naming it.
    public mutating func next() throws -> StoredReading? {
        guard let row = try rows.next() else { return nil }
        return try VitalStore.reading(from: row)
    }
}
