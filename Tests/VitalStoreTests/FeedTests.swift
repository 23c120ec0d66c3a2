import Foundation
import GRDB
import Testing
import VitalCore
import VitalTestSupport

@testable import VitalStore

/// The change feed: every change to what the hub exports, in commit order, resumable from any place ever given.
@Suite("Change feed")
struct FeedTests {
    static let monitor = MACAddress("004D3208D40A")!
    static let scale = MACAddress("004D3208D40B")!

    static func glucose(_ minute: Int64, _ value: Double = 100) -> Reading {
        .glucose(
            GlucoseReading(
                mgPerDeciliter: value, measuredAt: Timestamp(secondsSince1970: 1_763_000_000 + minute * 60)))
    }

    /// A weight at minute `minute`, with a body composition when `fat` is given: the scale's two parts.
    static func weight(_ minute: Int64, fat: Double? = nil) -> Reading {
        .weight(
            WeightReading(
                kilograms: 70, measuredAt: Timestamp(secondsSince1970: 1_763_000_000 + minute * 60),
                bodyComposition: fat.map { BodyComposition(bodyFatPercentage: $0) }))
    }

    /// A weight completed by a later body composition of the same time: one reading (as a scale's parts are).
    static let completing = ReadingMerge(
        mayMerge: { $0.kind == .weight },
        merged: { new, stored in
            guard case .weight(var whole) = stored, case .weight(let part) = new, part.kilograms == whole.kilograms
            else { return nil }
            whole.bodyComposition = part.bodyComposition ?? whole.bodyComposition
            return .weight(whole)
        })

    static let now = Timestamp(secondsSince1970: 1_764_000_000)

    /// Every change after `cursor`, read in pages of `page`.
    static func all(_ store: VitalStore, after cursor: FeedCursor, page: Int = 1_000) throws -> [ReadingChange] {
        var changes: [ReadingChange] = []
        var cursor = cursor
        while true {
            let next = try store.feed.changes(after: cursor, limit: page)
            guard let last = next.last else { return changes }
            changes += next
            cursor.sequence = last.sequence
        }
    }

    @Test("a stored reading is an insert, a revision an update, a deletion a delete: the latest change of each")
    func operations() throws {
        let store = try VitalStore()
        let start = try store.feed.start()
        let ids = try store.readings.store([Self.glucose(1), Self.weight(2)], device: Self.monitor)
        var changes = try store.feed.changes(after: start, limit: 10)
        #expect(changes.map(\.operation) == [.insert, .insert])
        #expect(changes.map(\.readingID) == ids)
        #expect(changes.map(\.reading) == [Self.glucose(1), Self.weight(2)])
        #expect(changes[0].sequence < changes[1].sequence)
        let afterInserts = try store.feed.end()
        #expect(afterInserts.sequence == changes[1].sequence)
        // the scale's body composition completes the weight: an update of the same reading
        try store.readings.store([Self.weight(2, fat: 20)], device: Self.monitor, merging: Self.completing)
        changes = try store.feed.changes(after: afterInserts, limit: 10)
        #expect(changes.map(\.operation) == [.update] && changes[0].readingID == ids[1])
        #expect(changes[0].reading == Self.weight(2, fat: 20))
        // a reading the store has already changes nothing
        try store.readings.store([Self.glucose(1)], device: Self.monitor)
        #expect(try store.feed.end() == FeedCursor(hubID: start.hubID, sequence: changes[0].sequence))
        try store.readings.delete(ids[0], reason: "meter not calibrated", at: Self.now)
        changes = try Self.all(store, after: start)
        // the feed keeps each reading's latest change, in the order they were made
        #expect(changes.map(\.operation) == [.update, .delete])
        #expect(changes.map(\.readingID) == [ids[1], ids[0]])
        #expect(changes[1].reading == nil && changes[1].reason == "meter not calibrated")
        #expect(changes[0].sequence < changes[1].sequence)
    }

