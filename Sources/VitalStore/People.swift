internal import GRDB
import VitalCore

/// A device's user index made a person's, for the readings measured in a span.
public struct Assignment: Hashable, Sendable {
    public var device: MACAddress
    public var userIndex: UInt8
    /// The span's start: readings measured at or after it (`nil`: from the first). An assignment starts where the
    /// index's last one ended, so that readings of an earlier holder stay theirs.
    public var since: Timestamp?
    /// The span's end: readings measured before it (`nil`: the assignment is open).
    public var until: Timestamp?
    /// Whether the person enrolled on the device (User Data Service) rather than being assigned the index.
    public var isEnrolment: Bool

    public init(
        device: MACAddress, userIndex: UInt8, since: Timestamp? = nil, until: Timestamp? = nil,
        isEnrolment: Bool = false
    ) {
        (self.device, self.userIndex, self.since, self.until) = (device, userIndex, since, until)
        self.isEnrolment = isEnrolment
    }
}

extension Assignment: CustomStringConvertible {
    /// `004D3208D316#1`, with `(enrolled)` for an enrolment, and its end when it ended.
    public var description: String {
        "\(device)#\(userIndex)" + (isEnrolment ? "(enrolled" + (until.map { " until \($0)" } ?? "") + ")" : "")
    }
}

/// A person of the home, with what devices may need to know of them and the user indexes assigned to them.
public struct Person: Hashable, Sendable {
    public var name: String
    public var profile: PersonProfile
    /// The version of `profile`: it grows each time the person's data change.
    public var profileVersion: Int
    /// The user indexes assigned to the person, open and ended, by device, index, then start.
    public var assignments: [Assignment]

    public init(
        name: String, profile: PersonProfile = PersonProfile(), profileVersion: Int = 0, assignments: [Assignment] = []
    ) {
        (self.name, self.profile, self.profileVersion, self.assignments) = (name, profile, profileVersion, assignments)
    }
}

/// A person's open enrolment on a device with a User Data Service: what a sync needs to consent as them.
public struct Enrolment: Hashable, Sendable {
    public var person: String
    public var device: MACAddress
    public var userIndex: UInt8
    /// The user's consent code, 0–9999: the home's secret, never printed nor logged.
    public var consentCode: UInt16
    /// The Database Change Increment the hub last wrote to the device or read from it.
    public var changeIncrement: UInt32
    /// The person's data as the home has it now, and its version.
    public var profile: PersonProfile
    public var profileVersion: Int
    /// The version of the person's data last written to the device or read from it.
    public var writtenProfileVersion: Int
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
    /// Adds a person named `name` to the home, with what devices may need to know of them.
    ///
    /// - Throws: ``StoreError`` when the name is empty, longer than 64 characters, holds a control character, or
    ///   is a person's already.
    public func add(_ name: String, profile: PersonProfile = PersonProfile()) throws(StoreError) {
        try Self.checkName(name)
        try file.write("add a person") { db in
            guard try Self.personID(name, db) == nil else {
                throw StoreError(.failed, "the home has a person named \(name) already")
            }
            try db.execute(
                sql: "INSERT INTO person (name, born, height_cm, sex) VALUES (?, ?, ?, ?)",
                arguments: [name, profile.born?.description, profile.heightCentimetres, profile.sex?.rawValue])
            // a caller naming no person received the one person's readings; with two it receives neither's
            try VitalStore.requeueAttributed(db)
        }
    }

    /// Changes the data of the person named `name`: each value `change` has replaces theirs, the others stay.
    /// A change makes a new version of their data, which the next sync of each device they are enrolled on writes
    /// there (it wins over what changed on the device meanwhile). Returns their data now.
    ///
    /// - Throws: ``StoreError`` when the person is unknown.
    public func update(_ name: String, with change: PersonProfile) throws(StoreError) -> PersonProfile {
        try file.write("change a person's data") { db in
            let id = try Self.existingPerson(name, db)
            let row = try Row.fetchOne(
                db, sql: "SELECT born, height_cm, sex FROM person WHERE id = ?", arguments: [id])!
            let profile = try Self.profile(of: name, row, from: 0)
            let changed = profile.overlaid(with: change)
            if changed != profile { try Self.setProfile(changed, of: id, db) }
            return changed
        }
    }

