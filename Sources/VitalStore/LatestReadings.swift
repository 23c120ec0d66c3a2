internal import GRDB
import VitalCore

/// Each owner's latest reading of a kind, for a destination that shows current values (`LatestReading`).
///
/// An owner is a person (by their identifier, which is never reused) or the home: a reading with a user index is
/// the person's whose assignment spans it, one without is the home's. Only readings the feed exports count: not
/// deleted, not in quarantine (their latest change in the feed is not a deletion). The latest is the one measured
/// last, the later stored of two measured at the same second.
///
/// Each question walks the index of one device's readings by time backwards and stops at the first that counts, so
/// it costs what is newer than the answer, not the history.
extension VitalStore {
    /// An owner of readings: a person's identifier, or `nil` for the home.
    typealias Owner = Int64?

    /// The latest reading of each (owner, kind) the feed's changes after `position` up to `through` touch, read on
    /// `db`. A change whose reading has a user index no assignment holds now (it returned to quarantine) touches its
    /// kind for every person the home has had, since the person it was taken from is no longer written anywhere.
    static func latestReadings(after position: Int64, through: Int64, _ db: Database) throws -> [LatestReading] {
        guard through > position else { return [] }
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT DISTINCT reading.kind, assignment.person_id,
                    reading.user_index IS NOT NULL AND assignment.person_id IS NULL
                FROM feed JOIN reading ON reading.id = feed.reading_id
                LEFT JOIN assignment ON \(holdsReading)
                WHERE feed.seq > ? AND feed.seq <= ?
                """, arguments: [position, through])
        var touched: [ReadingKind: Set<Owner>] = [:]
        var everyone: [Owner]?
        for row in rows {
            let kindName: String = row[0]
            guard let kind = ReadingKind(rawValue: kindName) else {
                throw StoreError(.corrupt, "a reading has the unknown kind \(kindName.debugDescription)")
            }
            if row[2] as Bool {
                if everyone == nil { everyone = try ownersEver(db).filter { $0 != nil } }
                touched[kind, default: []].formUnion(everyone!)
            } else {
                touched[kind, default: []].insert(row[1] as Int64?)
            }
        }
        var latest: [LatestReading] = []
        for kind in ReadingKind.allCases {
            guard let owners = touched[kind] else { continue }
            for owner in owners.sorted(by: { ($0 ?? 0) < ($1 ?? 0) }) {
                let reading = try latestReading(of: owner, kind, db)
                let name = try owner.flatMap { id in
                    try String.fetchOne(db, sql: "SELECT name FROM person WHERE id = ?", arguments: [id])
                }
                latest.append(LatestReading(personID: owner, person: name, kind: kind, reading: reading))
            }
        }
        return latest
    }

    /// The latest exported reading of `kind` that `owner` has, read on `db`.
    static func latestReading(of owner: Owner, _ kind: ReadingKind, _ db: Database) throws -> StoredReading? {
        /// The spans to look in: a person's assignments, or for the home every device's readings of no user.
        var spans: [(mac: String, userIndex: Int64?, since: Int64?, until: Int64?)] = []
        if let owner {
            for row in try Row.fetchAll(
                db, sql: "SELECT device_mac, user_index, since, until FROM assignment WHERE person_id = ?",
                arguments: [owner])
            {
                spans.append((row[0], row[1], row[2], row[3]))
            }
        } else {
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
        var best: (measuredAt: Int64, row: Row)?
        let statement = try db.cachedStatement(
            sql: """
                SELECT reading.measured_at, \(ReadingColumns.selected) FROM reading
                WHERE reading.device_mac = ?1 AND reading.user_index IS ?2 AND reading.kind = ?3
                    AND reading.measured_at >= ?4 AND reading.measured_at < ?5 AND reading.deleted_at IS NULL
                    AND EXISTS (SELECT 1 FROM feed WHERE feed.reading_id = reading.id
                        AND feed.op != \(FeedOperation.delete.rawValue))
                ORDER BY reading.measured_at DESC, reading.id DESC LIMIT 1
                """)
        for span in spans {
            guard
                let row = try Row.fetchOne(
                    statement,
                    arguments: [span.mac, span.userIndex, kind.rawValue, span.since ?? .min, span.until ?? .max])
            else { continue }
            let measuredAt: Int64 = row[0]
            let id: Int64 = row[1]
            if let best, best.measuredAt > measuredAt || (best.measuredAt == measuredAt && best.row[1] as Int64 > id) {
                continue
            }
            best = (measuredAt, row)
        }
        return try best.map { try reading(from: $0.row, at: 1) }
    }
}

extension SinksStore {
    /// Every owner of readings the home has had: the home (`nil`), and each person's identifier, removed or not,
    /// in order. What a sink that showed owners' latest readings may have published for.
    public func ownersEver() throws(StoreError) -> [Int64?] {
        try file.query("list the owners of readings") { db in try VitalStore.ownersEver(db) }
    }
}

extension VitalStore {
    /// ``SinksStore/ownersEver()`` read on `db`: person identifiers come from `AUTOINCREMENT`, so every one up to the
    /// last given was a person's.
    static func ownersEver(_ db: Database) throws -> [Int64?] {
        let last = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'person'") ?? 0
        return [nil] + (last > 0 ? Array(1...last) : [])
    }
}
