import Foundation
internal import GRDB
import VitalCore

/// How readings a device sends in parts are one reading: device-family knowledge, which the store does not have.
///
/// The driver side supplies it (VitalDevices' `RecordMerging`, passed by the engine's sink), and the store applies
/// it to what it holds: for a new reading that ``mayMerge`` accepts, the store reads its stored readings of the
/// same device, kind and time, oldest first, then those whose device gave the same time a second or two away (the
/// record stored by a session that read the device's clock a second apart) or at that device time (stored by a
/// session that could not read the clock), the new reading dated as each is, and
/// asks ``merged`` what the new reading and each of them are together. `nil`: two readings, ask the next. The stored
/// reading: the new one is part of it; the store keeps it unchanged and answers its identifier. Any other reading:
/// the two are one, and the stored row is revised in place to it, at its own time (its `revision` grows, so it is
/// pending again for every caller that asked for the device, including those it was delivered to). A new reading
/// that is part of no stored one is stored as it is.
///
/// So the store only persists readings it is given or ``merged`` makes; the rule (a scale's weight completed by its
/// body composition) lives with the family. A merged reading keeps the stored one's kind and time.
public struct ReadingMerge: Sendable {
    /// Whether `reading` may be one with a stored reading: only these are looked up, so that storing other readings
    /// costs no query more.
    public var mayMerge: @Sendable (_ reading: Reading) -> Bool
    /// The one reading that `new` and `stored` (of one device, kind and time) are, or `nil` when they are two.
    public var merged: @Sendable (_ new: Reading, _ stored: Reading) -> Reading?

