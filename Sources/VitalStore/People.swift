internal import GRDB
import VitalCore

/// A person of the home, with the user indexes of multi-user devices assigned to them.
public struct Person: Hashable, Sendable {
    public var name: String
    /// The user indexes assigned to the person, by device then index.
    public var assignments: [(device: MACAddress, userIndex: UInt8)]

    public init(name: String, assignments: [(device: MACAddress, userIndex: UInt8)]) {
        self.name = name
        self.assignments = assignments
    }

    public static func == (lhs: Person, rhs: Person) -> Bool {
        lhs.name == rhs.name && lhs.assignments.elementsEqual(rhs.assignments) { $0 == $1 }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        for (device, index) in assignments {
            hasher.combine(device)
            hasher.combine(index)
        }
    }
}

/// Which readings of the store a reading query gives.
public enum ReadingSelection: Sendable {
    /// Every stored reading.
    case all
    /// The readings that may be delivered and exported: all but those in quarantine.
    case released
    /// Only the readings in quarantine: of a multi-user device, under a user index no person is assigned.
    case quarantined
}

/// Whose readings they are (the `person`, `assignment` and `caller_person` tables).
///
/// A device that keeps several users (a Blood Pressure or Weight Scale profile device reporting a user ID) gives
/// each reading its user index. The hub never guesses whose it is (not by weight, not by habit): a reading whose
/// device and index no person is assigned is in **quarantine**, stored but never delivered to a caller nor
/// exported, until the user assigns the index to a person; the reading is then released with its own time. A
/// reading without a user index (a single-user device) belongs to the home as readings always did.
///
/// A reading of a person goes to the callers whose whitelist entry names that person; a caller that names no
/// person receives the readings of the home's one person when the home has exactly one, and no person's readings
/// otherwise. So a home with no people, or one person, works as before; a family names a person for each app.
extension PeopleStore {
    /// Adds a person named `name` to the home.
    ///
    /// - Throws: ``StoreError`` when the name is empty, longer than 64 characters, holds a control character, or
    ///   is a person's already.
    public func add(_ name: String) throws(StoreError) {
        try Self.checkName(name)
        try file.write("add a person") { db in
            guard try Self.personID(name, db) == nil else {
                throw StoreError(.failed, "the home has a person named \(name) already")
            }
            try db.execute(sql: "INSERT INTO person (name) VALUES (?)", arguments: [name])
            // a caller naming no person received the one person's readings; with two it receives neither's
            try VitalStore.requeueAttributed(db)
        }
    }

