import Foundation
internal import GRDB
import VitalCore

/// What a journaled callback answered: the journal's `action` column, typed.
public enum JournalAction: Hashable, Sendable {
    /// A layered request's action, by its `cmd` (0 to 6).
    case layered(cmd: Int)
    /// A provider request's answer, by the engine's code of its protocol (100 ShareVitalSigns, 101 Welltory DDS).
    case provider(code: Int)
    /// A request refused before its action was read.
    case unknown

    /// The first code of a provider: codes below it are layered `cmd`s.
    public static let firstProviderCode = 100

    /// The column's value: the `cmd`, the provider's code, or -1.
    public var code: Int {
        switch self {
        case .layered(let cmd): cmd
        case .provider(let code): code
        case .unknown: -1
        }
    }

    /// The action a column's value names: a negative one is unknown, one from ``firstProviderCode`` a provider's.
    public init(code: Int) {
        if code < 0 {
            self = .unknown
        } else if code >= Self.firstProviderCode {
            self = .provider(code: code)
        } else {
            self = .layered(cmd: code)
        }
    }
}

/// One callback the hub sent, as the journal keeps it.
public struct Delivery: Hashable, Sendable {
    public var id: Int64
    public var caller: String
    public var device: MACAddress?
    public var action: JournalAction
    public var status: Int
    public var deliveredAt: Timestamp
    /// The readings the callback carried.
    public var readingIDs: [Int64]
    /// Readings left pending because they did not fit.
    public var remaining: Int
}

/// Who holds a reservation of pending readings (``DeliveryJournal/reservePending(device:caller:for:_:)``), for how long,
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

/// The delivery journal: reservations of pending readings for a hand-off in progress (`reservation`), each
/// caller's queue of a device's readings not yet delivered to it (`pending_caller`, `pending`), and the callbacks
/// handed over with the readings they carried (`delivery`, `delivery_reading`).
extension DeliveryJournal {
    /// The readings of device `mac` not yet delivered to `caller` and not reserved for a delivery in progress,
    /// oldest first, from the delivery journal itself (for tests and tools; a callback reads the `pending` queue
    /// that ``reservePending(device:caller:for:_:)`` keeps, which must always agree with this).
    public func undelivered(device mac: MACAddress, caller: String) throws(StoreError) -> [StoredReading] {
        try file.query("read pending readings") { db in
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT \(ReadingColumns.selected) FROM reading WHERE device_mac = ?1
                        AND NOT \(VitalStore.deliveredAsRevised) AND \(VitalStore.deliverable(to: "?2"))
                        AND id NOT IN (SELECT reading_id FROM reservation WHERE caller = ?2)
                    ORDER BY measured_at, id
                    """, arguments: [mac.description, caller])
            return try Array(rows.map { try VitalStore.reading(from: $0) })
        }
    }

    /// Reserves readings of device `mac` for a callback to `caller` that `reservation`'s owner is about to hand
    /// over, in one serialized step across processes: no two owners ever hold the same reading for one caller.
    ///
    /// In one write transaction it first returns to pending every reservation that expired or whose owner
    /// `reservation` says is gone, then passes the pending readings (oldest first) to `choose`, and reserves the
    /// identifiers `choose` returns with what it made of them. The owner then hands the callback over and calls
    /// ``record(caller:device:action:status:at:readingIDs:remaining:owner:)``, or
    /// ``releaseReservations(of:)`` if the hand-off failed. If the owner never comes back (it crashed), its
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
            try VitalStore.queuePending(db, device: mac, caller: caller)
            var pending = try ReadingStream(db, pendingFor: caller, device: mac)
            let (result, ids) = try choose(&pending)
            try VitalStore.insertReservations(ids, caller: caller, for: reservation, at: now, db)
            return result
        }
    }

    /// Reserves the readings `ids` for `caller` as `reservation`'s owner, taking them over from any other owner:
    /// for a live reading, reserved by the request that measured it as soon as it is stored.
    public func reserve(_ ids: [Int64], caller: String, for reservation: ReservationOwner) throws(StoreError) {
        do {
            try reservationWrite("reserve readings") { db in
                try VitalStore.insertReservations(ids, caller: caller, for: reservation, at: reservation.clock(), db)
            }
        } catch {
            throw StoreError.wrapping(error, "reserve readings")
        }
    }

    /// Returns the readings `owner` reserved to pending (its hand-off failed).
    public func releaseReservations(of owner: ReservationOwner) throws(StoreError) {
        try file.write("release reserved readings") { db in
            try db.execute(sql: "DELETE FROM reservation WHERE owner = ?", arguments: [owner.owner])
        }
    }

    /// The readings reserved for deliveries in progress, as (caller, reading id, owner), for tests and tools.
    public func reservations() throws(StoreError) -> [(caller: String, readingID: Int64, owner: String)] {
        try file.query("read reservations") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM reservation ORDER BY caller, reading_id").map {
                (caller: $0["caller"], readingID: $0["reading_id"], owner: $0["owner"])
            }
        }
    }

    /// Journals a callback that was handed over: who it went to, when, with which readings and status. The
    /// reservations of `owner`, if given, end in the same transaction.
    @discardableResult
    public func record(
        caller: String, device: MACAddress?, action: JournalAction, status: Int, at time: Timestamp,
        readingIDs: [Int64],
        remaining: Int, owner: ReservationOwner? = nil
    ) throws(StoreError) -> Int64 {
        try file.write("journal a delivery") { db in
            try db.execute(
                sql: """
                    INSERT INTO delivery (caller, device_mac, action, status, delivered_at, remaining)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [caller, device?.description, action.code, status, time.secondsSince1970, remaining])
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
            let delivered = try db.cachedStatement(sql: VitalStore.deliveredFromPending)
            for readingID in readingIDs {
                let delivering = try Int64.fetchOne(revision, arguments: [caller, readingID, owner?.owner]) ?? 0
                try item.execute(arguments: [id, readingID, caller, delivering])
                try delivered.execute(arguments: [caller, readingID, delivering])
            }
            if let owner { try db.execute(sql: "DELETE FROM reservation WHERE owner = ?", arguments: [owner.owner]) }
            return id
        }
    }

    /// The journal, oldest first.
    public func deliveries() throws(StoreError) -> [Delivery] {
        try file.query("read the journal") { db in
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
                            id: id, caller: row["caller"], device: device, action: JournalAction(code: row["action"]),
                            status: row["status"], deliveredAt: Timestamp(secondsSince1970: row["delivered_at"]),
                            readingIDs: [], remaining: row["remaining"]))
                }
                if let readingID: Int64 = row["reading_id"] { journal[journal.count - 1].readingIDs.append(readingID) }
            }
            return journal
        }
    }
}