    public init(
        mayMerge: @escaping @Sendable (_ reading: Reading) -> Bool,
        merged: @escaping @Sendable (_ new: Reading, _ stored: Reading) -> Reading?
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
extension ReadingsStore {
    /// Stores `readings` of device `mac` in one transaction; readings the store already has are skipped. Returns
    /// the identifiers of all of them (new or already stored), one per reading, in order.
    ///
    /// A reading that `merging` makes one with a stored reading is that reading: the stored one, or revised in place
    /// to what the two make (``ReadingMerge``).
    @discardableResult
    public func store(_ readings: [Reading], device mac: MACAddress, merging: ReadingMerge = .none)
        throws(StoreError) -> [Int64]
    {
        try file.write("store readings") { db in
            var ids: [Int64] = []
            ids.reserveCapacity(readings.count)
            let macText = mac.description
            var writer = ReadingWriter(db, device: macText)
            try writer.lookUp(readings)
            for reading in readings {
                let stored = try writer.stored(reading.kind, at: reading.measuredAt)
                if let same = stored.first(where: { ReadingWriter.isSame(reading, as: $0.reading) }) {
                    ids.append(same.id)
                    continue
                }
                // the record stored from an earlier session that corrected its time a second or two apart
                let resent = try writer.resent(reading)
                if let same = resent.first(where: { $0.stored.reading == $0.reading }) {
                    ids.append(same.stored.id)
                } else if merging.mayMerge(reading),
                    let (id, time, revised) = try VitalStore.merge(
                        [(reading, stored)] + resent.map { ($0.reading, [$0.stored]) }, merging, &writer)
                {
                    ids.append(id)
                    if revised { try writer.queue(id, at: time, attributed: reading.annotations.userIndex != nil) }
                } else {
                    let id = try writer.insert(reading)
                    ids.append(id)
                    try writer.queue(id, at: reading.measuredAt, attributed: reading.annotations.userIndex != nil)
                }
            }
            return ids
        }
    }

    /// The identifier of `reading` of device `mac`, if the store has it.
    public func id(of reading: Reading, device mac: MACAddress) throws(StoreError) -> Int64? {
        try file.query("find a reading") { db in
            var writer = ReadingWriter(db, device: mac.description)
            return try writer.stored(reading.kind, at: reading.measuredAt).first { $0.reading == reading }?.id
        }
    }

    /// The stored readings, oldest first: of one device, from a time on, when given.
    public func all(device mac: MACAddress? = nil, since: Timestamp? = nil) throws(StoreError)
        -> [StoredReading]
    {
        var readings: [StoredReading] = []
        try forEach(device: mac, since: since) { readings.append($0) }
        return readings
    }

    /// Passes the stored readings to `body` one at a time, oldest first (of one device, from a time on, of
    /// `selection`, when given), reading them from the file as it goes: memory stays flat for any size of history.
    /// A row the store cannot read stops it with a ``StoreError/Code/corrupt`` error naming the row.
    public func forEach(
        device mac: MACAddress? = nil, since: Timestamp? = nil, selection: ReadingSelection = .all,
        _ body: (StoredReading) throws -> Void
    ) throws(StoreError) {
        try file.query("read readings") { db in
            var stream = try ReadingStream(db, device: mac, since: since, selection: selection, counting: false)
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
    public func forEach(
        device mac: MACAddress? = nil, since: Timestamp? = nil, selection: ReadingSelection = .all,
        devices: ([StoredDevice]) throws -> Void, _ body: (StoredReading) throws -> Void
    ) throws {
        do {
            try file.database.read { db in
                try devices(VitalStore.devices(db))
                var stream = try ReadingStream(db, device: mac, since: since, selection: selection, counting: false)
                while let reading = try stream.next() { try body(reading) }
            }
        } catch let error as DatabaseError {
            throw StoreError.wrapping(error, "read devices and readings")
        } catch let error as StoreError {
            throw StoreError.wrapping(error, "read devices and readings")
        }
    }

    /// Runs `body` with the readings of device `mac` from `since` on that may be delivered to `caller` (not in
    /// quarantine, not another person's), oldest first, as a stream with its count: what a callback re-sends when
    /// a caller asks again from a time (`since`), read only as far as it fits.
    ///
    /// A database error becomes a ``StoreError``; any other error `body` throws passes through.
    public func withDeliverable<T>(
        device mac: MACAddress, since: Timestamp, caller: String, _ body: (inout ReadingStream) throws -> T
    ) throws -> T {
        do {
            // the count and the rows in one read transaction: under WAL another process's commit between the two
            // statements would otherwise be read but not counted
            return try file.database.read { db in
                var stream = try ReadingStream(db, device: mac, since: since, caller: caller, counting: true)
                return try body(&stream)
            }
        } catch let error as DatabaseError {
            throw StoreError.wrapping(error, "read readings")
        }
    }
}

extension VitalStore {
    /// The stored reading that `merging` makes a new reading one with, and its time: unchanged when the new reading
    /// is part of it, else revised to what the two make. Each place is the new reading at a time with the stored
    /// readings (of its device and kind) at that time: its own, then those of the record an earlier session dated
    /// otherwise, the new reading dated as it is (``ReadingWriter/resent(_:)``).
    fileprivate static func merge(
        _ places: [(reading: Reading, stored: [ReadingWriter.Stored])], _ merging: ReadingMerge,
        _ writer: inout ReadingWriter
    ) throws -> (id: Int64, time: Timestamp, revised: Bool)? {
        for (reading, stored) in places {
            for (id, storedReading, deleted) in stored {
                guard let merged = merging.merged(reading, storedReading) else { continue }
                // a reading the user deleted stays as it was: the part is absorbed, nothing is revised or re-queued
                guard merged != storedReading, !deleted else { return (id, reading.measuredAt, false) }
                guard merged.kind == reading.kind, merged.measuredAt == reading.measuredAt else {
                    throw StoreError(.failed, "a merged reading must keep the kind and time of the readings it merges")
                }
                try writer.revise(id, to: merged)
                return (id, reading.measuredAt, true)
            }
        }
        return nil
    }

    /// The reading of `row`, whose columns from `start` are ``ReadingColumns/selected``; a row the store cannot read
    /// is an error naming it, never skipped.
    static func reading(from row: Row, at start: Int = 0) throws -> StoredReading {
        let id: Int64 = row[start]
        let macText: String = row[start + 1]
        guard let mac = MACAddress(macText) else {
            throw StoreError(.corrupt, "reading \(id) has an unreadable device MAC")
        }
        guard
            let reading = ReadingColumns.reading(
                kind: row[start + 2], measuredAt: Timestamp(secondsSince1970: row[start + 3]), row: row,
                from: start + 4)
        else { throw StoreError(.corrupt, "reading \(id) of \(macText) cannot be read (kind or values unknown)") }
        return StoredReading(id: id, device: mac, reading: reading)
    }
}

/// What stores one device's readings in a write transaction, its statements prepared once for all of them: finding
/// the stored readings of a kind and time, inserting, revising, and queueing a reading as pending for every caller
/// that asked for the device.
struct ReadingWriter {
    private let db: Database
    private let device: String
    /// `device` as the value bound to the statements (``DirectStatement``).
    private let deviceValue: DatabaseValue
    /// The statement of ``stored(_:at:)``, taken from the connection's statement cache when it first runs: a
    /// reading with nothing stored at its time or the seconds around it (``lookUp(_:)`` says so) never needs it.
    private var find: Statement?
    /// The insert of the kind (by ordinal) last inserted, taken from the connection's statement cache: a batch is
    /// mostly of one kind, and a writer lives for one transaction, one reading long when a device pushes them.
    private var insert: (ordinal: Int, statement: Statement)?
    private var publishing: Statement?
    private var queueing: Statement?
    /// The callers that asked for the device, read once a transaction for queueing readings attributed to a user.
    private var callers: [String]?
    /// The times (seconds since 1970) ``lookUp(_:)`` found the device has readings at, with those inserted since;
    /// `nil`: not looked up, every time may have one.
    private var occupied: Set<Int64>?

    init(_ db: Database, device: String) {
        self.db = db
        self.device = device
        deviceValue = device.databaseValue
    }

    /// The stored readings of the device of `kind` at `time`, oldest first. A row the store cannot read is left out:
    /// it is no match for a new reading (reading it back fails, naming it).
    mutating func stored(_ kind: ReadingKind, at time: Timestamp) throws -> [Stored] {
        if let occupied, !occupied.contains(time.secondsSince1970) { return [] }
        let find =
            try find
            ?? db.cachedStatement(
                sql: "SELECT id FROM reading WHERE device_mac = ? AND measured_at = ? AND kind = ? ORDER BY id")
        self.find = find
        let ids = try DirectStatement.run(
            find, deviceValue, time.secondsSince1970.databaseValue, kind.rawValue.databaseValue)
        guard !ids.isEmpty else { return [] }
        let row = try db.cachedStatement(
            sql: "SELECT \(ReadingColumns.selected), deleted_at IS NOT NULL FROM reading WHERE id = ?")
        return try ids.compactMap { id in
            guard let row = try Row.fetchOne(row, arguments: [id]),
                let stored = try? VitalStore.reading(from: row)
            else { return nil }
            return (id, stored.reading, row[ReadingColumns.selectedCount] as Bool)
        }
    }

    /// A stored reading of the device: its identifier, the reading, and whether the user deleted it (a deleted
    /// reading is still recognized when its device sends it again, and never revised).
    typealias Stored = (id: Int64, reading: Reading, deleted: Bool)

    /// How far, in seconds, a reading's corrected time may move when its device sends it again in a later session:
    /// the offset of the device's clock is read to the second, so one record corrected in two sessions may be a
    /// second apart (two, with a second's drift of the clock between them).
    static let resentWindow: Int64 = 2

    /// The stored readings that may be `reading`, sent again by its device in a later session that dated it
    /// otherwise: those of the device and kind whose device gave the same time, within `resentWindow` of `reading`'s
    /// corrected time (not at it: a session that read the device's clock a second or two apart), or, marked
    /// `timeUnverified`, at that device time itself when it is further away (a session that could not read the clock
    /// stored the time as the device gave it). Each comes with `reading` dated as it is (``dated(_:like:)``).
    /// `reading` is one of them when it then equals it, or is part of it (``ReadingMerge``). The time a device gave
    /// is a reading's `annotations.deviceTime`, or its time itself when the session corrected nothing (an offset of
    /// 0, or none read), so a record corrected in one session and not in the other is found too.
    ///
    /// Not found, and stored again: a record stored corrected by more than `resentWindow` and sent again by a session
    /// that corrects it otherwise (reads no offset, an offset of 0, or one more than `resentWindow` apart: the device's
    /// clock was set between the two). This is deliberate: a device's time stamps repeat once its clock is set back
    /// (as the hub sets a clock that runs ahead) or restarts, so a new measurement may carry a stored reading's time
    /// stamp and values. Taken for it, the new one would be lost; stored again, a re-sent record is a duplicate.
    mutating func resent(_ reading: Reading) throws -> [(reading: Reading, stored: Stored)] {
        let time = reading.measuredAt.secondsSince1970
        let given = Self.givenTime(of: reading)
        var places: [(time: Int64, unverifiedOnly: Bool)] = []
        for delta in 1...Self.resentWindow { places += [(time - delta, false), (time + delta, false)] }
        if abs(given.secondsSince1970 - time) > Self.resentWindow { places.append((given.secondsSince1970, true)) }
        var found: [(reading: Reading, stored: Stored)] = []
        for place in places {
            for stored in try stored(reading.kind, at: Timestamp(secondsSince1970: place.time))
            where Self.givenTime(of: stored.reading) == given
                && (!place.unverifiedOnly || stored.reading.annotations.status.contains(.timeUnverified))
            {
                let dated = Self.dated(reading, like: stored.reading)
                found.append((dated, stored))
                // the reading itself: the other places are not looked at
                if dated == stored.reading { return found }
            }
        }
        return found
    }

    /// The time `reading`'s device gave: its `annotations.deviceTime`, or its time when the session corrected nothing.
    static func givenTime(of reading: Reading) -> Timestamp {
        reading.annotations.deviceTime ?? reading.measuredAt
    }

    /// Whether `reading` is `stored` (of its time): the same values, and the same time from the device, whether or
    /// not each session could read the device's clock (`timeUnverified`).
    static func isSame(_ reading: Reading, as stored: Reading) -> Bool {
        reading == stored || (givenTime(of: reading) == givenTime(of: stored) && dated(reading, like: stored) == stored)
    }

    /// `reading` dated as `stored` is: at its time, with its device time and its `timeUnverified` status (whether
    /// the session that stored it could read the device's clock), which say when the record was taken, not what
    /// was measured.
    static func dated(_ reading: Reading, like stored: Reading) -> Reading {
        var dated = reading.retimed(to: stored.measuredAt)
        dated.annotations.deviceTime = stored.annotations.deviceTime
        if stored.annotations.status.contains(.timeUnverified) {
            dated.annotations.status.insert(.timeUnverified)
        } else {
            dated.annotations.status.remove(.timeUnverified)
        }
        return dated
    }

    /// Finds at once which times the device has readings at among those ``stored(_:at:)`` and ``resent(_:)`` look at
    /// for `readings`: each reading's time and the seconds `resentWindow` around it, and its device time when that is
    /// further away. A sync's new readings then cost no query each (a statement per reading costs more than its
    /// insert), and a reading pushed alone costs one. One statement reads the times' span (and the device times', when
    /// there are any); past four stored readings a time in them (a few records spread over a long history), it gives
    /// up and every time is looked up alone, so memory stays bounded by the batch.
    mutating func lookUp(_ readings: [Reading]) throws {
        let times = readings.map(\.measuredAt.secondsSince1970)
        guard let first = times.min(), let last = times.max() else { return }
        let far = readings.compactMap { reading -> Int64? in
            guard let given = reading.annotations.deviceTime?.secondsSince1970,
                abs(given - reading.measuredAt.secondsSince1970) > Self.resentWindow
            else { return nil }
            return given
        }
        let limit = 4 * (times.count + far.count)
        let found: [Int64]
        if let low = far.min(), let high = far.max() {
            found = try DirectStatement.run(
                db.cachedStatement(sql: Self.spans), deviceValue, (first - Self.resentWindow).databaseValue,
                (last + Self.resentWindow).databaseValue, low.databaseValue, high.databaseValue,
                Int64(limit + 1).databaseValue)
        } else {
            found = try DirectStatement.run(
                db.cachedStatement(sql: Self.span), deviceValue, (first - Self.resentWindow).databaseValue,
                (last + Self.resentWindow).databaseValue, Int64(limit + 1).databaseValue)
        }
        occupied = found.count > limit ? nil : Set(found)
    }

    /// ``lookUp(_:)``'s statement for the times' span ?2…?3, at most ?4 rows.
    private static let span =
        "SELECT measured_at FROM reading WHERE device_mac = ?1 AND measured_at BETWEEN ?2 AND ?3 LIMIT ?4"
    /// ``lookUp(_:)``'s statement for the times' span and the device times' span ?4…?5, at most ?6 rows: each span
    /// a search of the index (an OR of the two would scan all of the device's readings).
    private static let spans = """
        SELECT measured_at FROM reading WHERE device_mac = ?1 AND measured_at BETWEEN ?2 AND ?3 UNION ALL \
        SELECT measured_at FROM reading WHERE device_mac = ?1 AND measured_at BETWEEN ?4 AND ?5 LIMIT ?6
        """

    /// Stores `reading` as a new row; returns its identifier.
    mutating func insert(_ reading: Reading) throws -> Int64 {
        let kind = reading.kind
        let insert =
            try self.insert.flatMap { $0.ordinal == kind.ordinal ? $0.statement : nil }
            ?? db.cachedStatement(sql: ReadingColumns.inserts[kind.ordinal])
        self.insert = (kind.ordinal, insert)
        let annotations = ReadingColumns.annotationValues(of: reading)
        let values = ReadingColumns.values(of: reading)
        var arguments = [deviceValue, kind.rawValue.databaseValue, reading.measuredAt.secondsSince1970.databaseValue]
        arguments.reserveCapacity(3 + annotations.count + values.count)
        for value in annotations { arguments.append(value.bound) }
        for value in values { arguments.append(value.bound) }
        try DirectStatement.run(insert, arguments)
        occupied?.insert(reading.measuredAt.secondsSince1970)
        let id = db.lastInsertedRowID
        try publish(id, .insert, attributed: reading.annotations.userIndex != nil)
        return id
    }

    /// Revises stored reading `id` to `reading` (of its kind and time).
    mutating func revise(_ id: Int64, to reading: Reading) throws {
        let ordinal = reading.kind.ordinal
        try db.cachedStatement(sql: ReadingColumns.revisions[ordinal]).execute(
            arguments: StatementArguments(
                ReadingColumns.annotationValues(of: reading) + ReadingColumns.values(of: reading) + [id]))
        try publish(id, .update, attributed: reading.annotations.userIndex != nil)
    }

    /// Makes `operation` reading `id`'s latest change in the feed (``FeedStore/changes(after:limit:)``), unless it
    /// is `attributed` to a user index and in quarantine: the feed learns of it when it is released.
    private mutating func publish(_ id: Int64, _ operation: ReadingChange.Operation, attributed: Bool) throws {
        if attributed {
            try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO feed (reading_id, op) SELECT id, ?2 FROM reading
                    WHERE id = ?1 AND NOT \(VitalStore.quarantined)
                    """
            ).execute(arguments: [id, FeedOperation(operation).rawValue])
            return
        }
        // A new reading has no feed row yet (`reading.id` is AUTOINCREMENT: an identifier is never used twice): a
        // plain INSERT, which SQLite runs with a third fewer steps than INSERT OR REPLACE's search and delete of the
        // row it would replace. Were a row there all the same, the INSERT fails and the transaction with it.
        guard operation == .insert else {
            let replace = try db.cachedStatement(sql: "INSERT OR REPLACE INTO feed (reading_id, op) VALUES (?, ?)")
            try DirectStatement.run(replace, id.databaseValue, FeedOperation(operation).rawValue.databaseValue)
            return
        }
        let publish =
            try publishing
            ?? db.cachedStatement(sql: "INSERT INTO feed (reading_id, op) VALUES (?, \(FeedOperation.insert.rawValue))")
        publishing = publish
        try DirectStatement.run(publish, id.databaseValue)
    }

    /// Queues reading `id`, new or revised, as pending for every caller that has asked for the device (the callers
    /// it was delivered to included); a reading `attributed` to a user index only for the callers that may receive
    /// it (``VitalStore/deliverable(to:)``): none while it is in quarantine.
    mutating func queue(_ id: Int64, at time: Timestamp, attributed: Bool) throws {
        guard attributed else {
            // one statement for every caller: no list of callers read back first (a statement more a reading)
            let queue =
                try queueing
                ?? db.cachedStatement(
                    sql: """
                        INSERT OR IGNORE INTO pending (caller, device_mac, measured_at, reading_id)
                        SELECT caller, device_mac, ?2, ?3 FROM pending_caller WHERE device_mac = ?1
                        """)
            queueing = queue
            try DirectStatement.run(queue, deviceValue, time.secondsSince1970.databaseValue, id.databaseValue)
            return
        }
        let callers =
            try self.callers
            ?? String.fetchAll(
                db.cachedStatement(sql: "SELECT caller FROM pending_caller WHERE device_mac = ?"), arguments: [device])
        self.callers = callers
        guard !callers.isEmpty else { return }
        let queueIfDeliverable = try db.cachedStatement(
            sql: """
                INSERT OR IGNORE INTO pending (caller, device_mac, measured_at, reading_id)
                SELECT ?2, reading.device_mac, reading.measured_at, reading.id FROM reading
                WHERE reading.id = ?1 AND \(VitalStore.deliverable(to: "?2"))
                """)
        for caller in callers { try queueIfDeliverable.execute(arguments: [id, caller]) }
    }
}
