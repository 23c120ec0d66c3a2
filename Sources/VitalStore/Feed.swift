import Foundation
internal import GRDB
import VitalCore

/// How the `feed` table writes a change's operation.
enum FeedOperation: Int {
    case insert = 0
    case update = 1
    case delete = 2

    init(_ operation: ReadingChange.Operation) {
        switch operation {
        case .insert: self = .insert
        case .update: self = .update
        case .delete: self = .delete
        }
    }

    var operation: ReadingChange.Operation {
        switch self {
        case .insert: .insert
        case .update: .update
        case .delete: .delete
        }
    }
}

/// The user's deletions: a deleted reading's last change in the feed (below) is its deletion.
extension ReadingsStore {
    /// Deletes stored reading `id` for the reason the user gives: it is never delivered nor exported again, it leaves
    /// every caller's queue, and the change feed (and so every sink) receives its deletion. The reading stays in the
    /// file, marked, so that its device sending it again does not bring it back. A callback already being handed
    /// over when the reading is deleted (its readings reserved) still carries it: it was read before the deletion.
    ///
    /// - Throws: ``StoreError`` when the reason is empty, longer than 200 characters or holds a control character,
    ///   when the store has no reading `id`, or when it is deleted already.
    public func delete(_ id: Int64, reason: String, at time: Timestamp) throws(StoreError) {
        try VitalStore.checkDeletion(reason)
        try file.write("delete a reading") { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT deleted_at, device_mac, measured_at FROM reading WHERE id = ?", arguments: [id])
            else { throw StoreError(.failed, "the store has no reading \(id)") }
            if let when = row[0] as Int64? {
                throw StoreError(
                    .failed, "reading \(id) was deleted already, at \(Timestamp(secondsSince1970: when)) UTC")
            }
            try VitalStore.markDeleted(id, device: row[1], measuredAt: row[2], reason: reason, at: time, db)
        }
    }
}

extension VitalStore {
    /// Refuses a deletion's `reason` that is empty, longer than 200 characters or holds a control character.
    static func checkDeletion(_ reason: String) throws(StoreError) {
        guard !reason.allSatisfy(\.isWhitespace) else {
            throw StoreError(.failed, "a deletion needs a reason (--reason): what was wrong with the reading")
        }
        guard reason.count <= 200 else { throw StoreError(.failed, "a deletion's reason has at most 200 characters") }
        guard !reason.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            throw StoreError(.failed, "a deletion's reason cannot hold a control character")
        }
    }

    /// Deletes reading `id` (not deleted yet) of device `mac`, measured at `measuredAt` (seconds since 1970), for
    /// `reason`, on `db` in the caller's write transaction: it is marked deleted at `time` and stays in the file, so
    /// that its device sending it again does not bring it back; it leaves every caller's queue; and its deletion,
    /// with the reason, becomes its latest change in the feed. The one way a reading is deleted
    /// (``ReadingsStore/delete(_:reason:at:)``, ``VitalStore/forgetDevice(_:deletingReadings:at:)``).
    static func markDeleted(
        _ id: Int64, device mac: String, measuredAt: Int64, reason: String, at time: Timestamp, _ db: Database
    ) throws {
        try db.cachedStatement(sql: "UPDATE reading SET deleted_at = ? WHERE id = ?").execute(arguments: [
            time.secondsSince1970, id,
        ])
        // through the queue's key, caller by caller: never a scan of every caller's queue
        try db.cachedStatement(
            sql: """
                DELETE FROM pending WHERE caller IN (SELECT caller FROM pending_caller WHERE device_mac = ?1)
                AND device_mac = ?1 AND measured_at = ?2 AND reading_id = ?3
                """
        ).execute(arguments: [mac, measuredAt, id])
        try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO feed (reading_id, op, reason) VALUES (?, \(FeedOperation.delete.rawValue), ?)"
        ).execute(arguments: [id, reason])
    }
}

