import Foundation
internal import GRDB
import VitalCore

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

/// How readings a device sends in parts are one reading: device-family knowledge, which the store does not have.
///
/// The driver side supplies it (VitalDevices' `RecordMerging`, passed by the engine's sink), and the store applies
/// it to what it holds: for a new reading that ``mayMerge`` accepts, the store reads its stored readings of the
/// same device, kind and time, oldest first, and asks ``merged`` what the new reading and each of them are
/// together. `nil`: two readings, ask the next. The stored reading: the new one is part of it; the store keeps it
/// unchanged and answers its identifier. Any other reading: the two are one, and the stored row is revised in
/// place to it (its `revision` grows, so it is pending again for every caller that asked for the device, including
/// those it was delivered to). A new reading that is part of no stored one is stored as it is.
///
/// So the store only persists readings it is given or ``merged`` makes; the rule (a scale's weight completed by its
/// body composition) lives with the family. A merged reading keeps the stored one's kind and time.
public struct ReadingMerge: Sendable {
    /// Whether `reading` may be one with a stored reading: only these are looked up, so that storing other readings
    /// costs no query more.
    public var mayMerge: @Sendable (_ reading: LayeredReading) -> Bool
    /// The one reading that `new` and `stored` (of one device, kind and time) are, or `nil` when they are two.
    public var merged: @Sendable (_ new: LayeredReading, _ stored: LayeredReading) -> LayeredReading?

    public init(
        mayMerge: @escaping @Sendable (_ reading: LayeredReading) -> Bool,
        merged: @escaping @Sendable (_ new: LayeredReading, _ stored: LayeredReading) -> LayeredReading?
    ) {
        self.mayMerge = mayMerge
        self.merged = merged
    }

    /// No reading is part of another: only a reading the store has already (same device, kind, time and values) is
    /// not stored again.
    public static let none = ReadingMerge(mayMerge: { _ in false }, merged: { _, _ in nil })
}