    @Test("a deleted reading is never delivered, exported, revised, nor brought back by its device sending it again")
    func deletion() throws {
        let store = try VitalStore()
        let ids = try store.readings.store([Self.glucose(1), Self.glucose(2), Self.weight(3)], device: Self.monitor)
        let pending = try store.journal.reservePending(
            device: Self.monitor, caller: "app", for: ReservationOwner(owner: "peek")
        ) { stream in (stream.count, readingIDs: []) }
        #expect(pending == 3)
        try store.readings.delete(ids[1], reason: "a test strip error", at: Self.now)
        try store.readings.delete(ids[2], reason: "someone else stood on the scale", at: Self.now)
        #expect(try store.readings.all().map(\.id) == [ids[0]])
        #expect(try store.journal.undelivered(device: Self.monitor, caller: "app").map(\.id) == [ids[0]])
        let left = try store.journal.reservePending(
            device: Self.monitor, caller: "app", for: ReservationOwner(owner: "peek")
        ) { stream in (stream.count, readingIDs: []) }
        #expect(left == 1)
        // sent again, completed by its other part: still deleted, and the feed hears nothing more
        let end = try store.feed.end()
        #expect(try store.readings.store([Self.glucose(2)], device: Self.monitor) == [ids[1]])
        #expect(
            try store.readings.store([Self.weight(3, fat: 25)], device: Self.monitor, merging: Self.completing) == [
                ids[2]
            ])
        #expect(try store.feed.end() == end)
        #expect(try store.readings.all().map(\.id) == [ids[0]])
        // a new caller's queue starts without them
        #expect(try store.journal.undelivered(device: Self.monitor, caller: "other").map(\.id) == [ids[0]])
    }

    @Test(
        "a deletion is refused naming what is wrong, and changes nothing",
        arguments: [
            (Int64(99), "typo", "the store has no reading 99"),
            (1, "", "a deletion needs a reason"),
            (1, "   ", "a deletion needs a reason"),
            (1, String(repeating: "x", count: 201), "at most 200 characters"),
            (1, "bad\nline", "cannot hold a control character"),
            (1, "bell\u{7}", "cannot hold a control character"),
        ])
    func refusedDeletion(id: Int64, reason: String, message: String) throws {
        let store = try VitalStore()
        try store.readings.store([Self.glucose(1)], device: Self.monitor)
        let end = try store.feed.end()
        #expect {
            try store.readings.delete(id, reason: reason, at: Self.now)
        } throws: { error in
            "\(error)".contains(message)
        }
        #expect(try store.readings.all().count == 1 && store.feed.end() == end)
    }

    @Test("deleting a reading twice is refused with when it was deleted")
    func deletedTwice() throws {
        let store = try VitalStore()
        let id = try store.readings.store([Self.glucose(1)], device: Self.monitor)[0]
        try store.readings.delete(id, reason: "wrong", at: Self.now)
        #expect {
            try store.readings.delete(id, reason: "again", at: Self.now)
        } throws: { error in
            "\(error)".contains("reading \(id) was deleted already, at \(Self.now) UTC")
        }
    }

    @Test("a quarantined reading enters the feed when released, with its person, and leaves it when unassigned")
    func quarantine() throws {
        let store = try VitalStore()
        let start = try store.feed.start()
        let held = Reading.weight(
            WeightReading(
                kilograms: 61, measuredAt: Timestamp(secondsSince1970: 1_763_000_000),
                annotations: ReadingAnnotations(userIndex: 2)))
        let id = try store.readings.store([held], device: Self.scale)[0]
        #expect(try store.feed.changes(after: start, limit: 10).isEmpty)
        try store.people.add("Ann")
        try store.people.assign(device: Self.scale, userIndex: 2, to: "Ann")
        var changes = try store.feed.changes(after: start, limit: 10)
        #expect(changes.count == 1 && changes[0].operation == .insert && changes[0].readingID == id)
        #expect(changes[0].person == "Ann" && changes[0].reading == held)
        // a new reading of an assigned index enters at once
        let next = Reading.weight(
            WeightReading(
                kilograms: 61.2, measuredAt: Timestamp(secondsSince1970: 1_763_086_400),
                annotations: ReadingAnnotations(userIndex: 2)))
        let nextID = try store.readings.store([next], device: Self.scale)[0]
        let released = try store.feed.end()
        #expect(try store.feed.changes(after: start, limit: 10).map(\.readingID) == [id, nextID])
        try store.people.unassign(device: Self.scale, userIndex: 2)
        changes = try store.feed.changes(after: released, limit: 10)
        #expect(changes.map(\.operation) == [.delete, .delete])
        #expect(changes.allSatisfy { $0.reason == ReadingChange.quarantineReason && $0.person == nil })
    }

    @Test("a cursor of another hub, or one ahead of the feed, is refused naming why")
    func foreignCursor() throws {
        let store = try VitalStore()
        try store.readings.store([Self.glucose(1)], device: Self.monitor)
        let end = try store.feed.end()
        let other = try VitalStore().feed.start()
        #expect {
            try store.feed.changes(after: other, limit: 10)
        } throws: { error in
            "\(error)".contains("is of another hub (\(other.hubID)); this home is \(end.hubID)")
        }
        #expect {
            try store.feed.changes(after: FeedCursor(hubID: end.hubID, sequence: end.sequence + 1), limit: 10)
        } throws: { error in
            "\(error)".contains("is ahead of this home's feed, which ends at \(end.sequence)")
        }
        #expect(try store.feed.changes(after: end, limit: 10).isEmpty)
    }

    /// A consumer's copy of the hub's exported readings, by identifier, built from the feed alone.
    struct Replica {
        var readings: [Int64: Reading] = [:]
        var cursor: FeedCursor

        mutating func follow(_ store: VitalStore, page: Int) throws {
            for change in try FeedTests.all(store, after: cursor, page: page) {
                switch change.operation {
                case .insert, .update: readings[change.readingID] = change.reading
                case .delete: readings[change.readingID] = nil
                }
                cursor.sequence = change.sequence
            }
        }
    }

    /// The hub's exported readings, by identifier.
    static func exported(_ store: VitalStore) throws -> [Int64: Reading] {
        Dictionary(uniqueKeysWithValues: try store.readings.all().map { ($0.id, $0.reading) })
    }

    @Test(
        "resumed from any cursor it gave, the feed brings a consumer to exactly the hub's readings",
        arguments: [1, 7, 500])
    func resume(page: Int) throws {
        var random = SeededGenerator(seed: UInt64(page))
        let store = try VitalStore()
        var replicas = [Replica(cursor: try store.feed.start())]
        var ids: [Int64] = []
        var minute: Int64 = 0
        for round in 0..<40 {
            // a consumer that stops here: it holds what the feed gave up to the end of the last round
            replicas.append(replicas[0])
            let count = Int.random(in: 1...20, using: &random)
            let batch = (0..<count).map { _ -> Reading in
                minute += 1
                return Bool.random(using: &random) ? Self.glucose(minute) : Self.weight(minute)
            }
            ids += try store.readings.store(batch, device: Self.monitor)
            // corrections of earlier weights, deletions of any reading
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                let id = ids.randomElement(using: &random)!
                guard let stored = try store.readings.all().first(where: { $0.id == id }) else { continue }
                if case .weight(let weight) = stored.reading, weight.bodyComposition == nil {
                    try store.readings.store(
                        [Self.weight((weight.measuredAt.secondsSince1970 - 1_763_000_000) / 60, fat: 22)],
                        device: Self.monitor, merging: Self.completing)
                } else {
                    try store.readings.delete(id, reason: "round \(round)", at: Self.now)
                }
            }
            // every consumer, each stopped at the end of a round, catches up
            for index in replicas.indices { try replicas[index].follow(store, page: page) }
            for replica in replicas { #expect(replica.readings == (try Self.exported(store))) }
        }
        #expect(replicas.allSatisfy { $0.cursor == replicas[0].cursor })
    }

    @Test("a page of the feed is read through its key, never by a scan")
    func queryPlan() throws {
        let store = try VitalStore()
        try store.readings.store([Self.glucose(1)], device: Self.monitor)
        let plan = try store.file.database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    EXPLAIN QUERY PLAN SELECT feed.seq FROM feed JOIN reading ON reading.id = feed.reading_id
                    LEFT JOIN assignment ON assignment.device_mac = reading.device_mac
                        AND assignment.user_index = reading.user_index
                    LEFT JOIN person ON person.id = assignment.person_id
                    WHERE feed.seq > 0 ORDER BY feed.seq LIMIT 1000
                    """
            ).map { $0["detail"] as String }
        }
        #expect(plan.first?.contains("SEARCH feed USING INTEGER PRIMARY KEY (rowid>?)") == true, "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN") || $0.contains("TEMP B-TREE") }, "\(plan)")
    }

    @Test("a store from before the feed gets one insert per reading, in the order they were stored")
    func migration() throws {
        let directory = try TemporaryDirectory("feed-migration")
        defer { directory.remove() }
        let path = directory.file("vitalbridge.sqlite")
        try FileManager.default.copyItem(
            atPath: Oracles.root.appendingPathComponent("Tests/Fixtures/home-0.14.0/vitalbridge.sqlite").path,
            toPath: path)
        let store = try VitalStore(path: path)
        let ids = try store.file.query("ids") { db in try Int64.fetchAll(db, sql: "SELECT id FROM reading ORDER BY id")
        }
        let rows = try store.file.query("feed") { db in
            try Row.fetchAll(db, sql: "SELECT reading_id, op FROM feed ORDER BY seq")
        }
        #expect(rows.map { $0[0] as Int64 } == ids && ids.count == 110)
        #expect(rows.allSatisfy { $0[1] as Int == 0 })
    }
}

/// The feed at the size of a long-lived hub.
@Suite("Change feed at scale")
struct FeedScaleTests {
    @Test(
        "a cursor resumed after 1,000,000 inserts, 10,000 deletions and 1,000 corrections yields exactly that difference"
    )
    func million() throws {
        // in memory: the 10,000 deletions are a commit each, which on a file would time the disk, not the feed
        let store = try VitalStore()
        let mac = MACAddress("004D3208D40C")!
        func weight(_ index: Int, fat: Double? = nil) -> Reading {
            .weight(
                WeightReading(
                    kilograms: 60 + Double(index % 400) / 10,
                    measuredAt: Timestamp(secondsSince1970: 1_400_000_000 + Int64(index) * 60),
                    bodyComposition: fat.map { BodyComposition(bodyFatPercentage: $0) }))
        }
        // a history before the cursor: 1,000 readings
        try store.readings.store((0..<1_000).map { weight($0) }, device: mac)
        let cursor = try store.feed.end()
        let before = try FeedTests.exported(store)
        let count = 100_000
        for batch in stride(from: 1_000, to: 1_000 + count, by: 20_000) {
            try store.readings.store((batch..<batch + 20_000).map { weight($0) }, device: mac)
        }
        // 10,000 deletions, of readings before and after the cursor; 1,000 corrections, likewise
        var random = SeededGenerator(seed: 36)
        var deleted = Set<Int64>()
        while deleted.count < 10_000 { deleted.insert(Int64.random(in: 1...Int64(1_000 + count), using: &random)) }
        for id in deleted { try store.readings.delete(id, reason: "scale test", at: FeedTests.now) }
        var corrected = Set<Int>()
        while corrected.count < 1_000 {
            let index = Int.random(in: 0..<(1_000 + count), using: &random)
            if !deleted.contains(Int64(index + 1)) { corrected.insert(index) }
        }
        try store.readings.store(corrected.map { weight($0, fat: 20) }, device: mac, merging: FeedTests.completing)
        // a consumer that had the history up to the cursor applies what follows it
        var replica = FeedTests.Replica(readings: before, cursor: cursor)
        var operations: [ReadingChange.Operation: Int] = [:]
        for change in try FeedTests.all(store, after: cursor, page: 10_000) {
            operations[change.operation, default: 0] += 1
            switch change.operation {
            case .insert, .update: replica.readings[change.readingID] = change.reading
            case .delete: replica.readings[change.readingID] = nil
            }
        }
        #expect(replica.readings == (try FeedTests.exported(store)))
        #expect(replica.readings.count == 1_000 + count - 10_000)
        // each reading's latest change once: the new ones' inserts (less those deleted or corrected since), every
        // deletion, and the corrections
        #expect(operations[.delete] == 10_000 && operations[.update] == 1_000)
        let newDeleted = deleted.filter { $0 > 1_000 }.count
        let newCorrected = corrected.filter { $0 >= 1_000 }.count
        #expect(operations[.insert] == count - newDeleted - newCorrected)
    }
}
