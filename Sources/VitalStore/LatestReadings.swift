internal import GRDB
import VitalCore

/// Each owner's latest reading of a kind, for a destination that shows current values (`LatestReading`).
///
/// An owner is a person (by the number the home gave them, never reused) or the home: a reading with a user index is
/// the person's whose assignment spans it, one without is the home's. Only readings the feed exports count: not
/// deleted, not in quarantine (their latest change in the feed is not a deletion). The latest is the one measured
/// last, the later stored of two measured at the same second.
///
/// Each answer is one step of the index `reading_latest` (a device's live readings of one kind and user, by time) per
/// device the owner has readings of: it costs the same on a home of a thousand readings and of a million.
extension VitalStore {
    /// The latest reading of each (owner, kind) that `scope` asks for after the feed's changes after `position` up to
    /// `through`, read on `db`, in (kind, owner) order.
    static func latestReadings(
        _ scope: LatestScope, after position: Int64, through: Int64, _ db: Database
    ) throws -> [LatestReading] {
        var asked: [ReadingKind: Set<ReadingOwner>] = [:]
        switch scope {
        case .none:
            return []
        case .every:
            let owners = Set(try ownersEver(db))
            for kind in ReadingKind.allCases { asked[kind] = owners }
        case .touched:
            guard through > position else { return [] }
            // whose a reading with a user index is may have changed since its last change (an index unassigned,
            // then assigned to another person, leaves only the insert in the feed): its kind is asked of everyone
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT reading.kind, reading.user_index IS NOT NULL
                    FROM feed JOIN reading ON reading.id = feed.reading_id
                    WHERE feed.seq > ? AND feed.seq <= ?
                    """, arguments: [position, through])
            var everyone: Set<ReadingOwner>?
            for row in rows {
                let kindName: String = row[0]
                guard let kind = ReadingKind(rawValue: kindName) else {
                    throw StoreError(.corrupt, "a reading has the unknown kind \(kindName.debugDescription)")
                }
                if row[1] as Bool {
                    everyone = try everyone ?? Set(ownersEver(db).filter { $0 != .home })
                    asked[kind, default: []].formUnion(everyone!)
                } else {
                    asked[kind, default: []].insert(.home)
                }
            }
        }
        var latest: [LatestReading] = []
        for kind in ReadingKind.allCases {
            for owner in (asked[kind] ?? []).sorted() {
                var name: String?
                if case .person(let id) = owner {
                    name = try String.fetchOne(db, sql: "SELECT name FROM person WHERE id = ?", arguments: [id])
                }
                latest.append(
                    LatestReading(
                        owner: owner, person: name, kind: kind, reading: try latestReading(of: owner, kind, db))
                )
            }
        }
        return latest
    }

    /// The latest exported reading of `kind` that `owner` has, read on `db`.
    static func latestReading(of owner: ReadingOwner, _ kind: ReadingKind, _ db: Database) throws -> StoredReading? {
        // where to look: a person's assignments, or for the home every device's readings of no user
        var spans: [(mac: String, userIndex: Int64?, since: Int64?, until: Int64?)] = []
        switch owner {
        case .person(let id):
            for row in try Row.fetchAll(
                db, sql: "SELECT device_mac, user_index, since, until FROM assignment WHERE person_id = ?",
                arguments: [id])
            {
                spans.append((row[0], row[1], row[2], row[3]))
            }
        case .home:
            // every device with readings, one index step each (a device forgotten keeps its readings)
            for mac in try String.fetchAll(
                db,
                sql: """
                    WITH RECURSIVE macs(mac) AS (SELECT MIN(device_mac) FROM reading
                        UNION ALL SELECT (SELECT MIN(device_mac) FROM reading WHERE device_mac > macs.mac) FROM macs
                        WHERE macs.mac IS NOT NULL)
                    SELECT mac FROM macs WHERE mac IS NOT NULL
                    """)
            {
                spans.append((mac, nil, nil, nil))
            }
        }
        var best: (measuredAt: Int64, id: Int64, row: Row)?
        let statement = try db.cachedStatement(
            sql: """
                SELECT reading.measured_at, \(ReadingColumns.selected) FROM reading INDEXED BY reading_latest
                WHERE reading.device_mac = ?1 AND reading.kind = ?2 AND reading.user_index IS ?3
                    AND reading.measured_at >= ?4 AND reading.measured_at < ?5 AND reading.deleted_at IS NULL
                    AND EXISTS (SELECT 1 FROM feed WHERE feed.reading_id = reading.id
                        AND feed.op != \(FeedOperation.delete.rawValue))
                ORDER BY reading.measured_at DESC, reading.id DESC LIMIT 1
                """)
        for span in spans {
            guard
                let row = try Row.fetchOne(
                    statement,
                    arguments: [span.mac, kind.rawValue, span.userIndex, span.since ?? .min, span.until ?? .max])
            else { continue }
            let (measuredAt, id): (Int64, Int64) = (row[0], row[1])
            if let best, (best.measuredAt, best.id) > (measuredAt, id) { continue }
            best = (measuredAt, id, row)
        }
        return try best.map { try reading(from: $0.row, at: 1) }
    }

    /// ``SinksStore/ownersEver()`` read on `db`: person numbers come from `AUTOINCREMENT`, so every one up to the
    /// last given was a person's.
    static func ownersEver(_ db: Database) throws -> [ReadingOwner] {
        let last = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'person'") ?? 0
        return [.home] + (last > 0 ? (1...last).map(ReadingOwner.person) : [])
    }
}

extension SinksStore {
    /// Every owner of readings the home has had: the home, and each person by number, removed or not, in order.
    /// What a sink that showed owners' latest readings may have published for.
    public func ownersEver() throws(StoreError) -> [ReadingOwner] {
        try file.query("list the owners of readings") { db in try VitalStore.ownersEver(db) }
    }
}