/// The change feed (the `feed` table).
///
/// Every change to what the hub exports is one row, written in the transaction that makes the change: a reading
/// stored or released from quarantine (`insert`), revised (`update`), deleted by the user or returned to quarantine
/// (`delete`). Its sequence grows in commit order and is never reused, and a reading's next change replaces its
/// row: the feed holds the latest change of each reading, so that reading it after any place gives exactly what
/// changed since, at a cost that depends on what changed, not on the history (the sequence is the table's key).
extension FeedStore {
    /// The changes after `cursor` in the feed, oldest first, at most `limit` of them: for each reading whose latest
    /// change is after the cursor, that change, with the reading as it is now (`nil` for a deletion) and its person.
    ///
    /// - Throws: ``StoreError`` when `cursor` is another hub's, or ahead of this hub's feed (a cursor this store
    ///   never gave), or a row cannot be read (naming it).
    public func changes(after cursor: FeedCursor, limit: Int) throws(StoreError) -> [ReadingChange] {
        try file.snapshot("read the change feed") { db in
            try VitalStore.check(cursor, db)
            var changes: [ReadingChange] = []
            try VitalStore.forEachChange(after: cursor.sequence, limit: limit, db) { changes.append($0) }
            return changes
        }
    }

    /// Passes the changes after `cursor` (``changes(after:limit:)``) to `body` one at a time, reading them from the
    /// file as it goes, all in one read transaction. `body` may not use the store; its errors pass through.
    public func forEach(after cursor: FeedCursor, limit: Int, _ body: (ReadingChange) throws -> Void) throws {
        do {
            try file.database.read { db in
                try VitalStore.check(cursor, db)
                try VitalStore.forEachChange(after: cursor.sequence, limit: limit, db, body)
            }
        } catch let error as DatabaseError {
            throw StoreError.wrapping(error, "read the change feed")
        } catch let error as StoreError {
            throw StoreError.wrapping(error, "read the change feed")
        }
    }

    /// The feed's place before its first change: the cursor that gives every change.
    public func start() throws(StoreError) -> FeedCursor {
        let hub = try file.query("read the hub's identity") { db in try VitalStore.hubID(db) }
        return FeedCursor(hubID: hub, sequence: 0)
    }

    /// The feed's place after its last change so far.
    public func end() throws(StoreError) -> FeedCursor {
        try file.snapshot("read the change feed's end") { db in
            FeedCursor(hubID: try VitalStore.hubID(db), sequence: try VitalStore.lastSequence(db))
        }
    }
}

extension VitalStore {
    /// The sequence of the latest change ever made (0 before the first): a replaced row's sequence counts, since a
    /// consumer may hold it.
    static func lastSequence(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'feed'") ?? 0
    }

    static func hubID(_ db: Database) throws -> String {
        guard let id = try String.fetchOne(db, sql: "SELECT id FROM hub") else {
            throw StoreError(.corrupt, "the store has no hub identity")
        }
        return id
    }

    /// Refuses `cursor` unless it is this hub's and no further than its feed.
    fileprivate static func check(_ cursor: FeedCursor, _ db: Database) throws {
        let hub = try hubID(db)
        guard cursor.hubID == hub else {
            throw StoreError(.failed, "the cursor \(cursor) is of another hub (\(cursor.hubID)); this home is \(hub)")
        }
        let last = try lastSequence(db)
        guard cursor.sequence <= last else {
            throw StoreError(
                .failed,
                "the cursor \(cursor) is ahead of this home's feed, which ends at \(last) (was the store restored?)")
        }
    }

    /// Passes the changes after `sequence` (at most `limit`) to `body`, read on `db`.
    static func forEachChange(
        after sequence: Int64, limit: Int, _ db: Database, _ body: (ReadingChange) throws -> Void
    ) throws {
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT feed.seq, feed.op, feed.reason, person.name, \(ReadingColumns.selected)
                    FROM feed JOIN reading ON reading.id = feed.reading_id
                    LEFT JOIN assignment ON \(VitalStore.holdsReading)
                    LEFT JOIN person ON person.id = assignment.person_id
                    WHERE feed.seq > ? ORDER BY feed.seq LIMIT ?
                    """), arguments: [sequence, limit])
        while let row = try rows.next() {
            let sequence: Int64 = row[0]
            let readingID: Int64 = row[4]
            guard let operation = FeedOperation(rawValue: row[1])?.operation else {
                throw StoreError(.corrupt, "change \(sequence) of reading \(readingID) has an unknown operation")
            }
            let macText: String = row[5]
            guard let mac = MACAddress(macText) else {
                throw StoreError(.corrupt, "reading \(readingID) has an unreadable device MAC")
            }
            var change = ReadingChange(
                sequence: sequence, operation: operation, readingID: readingID, device: mac, reason: row[2])
            if operation != .delete {
                change.reading = try Self.reading(from: row, at: 4).reading
                change.person = row[3]
            }
            try body(change)
        }
    }
}