extension VitalStore {
    /// Whether caller `?2` was delivered the `reading` row as it is now (its current revision).
    static let deliveredAsRevised = """
        EXISTS (SELECT 1 FROM delivery_reading WHERE delivery_reading.caller = ?2
            AND delivery_reading.reading_id = reading.id AND delivery_reading.revision = reading.revision)
        """

    /// Makes `caller` one of the callers device `mac` keeps a `pending` queue for, the first time it asks: the
    /// queue starts with every reading of the device the journal has not delivered to it.
    fileprivate static func queuePending(_ db: Database, device mac: MACAddress, caller: String) throws {
        try db.execute(
            sql: "INSERT OR IGNORE INTO pending_caller (device_mac, caller) VALUES (?, ?)",
            arguments: [mac.description, caller])
        guard db.changesCount > 0 else { return }
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO pending (caller, device_mac, measured_at, reading_id)
                SELECT ?2, device_mac, measured_at, id FROM reading WHERE device_mac = ?1
                    AND NOT \(Self.deliveredAsRevised) AND \(Self.deliverable(to: "?2"))
                """, arguments: [mac.description, caller])
    }

    fileprivate static func insertReservations(
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

    /// Removes reading `?2` from the pending queue of caller `?1`, if revision `?3` delivered is its current one.
    static let deliveredFromPending = """
        DELETE FROM pending WHERE caller = ?1
            AND (device_mac, measured_at, reading_id) = (
                SELECT device_mac, measured_at, id FROM reading WHERE id = ?2 AND revision = ?3)
        """

    /// SQLite's plans for the queries a callback runs on the pending queue (count, selection, removal of a
    /// delivered reading), for tests that they use indexes; one snapshot of the schema and its statistics.
    func explainPendingQueries(device mac: MACAddress, caller: String) throws -> [String] {
        try file.snapshot("explain the pending queries") { db in
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
}

extension DeliveryJournal {
    /// Runs `body` in one IMMEDIATE transaction, committed with `synchronous = NORMAL`, then restores FULL.
    ///
    /// IMMEDIATE: the write lock is taken before anything is read, so that no other process can choose the same
    /// readings between the read and the reservation. NORMAL: a reservation need not survive a power cut (lost, its
    /// readings are simply pending again), so its commit skips the flush a reading's commit needs; in WAL mode the
    /// commits stay atomic and in order, and the next FULL commit flushes them with its own. A database error
    /// becomes a ``StoreError`` saying `what` failed; any other error `body` throws passes through.
    private func reservationWrite<T>(_ what: String, _ body: (Database) throws -> T) throws -> T {
        do {
            return try file.database.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                let result: T
                do {
                    result = try StoreFile.transaction(db, body)
                } catch {
                    try db.execute(sql: "PRAGMA synchronous = FULL")
                    throw error
                }
                try db.execute(sql: "PRAGMA synchronous = FULL")
                return result
            }
        } catch let error as DatabaseError {
            throw StoreError.wrapping(error, what)
        }
    }
}
