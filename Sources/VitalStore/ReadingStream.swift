internal import GRDB
import VitalCore

/// Readings read from the store one at a time, oldest first (by time, then by identifier), with how many there are
/// in all: a callback takes from it only what fits. Valid only inside the store call that handed it over.
public struct ReadingStream {
    /// How many readings the stream holds in all.
    public let count: Int
    private let rows: RowCursor

    /// The readings of device `mac` (all devices when `nil`) from `since` on, of `selection`, or those that may be
    /// delivered to `caller` when given; counted only when `counting`.
    init(
        _ db: Database, device mac: MACAddress?, since: Timestamp?, selection: ReadingSelection = .all,
        caller: String? = nil, counting: Bool
    ) throws {
        // a reading the user deleted is never read back
        var conditions = "reading.deleted_at IS NULL"
        var arguments: StatementArguments = []
        if let mac {
            conditions += " AND device_mac = ?"
            arguments += [mac.description]
        }
        if let since {
            conditions += " AND measured_at >= ?"
            arguments += [since.secondsSince1970]
        }
        switch selection {
        case .all: break
        case .released: conditions += " AND NOT \(VitalStore.quarantined)"
        case .quarantined: conditions += " AND \(VitalStore.quarantined)"
        }
        if let caller {
            // the predicate names its caller once
            conditions += " AND \(VitalStore.deliverable(to: "?"))"
            arguments += [caller]
        }
        count =
            counting
            ? try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM reading WHERE \(conditions)", arguments: arguments) ?? 0
            : 0
        rows = try Row.fetchCursor(
            db, sql: "SELECT \(ReadingColumns.selected) FROM reading WHERE \(conditions) ORDER BY measured_at, id",
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
        SELECT \(ReadingColumns.selected) FROM pending JOIN reading ON reading.id = pending.reading_id
        WHERE \(unreserved)
        ORDER BY pending.measured_at, pending.reading_id
        """

    /// The next reading; `nil` after the last. A row the store cannot read is a ``StoreError`` naming it.
    public mutating func next() throws -> StoredReading? {
        guard let row = try rows.next() else { return nil }
        return try VitalStore.reading(from: row)
    }
}