    /// Removes the person named `name`, who must have no assignment and no caller.
    public func remove(_ name: String) throws(StoreError) {
        try file.write("remove a person") { db in
            let id = try Self.existingPerson(name, db)
            if try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM assignment WHERE person_id = ?", arguments: [id])! > 0 {
                throw StoreError(
                    .failed, "\(name) has user indexes assigned, or had, and readings by them: unassign them first")
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

    /// The home's people, by name, with their data and assignments.
    public func all() throws(StoreError) -> [Person] {
        try file.snapshot("read the people") { db in
            var people: [Int64: Person] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, name, born, height_cm, sex, profile_version FROM person") {
                let name: String = row[1]
                people[row[0]] = Person(
                    name: name, profile: try Self.profile(of: name, row, from: 2), profileVersion: row[5])
            }
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT person_id, device_mac, user_index, since, until, consent_code IS NOT NULL FROM assignment
                    ORDER BY device_mac, user_index, COALESCE(since, -9223372036854775808)
                    """)
            for row in rows {
                let id: Int64 = row[0]
                guard let mac = MACAddress(row[1] as String), let index = UInt8(exactly: row[2] as Int64) else {
                    throw StoreError(.corrupt, "an assignment of \(people[id]?.name ?? "a person") cannot be read")
                }
                people[id]?.assignments.append(
                    Assignment(
                        device: mac, userIndex: index, since: (row[3] as Int64?).map(Timestamp.init(secondsSince1970:)),
                        until: (row[4] as Int64?).map(Timestamp.init(secondsSince1970:)), isEnrolment: row[5]))
            }
            return people.values.sorted { $0.name < $1.name }
        }
    }

    /// Assigns user index `userIndex` of device `mac` to the person named `person`: the readings of that index in
    /// quarantine are released, each with its own time, queued for the callers that receive the person's readings
    /// and inserted in the change feed. Readings an ended assignment of the index holds stay its person's: the new
    /// one starts where the last one ended. Returns how many were released.
    ///
    /// - Throws: ``StoreError`` when the person is unknown, or the index is assigned already (to anyone: unassign
    ///   it first; readings already delivered as one person's cannot be taken back).
    @discardableResult
    public func assign(device mac: MACAddress, userIndex: UInt8, to person: String) throws(StoreError) -> Int {
        try file.write("assign a user index") { db in
            try Self.open(mac, userIndex, for: person, db) { id, since in
                try db.execute(
                    sql: "INSERT INTO assignment (device_mac, user_index, person_id, since) VALUES (?, ?, ?, ?)",
                    arguments: [mac.description, userIndex, id, since])
            }
        }
    }

    /// Enrols the person named `person` on device `mac` as its user `userIndex`, whose consent code is
    /// `consentCode`: an assignment of the index (its readings in quarantine are released, as ``assign(device:userIndex:to:)``
    /// does) that a sync consents with. `changeIncrement` is the user's Database Change Increment after the hub
    /// wrote the person's data of version `profileVersion` there (the person's current when `nil`) or read the
    /// device's: `adopted`, which then become the person's in the same transaction, unless their data changed since
    /// that version (`people set` meanwhile: the next sync writes those). A `since` starts the span there rather than
    /// where the index's last assignment ended (a user the device registered just now has no readings of before).
    /// Returns how many readings were released.
    ///
    /// - Throws: ``StoreError`` when the person is unknown, the index is assigned already, or the person is
    ///   enrolled on the device already.
    @discardableResult
    public func enroll(
        _ person: String, device mac: MACAddress, userIndex: UInt8, consentCode: UInt16, changeIncrement: UInt32,
        profileVersion: Int? = nil, adopted: PersonProfile? = nil, since: Timestamp? = nil
    ) throws(StoreError) -> Int {
        try file.write("enrol a person") { db in
            if let index = try Int.fetchOne(
                db,
                sql: """
                    SELECT user_index FROM assignment JOIN person ON person.id = assignment.person_id
                    WHERE person.name = ? AND device_mac = ? AND until IS NULL AND consent_code IS NOT NULL
                    """, arguments: [person, mac.description])
            {
                throw StoreError(.failed, "\(person) is user \(index) of \(mac) already")
            }
            return try Self.open(mac, userIndex, for: person, db) { id, lastEnd in
                let start = [lastEnd, since?.secondsSince1970].compactMap { $0 }.max()
                let profileVersion = try Self.version(of: id, written: profileVersion, adopting: adopted, db)
                try db.execute(
                    sql: """
                        INSERT INTO assignment (device_mac, user_index, person_id, since, consent_code,
                            change_increment, profile_version) VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [mac.description, userIndex, id, start, consentCode, changeIncrement, profileVersion])
            }
        }
    }

    /// The open enrolments on device `mac`, by user index: whom a sync consents as.
    public func enrolments(on mac: MACAddress) throws(StoreError) -> [Enrolment] {
        try file.query("read a device's enrolments") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT person.name, user_index, consent_code, change_increment, assignment.profile_version,
                        person.profile_version, born, height_cm, sex
                    FROM assignment JOIN person ON person.id = assignment.person_id
                    WHERE device_mac = ? AND until IS NULL AND consent_code IS NOT NULL ORDER BY user_index
                    """, arguments: [mac.description]
            ).map { row in
                let person: String = row[0]
                guard let index = UInt8(exactly: row[1] as Int64), let code = UInt16(exactly: row[2] as Int64),
                    let increment = UInt32(exactly: row[3] as Int64)
                else { throw StoreError(.corrupt, "the enrolment of \(person) on \(mac) cannot be read") }
                return Enrolment(
                    person: person, device: mac, userIndex: index, consentCode: code, changeIncrement: increment,
                    profile: try Self.profile(of: person, row, from: 6), profileVersion: row[5],
                    writtenProfileVersion: row[4])
            }
        }
    }

    /// Keeps what a sync did with an enrolment: the user's Database Change Increment is `changeIncrement` after it,
    /// and the device has the person's data of version `profileVersion`. When the device's data was newer,
    /// `adopted` is it: the person's data becomes it, under a new version, which is the one the device has; unless
    /// the person's data changed since `profileVersion` (`people set` during the sync): then the home's win, and the
    /// next sync writes them. A `consentCode` replaces the enrolment's (the device accepted it).
    ///
    /// - Throws: ``StoreError`` when the enrolment ended meanwhile.
    public func recordSync(
        of enrolment: Enrolment, changeIncrement: UInt32, profileVersion: Int, adopted: PersonProfile? = nil,
        consentCode: UInt16? = nil
    ) throws(StoreError) {
        try file.write("keep an enrolment's sync") { db in
            let id = try Self.existingPerson(enrolment.person, db)
            let version = try Self.version(of: id, written: profileVersion, adopting: adopted, db)
            try db.execute(
                sql: """
                    UPDATE assignment SET change_increment = ?, profile_version = ?, consent_code = ?
                    WHERE device_mac = ? AND user_index = ? AND until IS NULL AND consent_code IS NOT NULL
                        AND person_id = (SELECT id FROM person WHERE name = ?)
                    """,
                arguments: [
                    changeIncrement, version, consentCode ?? enrolment.consentCode, enrolment.device.description,
                    enrolment.userIndex, enrolment.person,
                ])
            guard db.changesCount > 0 else {
                throw StoreError(.failed, "\(enrolment.person) is no longer enrolled on \(enrolment.device)")
            }
        }
    }

    /// Ends the person's enrolment on device `mac` at `time`: the readings of the index measured before it stay the
    /// person's, in the feed and with their callers; any measured at or after it are no one's (in quarantine, the
    /// feed deletes them) until the index is someone's again. Returns the enrolment that ended.
    ///
    /// - Throws: ``StoreError`` when the person is not enrolled on the device.
    @discardableResult
    public func endEnrolment(of person: String, on mac: MACAddress, at time: Timestamp) throws(StoreError)
        -> Enrolment
    {
        guard let enrolment = try enrolments(on: mac).first(where: { $0.person == person }) else {
            throw StoreError(.failed, "\(person) is not enrolled on \(mac)")
        }
        try file.write("end an enrolment") { db in
            try db.execute(
                sql: """
                    UPDATE assignment SET until = max(?, COALESCE(since, ?))
                    WHERE device_mac = ? AND user_index = ? AND until IS NULL AND consent_code IS NOT NULL
                        AND person_id = (SELECT id FROM person WHERE name = ?)
                    """,
                arguments: [
                    time.secondsSince1970, time.secondsSince1970, mac.description, enrolment.userIndex, person,
                ])
            guard db.changesCount > 0 else { throw StoreError(.failed, "\(person) is not enrolled on \(mac)") }
            try VitalStore.requeueAttributed(db)
            try Self.feedQuarantined(mac, enrolment.userIndex, db)
        }
        return enrolment
    }

    /// Undoes an assignment made by mistake: the readings it held return to quarantine (those not delivered yet
    /// leave the callers' queues, and the change feed deletes them with the reason `ReadingChange.quarantineReason`).
    /// Returns how many readings are quarantined again.
    ///
    /// - Throws: ``StoreError`` when the index is not assigned, or is an enrolment (which `endEnrolment` ends,
    ///   keeping its readings).
    @discardableResult
    public func unassign(device mac: MACAddress, userIndex: UInt8) throws(StoreError) -> Int {
        try file.write("unassign a user index") { db in
            let open = try Row.fetchOne(
                db,
                sql: """
                    SELECT person.name, consent_code IS NOT NULL FROM assignment
                    JOIN person ON person.id = assignment.person_id
                    WHERE device_mac = ? AND user_index = ? AND until IS NULL
                    """, arguments: [mac.description, userIndex])
            guard let open else { throw StoreError(.failed, "user \(userIndex) of \(mac) is not assigned") }
            guard !(open[1] as Bool) else {
                throw StoreError(
                    .failed,
                    "\(open[0] as String) is enrolled on \(mac) as user \(userIndex): end it with vitalbridge people forget "
                        + "\(open[0] as String) --mac \(mac), which keeps their readings theirs")
            }
            let held = try Self.count(of: mac, userIndex, db)
            try db.execute(
                sql: "DELETE FROM assignment WHERE device_mac = ? AND user_index = ? AND until IS NULL",
                arguments: [mac.description, userIndex])
            try VitalStore.requeueAttributed(db)
            try Self.feedQuarantined(mac, userIndex, db)
            return held
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

    /// Whether the `assignment` row holds the `reading` row: the same device and user index, measured in its span.
    static let holdsReading = """
        assignment.device_mac = reading.device_mac AND assignment.user_index = reading.user_index
            AND (assignment.since IS NULL OR reading.measured_at >= assignment.since)
            AND (assignment.until IS NULL OR reading.measured_at < assignment.until)
        """

    /// Whether the `reading` row may be delivered to the caller the SQL expression `caller` names: the user has not
    /// deleted it, and it has no user index, or an assignment of its device and index that spans it is the caller's
    /// person's (the one its whitelist entry names, else the home's one person when there is exactly one).
    static func deliverable(to caller: String) -> String {
        """
        (reading.deleted_at IS NULL AND (reading.user_index IS NULL OR EXISTS (SELECT 1 FROM assignment
            WHERE \(holdsReading) AND assignment.person_id = COALESCE(
                (SELECT person_id FROM caller_person WHERE caller_person.caller = \(caller)),
                (SELECT MIN(id) FROM person HAVING COUNT(*) = 1)))))
        """
    }

    /// Whether the `reading` row is in quarantine: of a user index no assignment spanning it holds.
    static let quarantined = """
        (reading.user_index IS NOT NULL AND NOT EXISTS (SELECT 1 FROM assignment WHERE \(holdsReading)))
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
    /// Opens an assignment of user `userIndex` of `mac` for `person` with `insert` (given the person's id and the
    /// span's start, where the index's last assignment ended), then releases the readings it holds. Returns how many.
    private static func open(
        _ mac: MACAddress, _ userIndex: UInt8, for person: String, _ db: Database,
        insert: (_ person: Int64, _ since: Int64?) throws -> Void
    ) throws -> Int {
        let id = try existingPerson(person, db)
        if let holder = try String.fetchOne(
            db,
            sql: """
                SELECT person.name FROM assignment JOIN person ON person.id = assignment.person_id
                WHERE assignment.device_mac = ? AND assignment.user_index = ? AND until IS NULL
                """, arguments: [mac.description, userIndex])
        {
            throw StoreError(.failed, "user \(userIndex) of \(mac) is assigned to \(holder) already: unassign it first")
        }
        let since = try Int64.fetchOne(
            db, sql: "SELECT MAX(until) FROM assignment WHERE device_mac = ? AND user_index = ?",
            arguments: [mac.description, userIndex])
        try insert(id, since)
        try VitalStore.requeueAttributed(db)
        // released: new to the change feed, in the order they were stored
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO feed (reading_id, op) SELECT reading.id, \(FeedOperation.insert.rawValue)
                FROM reading JOIN assignment ON \(VitalStore.holdsReading)
                WHERE assignment.device_mac = ? AND assignment.user_index = ? AND assignment.until IS NULL
                    AND reading.deleted_at IS NULL ORDER BY reading.id
                """, arguments: [mac.description, userIndex])
        return try count(of: mac, userIndex, db)
    }

    /// Deletes from the change feed, as back in quarantine, the readings of user `userIndex` of `mac` that no
    /// assignment holds now and the feed has not deleted.
    private static func feedQuarantined(_ mac: MACAddress, _ userIndex: UInt8, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO feed (reading_id, op, reason)
                SELECT id, \(FeedOperation.delete.rawValue), ? FROM reading
                WHERE device_mac = ? AND user_index = ? AND deleted_at IS NULL AND \(VitalStore.quarantined)
                    AND NOT EXISTS (SELECT 1 FROM feed WHERE feed.reading_id = reading.id
                        AND feed.op = \(FeedOperation.delete.rawValue))
                ORDER BY id
                """, arguments: [ReadingChange.quarantineReason, mac.description, userIndex])
    }

    /// How many readings the open assignment of user `userIndex` of `mac` holds, not deleted.
    private static func count(of mac: MACAddress, _ userIndex: UInt8, _ db: Database) throws -> Int {
        try Int.fetchOne(
            db,
            sql: """
                SELECT COUNT(*) FROM reading JOIN assignment ON \(VitalStore.holdsReading)
                WHERE assignment.device_mac = ? AND assignment.user_index = ? AND assignment.until IS NULL
                    AND reading.deleted_at IS NULL
                """, arguments: [mac.description, userIndex])!
    }

    /// The profile in `row`'s columns `born`, `height_cm`, `sex` from position `start`, of the person `name`.
    private static func profile(of name: String, _ row: Row, from start: Int) throws -> PersonProfile {
        let born: String? = row[start]
        let sex: String? = row[start + 2]
        let profile = PersonProfile(
            born: born.flatMap { CalendarDate(parsing: $0) }, heightCentimetres: row[start + 1],
            sex: sex.flatMap(PersonSex.init(rawValue:)))
        guard (born == nil) == (profile.born == nil), (sex == nil) == (profile.sex == nil) else {
            throw StoreError(.corrupt, "the data of \(name) cannot be read")
        }
        return profile
    }

    /// The version of person `id`'s data a device has after the hub wrote version `written` there (the current when
    /// `nil`) or read `adopted` from it, which become the person's data unless these changed since `written`.
    private static func version(of id: Int64, written: Int?, adopting adopted: PersonProfile?, _ db: Database) throws
        -> Int
    {
        let current = try Int.fetchOne(db, sql: "SELECT profile_version FROM person WHERE id = ?", arguments: [id])!
        let written = written ?? current
        guard let adopted, written == current else { return written }
        return try setProfile(adopted, of: id, db)
    }

    /// Makes `profile` the data of person `id`, as their next version; returns that version.
    @discardableResult
    private static func setProfile(_ profile: PersonProfile, of id: Int64, _ db: Database) throws -> Int {
        try db.execute(
            sql:
                "UPDATE person SET born = ?, height_cm = ?, sex = ?, profile_version = profile_version + 1 WHERE id = ?",
            arguments: [profile.born?.description, profile.heightCentimetres, profile.sex?.rawValue, id])
        return try Int.fetchOne(db, sql: "SELECT profile_version FROM person WHERE id = ?", arguments: [id])!
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
