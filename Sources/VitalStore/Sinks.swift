internal import GRDB
import VitalCore

/// A destination the change feed is pushed to (`vitalbridge sink add`), as the home keeps it.
public struct SinkRecord: Hashable, Sendable {
    /// The name the user gave it: 1–32 letters, digits, `-` or `_`, beginning with a letter or digit.
    public var name: String
    /// Where it is, as a URL without secrets.
    public var address: String
    /// The file its password is read from when pushing, if the user named one: the password itself is never kept.
    public var passwordFile: String?
    public var addedAt: Timestamp
    /// The feed's sequence the destination said it had committed at the last push: what it had then.
    public var position: Int64
    /// When a push last brought the destination everything queued for it.
    public var lastSuccess: Timestamp?
    /// Why the last push that failed failed, and when; kept after a later success, which ``lastSuccess`` then
    /// follows.
    public var lastError: String?
    public var lastErrorAt: Timestamp?

    public init(
        name: String, address: String, passwordFile: String? = nil, addedAt: Timestamp, position: Int64 = 0,
        lastSuccess: Timestamp? = nil, lastError: String? = nil, lastErrorAt: Timestamp? = nil
    ) {
        self.name = name
        self.address = address
        self.passwordFile = passwordFile
        self.addedAt = addedAt
        self.position = position
        self.lastSuccess = lastSuccess
        self.lastError = lastError
        self.lastErrorAt = lastErrorAt
    }
}

/// The sinks (the `sink` table) and what they are sent.
///
/// A sink's queue is the change feed after its position: every change is queued for every sink by the very row the
/// transaction that makes it writes into the feed, so nothing a sink must receive can be committed without being
/// queued, and a sink added to a home with a history receives all of it. The position moves only after the
/// destination committed a batch; the destination keeps its own position too, which is the truth a push starts
/// from.
extension SinksStore {
    /// Adds `sink`.
    ///
    /// - Throws: ``StoreError`` when its name is not 1–32 letters, digits, `-` or `_` beginning with a letter or a
    ///   digit, or is a sink's already.
    public func add(_ sink: SinkRecord) throws(StoreError) {
        try Self.checkSinkName(sink.name)
        try file.write("add a sink") { db in
            try db.execute(
                sql: """
                    INSERT INTO sink (name, address, password_file, added_at, position) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (name) DO NOTHING
                    """,
                arguments: [
                    sink.name, sink.address, sink.passwordFile, sink.addedAt.secondsSince1970, sink.position,
                ])
            guard db.changesCount > 0 else {
                throw StoreError(.failed, "the home has a sink named \(sink.name) already (vitalbridge sink list)")
            }
        }
    }

    /// Removes the sink named `name`; what it has received stays where it is.
    public func remove(named name: String) throws(StoreError) {
        try file.write("remove a sink") { db in
            try db.execute(sql: "DELETE FROM sink WHERE name = ?", arguments: [name])
            guard db.changesCount > 0 else { throw Self.noSink(name) }
        }
    }

    /// The home's sinks, by name.
    public func all() throws(StoreError) -> [SinkRecord] {
        try file.query("list the sinks") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM sink ORDER BY name").map(Self.sink(from:))
        }
    }

    /// The sink named `name`.
    ///
    /// - Throws: ``StoreError`` when the home has none of that name.
    public func named(_ name: String) throws(StoreError) -> SinkRecord {
        try file.query("read a sink") { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM sink WHERE name = ?", arguments: [name]) else {
                throw Self.noSink(name)
            }
            return Self.sink(from: row)
        }
    }

    /// How many readings have a change after `position` in the feed: what a sink at that position has queued.
    public func queuedChanges(after position: Int64) throws(StoreError) -> Int {
        try file.query("count queued changes") { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM feed WHERE seq > ?", arguments: [position]) ?? 0
        }
    }

    /// The next batch for a destination at `position` of this hub's feed: the hub's devices and people and at most
    /// `limit` changes after `position`, read in one transaction; its `changes` are empty when the
    /// destination has everything. The batch also has the latest reading of each (owner, kind) `latest` asks for
    /// (`ChangeBatch.latest`).
    public func changeBatch(after position: Int64, limit: Int, latest: LatestScope = .none) throws(StoreError)
        -> ChangeBatch
    {
        try file.snapshot("read a sink's batch") { db in
            var changes: [ReadingChange] = []
            try VitalStore.forEachChange(after: position, limit: limit, db) { changes.append($0) }
            let devices = try VitalStore.devices(db).map {
                ChangeBatch.Device(
                    mac: $0.mac, model: $0.model, serialNumber: $0.serialNumber, firmwareRevision: $0.firmwareRevision)
            }
            let through = changes.last?.sequence ?? position
            return ChangeBatch(
                hubID: try VitalStore.hubID(db), devices: devices,
                people: try String.fetchAll(db, sql: "SELECT name FROM person ORDER BY name"), changes: changes,
                through: through,
                latest: try VitalStore.latestReadings(latest, after: position, through: through, db))
        }
    }

    /// Records that sink `name`'s destination committed the feed up to `position`, at `time`.
    public func recordPush(named name: String, position: Int64, at time: Timestamp) throws(StoreError) {
        try file.write("record a sink's push") { db in
            try db.execute(
                sql: "UPDATE sink SET position = ?, last_success_at = ? WHERE name = ?",
                arguments: [position, time.secondsSince1970, name])
            guard db.changesCount > 0 else { throw Self.noSink(name) }
        }
    }

    /// Records that a push to sink `name` failed at `time`, for `message` (which must hold no secret).
    public func recordFailure(named name: String, message: String, at time: Timestamp) throws(StoreError) {
        try file.write("record a sink's failure") { db in
            try db.execute(
                sql: "UPDATE sink SET last_error = ?, last_error_at = ? WHERE name = ?",
                arguments: [message, time.secondsSince1970, name])
            guard db.changesCount > 0 else { throw Self.noSink(name) }
        }
    }
}

extension SinksStore {
    private static func sink(from row: Row) -> SinkRecord {
        SinkRecord(
            name: row["name"], address: row["address"], passwordFile: row["password_file"],
            addedAt: Timestamp(secondsSince1970: row["added_at"]), position: row["position"],
            lastSuccess: (row["last_success_at"] as Int64?).map(Timestamp.init(secondsSince1970:)),
            lastError: row["last_error"],
            lastErrorAt: (row["last_error_at"] as Int64?).map(Timestamp.init(secondsSince1970:)))
    }

    private static func noSink(_ name: String) -> StoreError {
        StoreError(.failed, "the home has no sink named \(name) (vitalbridge sink list)")
    }

    private static func checkSinkName(_ name: String) throws(StoreError) {
        let bytes = Array(name.utf8)
        func allowed(_ byte: UInt8) -> Bool {
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
        guard (1...32).contains(bytes.count), bytes.allSatisfy(allowed), bytes[0] != UInt8(ascii: "-"),
            bytes[0] != UInt8(ascii: "_")
        else {
            throw StoreError(
                .failed,
                "a sink's name is 1–32 letters, digits, - or _, beginning with a letter or digit: \(name.debugDescription) is not"
            )
        }
    }
}
