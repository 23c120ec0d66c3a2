import Foundation
internal import GRDB
import VitalCore

/// A device the hub has added or talked to.
public struct StoredDevice: Hashable, Sendable {
    public var mac: MACAddress
    public var model: DeviceModel
    public var serialNumber: String?
    public var firmwareRevision: String?
    /// The user profile an activity monitor is bound to.
    public var profile: ActivityProfile?
    /// When it was first stored.
    public var addedAt: Timestamp

    public init(
        mac: MACAddress, model: DeviceModel, serialNumber: String? = nil, firmwareRevision: String? = nil,
        profile: ActivityProfile? = nil, addedAt: Timestamp
    ) {
        self.mac = mac
        self.model = model
        self.serialNumber = serialNumber
        self.firmwareRevision = firmwareRevision
        self.profile = profile
        self.addedAt = addedAt
    }
}

/// The contents of a store as one connection saw them (``VitalStore/version()``): two versions are equal only if
/// no other connection committed and this one changed no row between the two reads.
public struct StoreVersion: Hashable, Sendable {
    /// SQLite's `data_version` of the connection: it moves when another connection (of this process or another)
    /// commits.
    let dataVersion: Int
    /// The rows the connection itself has changed since it opened (a change rolled back counts too).
    let ownChanges: Int
}

/// VitalBridge's store: devices, readings and the delivery journal, in SQLite through GRDB.
///
/// The file runs in WAL mode with `synchronous = FULL`, so a committed reading survives a crash or power loss, and
/// several processes may use it at once (a writer waits up to 10 seconds for another). Readings are kept in
/// canonical units, one typed column a field, and never stored twice: a reading with the same device, kind, time
/// and values is ignored.
///
/// The store is split by job, as GRDB's demo app splits its `AppDatabase`: the file (opening, locking, refusing a
/// foreign file, migrating) is `StoreFile`; each job is a small facade over it with a file of its own:
/// ``readings`` (``ReadingsStore``), ``journal`` (``DeliveryJournal``), ``people`` (``PeopleStore``), ``feed``
/// (``FeedStore``) and ``sinks`` (``SinksStore``); this type keeps the devices, the hub's identity and the
/// diagnostics. The store knows no device family: how readings a device sends in parts make one reading
/// (``ReadingMerge``), and how a day's reading is made from its items
/// (``ReadingsStore/storeDayItems(_:device:summarize:)``), are supplied by the driver side, and the store persists
/// what they make.
public final class VitalStore: Sendable {
    /// The file and its transactions.
    let file: StoreFile

    /// Opens (creating and migrating if needed) the store at `path`; with `readOnly`, opens an existing store to
    /// read it, upgrading it first if an older release wrote it (under the same lock and in the same transactions as
    /// a writing open: a process killed during the upgrade leaves each migration whole, and the next open finishes the
    /// rest). A store of an older
    /// release that this user cannot write fails with ``StoreError/Code/upgradeRefused``; one of a newer release,
    /// with ``StoreError/Code/schema``. A process that needs the store while another writes waits
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
        file = try StoreFile(path: path, readOnly: readOnly, busyTimeout: busyTimeout)
    }

    /// Throws ``StoreError/Code/schema`` if a newer release migrated the store since this process opened it (its
    /// migrations are counted, which each commit with its own changes): a long-running process (a follower, a
    /// service) asks before each round and stops. Every write transaction checks it too, so such a process never
    /// writes to a schema it does not know.
    public func checkSchema() throws(StoreError) {
        try file.query("read the store's schema") { db in try StoreFile.checkSchema(db) }
    }

    /// A store in memory, for tests.
    public init() throws(StoreError) {
        file = try StoreFile()
    }

    /// The schema version this release writes (`PRAGMA user_version` of an up-to-date store).
    public static var schemaVersion: Int { StoreSchema.version }

    /// The hub's identity: a random UUID (lowercase, `8-4-4-4-12` hex digits) made when the store was created or
    /// first opened by a VitalBridge that knows it, and never changed.
    public func hubID() throws(StoreError) -> String {
        try file.query("read the hub's identity") { db in try Self.hubID(db) }
    }

    // MARK: Devices

    /// Stores `device`, or updates it (serial, firmware, profile) if it is known; its first `addedAt` is kept.
    public func saveDevice(_ device: StoredDevice) throws(StoreError) {
        try file.write("save a device") { db in
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
        try file.query("list devices") { db in
            try Self.devices(db)
        }
    }

    /// What this store's contents are as its connection sees them: it differs after another connection's commit
    /// (this process's or another's) or a row this connection changed. A long-running process that keeps what it
    /// read (``devices()`` at each round of a service) reads the version first, then what it keeps, and reads them
    /// again only when the version differs.
    ///
    /// SQLite's `data_version` moves with the commits of other connections only; this connection's own changes are
    /// counted beside it.
    public func version() throws(StoreError) -> StoreVersion {
        try file.query("read the store's version") { db in
            guard let dataVersion = try Int.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) else {
                throw StoreError(.corrupt, "SQLite gave no data_version")
            }
            return StoreVersion(dataVersion: dataVersion, ownChanges: db.totalChangesCount)
        }
    }

    /// Every stored device, by MAC, read on `db`.
    static func devices(_ db: Database) throws -> [StoredDevice] {
        try Row.fetchAll(db, sql: "SELECT * FROM device ORDER BY mac").map(Self.device(from:))
    }

    /// The stored device `mac`, if any.
    public func device(_ mac: MACAddress) throws(StoreError) -> StoredDevice? {
        try file.query("read a device") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM device WHERE mac = ?", arguments: [mac.description]).map(
                Self.device(from:))
        }
    }

    /// The device of `row`; a row the store cannot read is an error naming it, never skipped.
    static func device(from row: Row) throws -> StoredDevice {
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
            addedAt: Timestamp(secondsSince1970: row["added_at"]))
    }

    // MARK: Diagnostics

    /// The result of `PRAGMA integrity_check`: `ok` for a sound file, else the problems SQLite found.
    public func integrityCheck() throws(StoreError) -> String {
        try file.query("check the file's integrity") { db in
            try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "\n")
        }
    }

    /// The value of `PRAGMA name` on the store's connection, for tests of its settings.
    func pragma(_ name: String) throws(StoreError) -> String? {
        try file.query("read PRAGMA \(name)") { db in try String.fetchOne(db, sql: "PRAGMA \(name)") }
    }
}
