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

/// The readings (the `reading` table): storing a device's readings, each new one queued as pending for the callers
/// that asked for the device, and reading them back.
extension VitalStore {
    /// Stores `readings` of device `mac` in one transaction; readings the store already has are skipped. Returns
    /// the identifiers of all of them (new or already stored), one per reading, in order.
    ///
    /// A scale sends a weight and its body composition on two characteristics, one after the other, so a weight
    /// may come twice: a weight with a body composition completes a stored one of the same device, time and mass
    /// that has none (revised in place, and pending again for every caller that asked for the device), and a weight
    /// without one is the stored one that has it.
    @discardableResult
    public func storeReadings(_ readings: [LayeredReading], device mac: MACAddress) throws(StoreError) -> [Int64] {
        try file.write("store readings") { db in
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

    /// The identifier of `reading` of device `mac`, if the store has it.
    public func readingID(of reading: LayeredReading, device mac: MACAddress) throws(StoreError) -> Int64? {
        try file.query("find a reading") { db in
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
        try file.query("read readings") { db in
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
            return try file.database.read { db in
                var stream = try ReadingStream(db, device: mac, since: since, counting: true)
                return try body(&stream)
            }
        } catch let error as DatabaseError {
            throw StoreError.wrapping(error, "read readings")
        }
    }

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
}