    /// Removes the person named `name`, who must have no assignment and no caller.
    public func remove(_ name: String) throws(StoreError) {
        try file.write("remove a person") { db in
            let id = try Self.existingPerson(name, db)
            if try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM assignment WHERE person_id = ?", arguments: [id])! > 0 {
                throw StoreError(.failed, "\(name) has user indexes assigned: unassign them first")
            }
            if let caller = try String.fetchOne(
                db, sql: "SELECT caller FROM caller_person WHERE person_id = ?", arguments: [id])
            {
                throw StoreError(.failed, "the whitelist entry of \(caller) names \(name): change it first")
            }
            try db.execute(sql: "DELETE FROM person WHERE id = ?", arguments: [id])
            try VitalStore.requeueAttributed(db)
        }
    }

    /// The home's people, by name, with their assignments.
    public func all() throws(StoreError) -> [Person] {
        try file.snapshot("read the people") { db in
            let names = try String.fetchAll(db, sql: "SELECT name FROM person ORDER BY name")
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT person.name, assignment.device_mac, assignment.user_index FROM assignment
                    JOIN person ON person.id = assignment.person_id ORDER BY assignment.device_mac, assignment.user_index
                    """)
            var assignments: [String: [(device: MACAddress, userIndex: UInt8)]] = [:]
            for row in rows {
                guard let mac = MACAddress(row[1] as String), let index = UInt8(exactly: row[2] as Int64) else {
                    throw StoreError(.corrupt, "an assignment of \(row[0] as String) cannot be read")
                }
                assignments[row[0], default: []].append((mac, index))
            }
            return names.map { Person(name: $0, assignments: assignments[$0] ?? []) }
        }
    }

    /// Assigns user index `userIndex` of device `mac` to the person named `person`: the readings of that index in
    /// quarantine are released, each with its own time, queued for the callers that receive the person's readings
    /// and inserted in the change feed. Returns how many were released.
    ///
    /// - Throws: ``StoreError`` when the person is unknown, or the index is assigned already (to anyone: unassign
    ///   it first; readings already delivered as one person's cannot be taken back).
    @discardableResult
    public func assign(device mac: MACAddress, userIndex: UInt8, to person: String) throws(StoreError) -> Int {
        try file.write("assign a user index") { db in
            let id = try Self.existingPerson(person, db)
            if let holder = try String.fetchOne(
                db,
                sql: """
                    SELECT person.name FROM assignment JOIN person ON person.id = assignment.person_id
                    WHERE assignment.device_mac = ? AND assignment.user_index = ?
                    """, arguments: [mac.description, userIndex])
            {
                throw StoreError(
                    .failed, "user \(userIndex) of \(mac) is assigned to \(holder) already: unassign it first")
            }
            try db.execute(
                sql: "INSERT INTO assignment (device_mac, user_index, person_id) VALUES (?, ?, ?)",
                arguments: [mac.description, userIndex, id])
            try VitalStore.requeueAttributed(db)
            // released: new to the change feed, in the order they were stored
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO feed (reading_id, op) SELECT id, \(FeedOperation.insert.rawValue) FROM reading
                    WHERE device_mac = ? AND user_index = ? AND deleted_at IS NULL ORDER BY id
                    """, arguments: [mac.description, userIndex])
            return try Self.count(of: mac, userIndex, db)
        }
    }

    /// Undoes an assignment: the index's readings return to quarantine (those not delivered yet leave the callers'
    /// queues, and the change feed deletes them with the reason `ReadingChange.quarantineReason`). Returns how
    /// many readings are quarantined again.
    ///
    /// - Throws: ``StoreError`` when the index is not assigned.
    @discardableResult
    public func unassign(device mac: MACAddress, userIndex: UInt8) throws(StoreError) -> Int {
        try file.write("unassign a user index") { db in
            try db.execute(
                sql: "DELETE FROM assignment WHERE device_mac = ? AND user_index = ?",
                arguments: [mac.description, userIndex])
            guard db.changesCount > 0 else {
                throw StoreError(.failed, "user \(userIndex) of \(mac) is not assigned")
            }
            try VitalStore.requeueAttributed(db)
            // in quarantine again: no longer exported, so the change feed deletes them
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO feed (reading_id, op, reason)
                    SELECT id, \(FeedOperation.delete.rawValue), ? FROM reading
                    WHERE device_mac = ? AND user_index = ? AND deleted_at IS NULL ORDER BY id
                    """, arguments: [ReadingChange.quarantineReason, mac.description, userIndex])
            return try Self.count(of: mac, userIndex, db)
        }
    }

    /// Makes `caller` receive the readings of the person named `person` (`nil`: of the home's one person).
    public func setPerson(_ person: String?, forCaller caller: String) throws(StoreError) {
        try file.write("name a caller's person") { db in
            try db.execute(sql: "DELETE FROM caller_person WHERE caller = ?", arguments: [caller])
            if let person {
                let id = try Self.existingPerson(person, db)
                try db.execute(
                    sql: "INSERT INTO caller_person (caller, person_id) VALUES (?, ?)", arguments: [caller, id])
            }
            try VitalStore.requeueAttributed(db)
        }
    }

    /// The person whose readings each caller that names one receives, by caller.
    public func callers() throws(StoreError) -> [String: String] {
        try file.query("read the callers' people") { db in
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT caller, person.name FROM caller_person JOIN person ON person.id = caller_person.person_id")
            return Dictionary(uniqueKeysWithValues: rows.map { ($0[0] as String, $0[1] as String) })
        }
    }

    /// Whether the stored reading `id` may be delivered to `caller`: it is not in quarantine, and it is not
    /// another person's.
    public func isDeliverable(_ id: Int64, to caller: String) throws(StoreError) -> Bool {
        try file.query("check a reading's person") { db in
            try Bool.fetchOne(
                db, sql: "SELECT \(VitalStore.deliverable(to: "?2")) FROM reading WHERE id = ?1",
                arguments: [id, caller])
                ?? false
        }
    }
}

extension VitalStore {
    // MARK: SQL

    /// Whether the `reading` row may be delivered to the caller the SQL expression `caller` names: the user has not
    /// deleted it, and it has no user index, or its device and index are assigned to the caller's person (the one
    /// its whitelist entry names, else the home's one person when there is exactly one).
    static func deliverable(to caller: String) -> String {
        """
        (reading.deleted_at IS NULL AND (reading.user_index IS NULL OR EXISTS (SELECT 1 FROM assignment
            WHERE assignment.device_mac = reading.device_mac AND assignment.user_index = reading.user_index
            AND assignment.person_id = COALESCE(
                (SELECT person_id FROM caller_person WHERE caller_person.caller = \(caller)),
                (SELECT MIN(id) FROM person HAVING COUNT(*) = 1)))))
        """
    }

    /// Whether the `reading` row is in quarantine: of a user index no person is assigned.
    static let quarantined = """
        (reading.user_index IS NOT NULL AND NOT EXISTS (SELECT 1 FROM assignment
            WHERE assignment.device_mac = reading.device_mac AND assignment.user_index = reading.user_index))
        """

    /// Rebuilds every caller's queue of readings that have a user index after the people, assignments or callers'
    /// persons changed: each such reading not delivered (as it is now) is queued for exactly the callers it may be
    /// delivered to. A reading reserved for a delivery in progress keeps its reservation.
    static func requeueAttributed(_ db: Database) throws {
        try db.execute(
            sql: """
                DELETE FROM pending WHERE reading_id IN (SELECT id FROM reading WHERE user_index IS NOT NULL);
                INSERT OR IGNORE INTO pending (caller, device_mac, measured_at, reading_id)
                SELECT pending_caller.caller, reading.device_mac, reading.measured_at, reading.id
                FROM pending_caller JOIN reading ON reading.device_mac = pending_caller.device_mac
                WHERE reading.user_index IS NOT NULL AND \(deliverable(to: "pending_caller.caller"))
                    AND NOT EXISTS (SELECT 1 FROM delivery_reading WHERE delivery_reading.caller = pending_caller.caller
                        AND delivery_reading.reading_id = reading.id AND delivery_reading.revision = reading.revision);
                """)
    }

}

extension String {
    fileprivate var trimmingPrefixAndSuffixSpaces: Substring {
        var text = self[...]
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return text
    }
}

extension PeopleStore {
    private static func count(of mac: MACAddress, _ userIndex: UInt8, _ db: Database) throws -> Int {
        try Int.fetchOne(
            db, sql: "SELECT COUNT(*) FROM reading WHERE device_mac = ? AND user_index = ? AND deleted_at IS NULL",
            arguments: [mac.description, userIndex])!
    }

    private static func personID(_ name: String, _ db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT id FROM person WHERE name = ?", arguments: [name])
    }

    private static func existingPerson(_ name: String, _ db: Database) throws -> Int64 {
        guard let id = try personID(name, db) else {
            throw StoreError(.failed, "the home has no person named \(name) (vitalbridge people add \(name))")
        }
        return id
    }

    private static func checkName(_ name: String) throws(StoreError) {
        guard !name.isEmpty else { throw StoreError(.failed, "a person's name cannot be empty") }
        guard name.count <= 64 else { throw StoreError(.failed, "a person's name has at most 64 characters") }
        guard !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw StoreError(.failed, "a person's name cannot hold a control character")
        }
        guard name.trimmingPrefixAndSuffixSpaces == name else {
            throw StoreError(.failed, "a person's name cannot begin or end with a space")
        }
    }
}