/// The readings (the `reading` table): storing a device's readings, each new one queued as pending for the callers
/// that asked for the device, and reading them back.
extension VitalStore {
    /// Stores `readings` of device `mac` in one transaction; readings the store already has are skipped. Returns
    /// the identifiers of all of them (new or already stored), one per reading, in order.
    ///
    /// A reading that `merging` makes one with a stored reading is that reading: the stored one, or revised in place
    /// to what the two make (``ReadingMerge``).
    @discardableResult
    public func storeReadings(_ readings: [LayeredReading], device mac: MACAddress, merging: ReadingMerge = .none)
        throws(StoreError) -> [Int64]
    {
        try file.write("store readings") { db in
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
                let time = reading.measuredAt.secondsSince1970
                let stored = try Self.stored(reading.kind, at: time, device: macText, in: db)
                if let same = stored.first(where: { $0.reading == reading }) {
                    ids.append(same.id)
                    continue
                }
                let id: Int64
                if merging.mayMerge(reading),
                    let (storedID, revised) = try Self.merge(reading, into: stored, merging, db)
                {
                    ids.append(storedID)
                    guard revised else { continue }
                    id = storedID
                } else {
                    id = try Self.insert(reading, device: macText, in: db)
                    ids.append(id)
                }
                for caller in callers { try queue.execute(arguments: [caller, macText, time, id]) }
            }
            return ids
        }
    }

    /// The stored readings of device `mac` of `kind` at `time` (seconds since 1970), oldest first. A row the store
    /// cannot read is left out: it is no match for a new reading (reading it back fails, naming it).
    static func stored(_ kind: ReadingKind, at time: Int64, device mac: String, in db: Database) throws
        -> [(id: Int64, reading: LayeredReading)]
    {
        let find = try db.cachedStatement(
            sql: """
                SELECT \(ReadingColumns.selected) FROM reading
                WHERE device_mac = ? AND measured_at = ? AND kind = ? ORDER BY id
                """)
        let rows = try Row.fetchCursor(find, arguments: [mac, time, kind.rawValue])
        var stored: [(id: Int64, reading: LayeredReading)] = []
        while let row = try rows.next() {
            if let reading = try? reading(from: row) { stored.append((reading.id, reading.reading)) }
        }
        return stored
    }

    /// Stores `reading` of device `mac` as a new row; returns its identifier.
    static func insert(_ reading: LayeredReading, device mac: String, in db: Database) throws -> Int64 {
        let kind = reading.kind
        try db.cachedStatement(sql: ReadingColumns.inserts[kind]!).execute(
            arguments: StatementArguments(
                [mac.databaseValue, kind.rawValue.databaseValue, reading.measuredAt.secondsSince1970.databaseValue]
                    + ReadingColumns.values(of: reading)))
        return db.lastInsertedRowID
    }

    /// Revises stored reading `id` to `reading` (of its kind and time): pending again for the callers it was
    /// delivered to.
    static func revise(_ id: Int64, to reading: LayeredReading, in db: Database) throws {
        try db.cachedStatement(sql: ReadingColumns.revisions[reading.kind]!).execute(
            arguments: StatementArguments(ReadingColumns.values(of: reading) + [id.databaseValue]))
    }

    /// The stored reading (one of `stored`: of one device, kind and time) that `merging` makes `reading` one with:
    /// unchanged when `reading` is part of it, else revised to what the two make.
    private static func merge(
        _ reading: LayeredReading, into stored: [(id: Int64, reading: LayeredReading)], _ merging: ReadingMerge,
        _ db: Database
    ) throws -> (id: Int64, revised: Bool)? {
        for (id, storedReading) in stored {
            guard let merged = merging.merged(reading, storedReading) else { continue }
            guard merged != storedReading else { return (id, false) }
            guard merged.kind == reading.kind, merged.measuredAt == reading.measuredAt else {
                throw StoreError(.failed, "a merged reading must keep the kind and time of the readings it merges")
            }
            try revise(id, to: merged, in: db)
            return (id, true)
        }
        return nil
    }

    /// The identifier of `reading` of device `mac`, if the store has it.
    public func readingID(of reading: LayeredReading, device mac: MACAddress) throws(StoreError) -> Int64? {
        try file.query("find a reading") { db in
            try Self.stored(
                reading.kind, at: reading.measuredAt.secondsSince1970, device: mac.description, in: db
            ).first { $0.reading == reading }?.id
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
        try file.query("read readings") { db in
            var stream = try ReadingStream(db, device: mac, since: since, counting: false)
            while let reading = try stream.next() { try body(reading) }
        }
    }

    /// Passes the stored devices to `devices`, then the stored readings (of one device, from a time on, when given) to
    /// `body` one at a time, oldest first, all read in one read transaction: what one export shows is one state of
    /// the store, so every reading's device is among the devices even while another process adds both. Memory stays
    /// flat for any size of history; neither closure may use the store.
    ///
    /// A database error, or a row the store cannot read, becomes a ``StoreError``; any other error the closures
    /// throw passes through.
    public func forEachReading(
        device mac: MACAddress? = nil, since: LayeredTimestamp? = nil, devices: ([StoredDevice]) throws -> Void,
        _ body: (StoredReading) throws -> Void
    ) throws {
        do {
            try file.database.read { db in
                try devices(Self.devices(db))
                var stream = try ReadingStream(db, device: mac, since: since, counting: false)
                while let reading = try stream.next() { try body(reading) }
            }
        } catch let error as DatabaseError {
            throw StoreError.wrapping(error, "read devices and readings")
        } catch let error as StoreError {
            throw StoreError.wrapping(error, "read devices and readings")
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
            return try file.database.read { db in
                var stream = try ReadingStream(db, device: mac, since: since, counting: true)
                return try body(&stream)
            }
        } catch let error as DatabaseError {
            throw StoreError.wrapping(error, "read readings")
        }
    }

    /// The reading of `row` (``ReadingColumns/selected``); a row the store cannot read is an error naming it, never
    /// skipped.
    static func reading(from row: Row) throws -> StoredReading {
        let id: Int64 = row[0]
        let macText: String = row[1]
        guard let mac = MACAddress(macText) else {
            throw StoreError(.corrupt, "reading \(id) has an unreadable device MAC")
        }
        guard
            let reading = ReadingColumns.reading(
                kind: row[2], measuredAt: LayeredTimestamp(secondsSince1970: row[3]), row: row, from: 4)
        else { throw StoreError(.corrupt, "reading \(id) of \(macText) cannot be read (kind or values unknown)") }
        return StoredReading(id: id, device: mac, reading: reading)
    }
}
