import Foundation
import GRDB
import Testing
import VitalCore
import VitalTestSupport

@testable import VitalStore

/// The `pending` queue a callback reads, checked against the journal it stands for, and the store's answers to rows
/// and files it cannot use.
@Suite("Pending queue and unreadable data")
struct PendingQueueTests {
    static let devices = [MACAddress("004D3208D2F4")!, MACAddress("004D3208D308")!]
    static let callers = ["org.example.a", "org.example.b", "org.example.c"]

    static func glucose(_ value: Int, at seconds: Int64) -> Reading {
        .glucose(GlucoseReading(mgPerDeciliter: Double(value), measuredAt: Timestamp(secondsSince1970: seconds)))
    }

    /// The pending readings of `caller` for `device` as a callback would take them: the queue, oldest first.
    static func queued(_ store: VitalStore, _ device: MACAddress, _ caller: String) throws -> (Int, [Int64]) {
        try store.journal.reservePending(device: device, caller: caller, for: ReservationOwner(owner: "probe")) {
            pending in
            var ids: [Int64] = []
            while let reading = try pending.next() { ids.append(reading.id) }
            return ((pending.count, ids), readingIDs: [])
        }
    }

    @Test("after any mix of stores, deliveries, reservations and releases, the queue is what the journal says")
    func queueAgreesWithJournal() throws {
        var random = SystemRandomNumberGenerator()
        let seed = UInt64.random(in: 0...UInt64.max, using: &random)
        var generator = SeededGenerator(seed: seed)
        let store = try VitalStore()
        var time: Int64 = 1_700_000_000
        for step in 0..<400 {
            let device = Self.devices.randomElement(using: &generator)!
            let caller = Self.callers.randomElement(using: &generator)!
            switch Int.random(in: 0...11, using: &generator) {
            case 0...3:
                // readings arrive out of time order, and sometimes again
                let readings = (0..<Int.random(in: 1...5, using: &generator)).map { _ in
                    Self.glucose(
                        Int.random(in: 60...70, using: &generator),
                        at: time - Int64.random(in: 0...50, using: &generator))
                }
                time += 7
                try store.readings.store(readings, device: device)
            case 4...6:
                let owner = ReservationOwner(owner: "owner\(step)")
                let ids = try store.journal.reservePending(device: device, caller: caller, for: owner) { pending in
                    var ids: [Int64] = []
                    let wanted = Int.random(in: 0...4, using: &generator)
                    while ids.count < wanted, let reading = try pending.next() { ids.append(reading.id) }
                    return (ids, readingIDs: ids)
                }
                if Bool.random(using: &generator) {
                    try store.journal.record(
                        caller: caller, device: device, action: .layered(cmd: 2), status: 0,
                        at: Timestamp(secondsSince1970: time),
                        readingIDs: ids, remaining: 0, owner: owner)
                } else {
                    try store.journal.releaseReservations(of: owner)
                }
            case 7:
                // delivered outside the queue: a re-send from a time, or a live reading
                let all = try store.readings.all(device: device)
                let some = all.filter { _ in Bool.random(using: &generator) }.map(\.id)
                try store.journal.record(
                    caller: caller, device: device, action: .layered(cmd: 2), status: 0,
                    at: Timestamp(secondsSince1970: time),
                    readingIDs: some, remaining: 0)
            case 10, 11:
                // a band's items: a day's summary is stored, or revised in place and pending again, or unchanged
                let items = (0..<Int.random(in: 1...3, using: &generator)).map { _ in
                    DayItem(
                        date: CalendarDate(daysSince1970: 20_000 + Int64.random(in: 0...2, using: &generator)), kind: 2,
                        key: Int.random(in: 0...2, using: &generator),
                        bytes: [UInt8.random(in: 0...3, using: &generator)])
                }
                try store.readings.storeDayItems(items, device: device, summarize: Self.summary)
            default:
                let owner = ReservationOwner(owner: "held\(step)")
                _ = try store.journal.reservePending(device: device, caller: caller, for: owner) { pending in
                    let first = try pending.next()
                    return ((), readingIDs: first.map { [$0.id] } ?? [])
                }
            }
            for device in Self.devices {
                for caller in Self.callers {
                    let expected = try store.journal.undelivered(device: device, caller: caller).map(\.id)
                    let (count, ids) = try Self.queued(store, device, caller)
                    #expect(ids == expected && count == expected.count, "seed \(seed), step \(step)")
                }
            }
        }
    }

    /// A day's summary for the tests: its steps are the sum of its items' bytes.
    static func summary(_ date: CalendarDate, _ items: [DayItem]) -> Reading {
        .band(
            BandDay(
                date: date, steps: items.reduce(0) { $0 + Int($1.bytes[0]) }, calories: items.count, distance: 0,
                sleep: .init(deep: 0, light: 0, awake: 0), heartRate: nil, sports: []))
    }

    @Test("a day revised after its delivery is pending again; one revised while reserved stays pending after")
    func revisedDays() throws {
        let store = try VitalStore()
        let device = Self.devices[0]
        let caller = Self.callers[0]
        let day = CalendarDate(daysSince1970: 20_400)
        func item(_ key: Int, _ value: UInt8) -> DayItem { DayItem(date: day, kind: 2, key: key, bytes: [value]) }
        func deliver(_ owner: String) throws -> [Int64] {
            let reservation = ReservationOwner(owner: owner)
            let ids = try store.journal.reservePending(device: device, caller: caller, for: reservation) { pending in
                var ids: [Int64] = []
                while let reading = try pending.next() { ids.append(reading.id) }
                return (ids, readingIDs: ids)
            }
            try store.journal.record(
                caller: caller, device: device, action: .layered(cmd: 2), status: 0, at: Timestamp(secondsSince1970: 0),
                readingIDs: ids, remaining: 0, owner: reservation)
            return ids
        }
        #expect(try store.readings.storeDayItems([item(1, 3)], device: device, summarize: Self.summary) == 1)
        let first = try deliver("a")
        let queued = try Self.queued(store, device, caller)
        #expect(first.count == 1 && queued.0 == 0)
        // the same item again changes nothing; a newer one replaces it: one row, revised, pending again
        #expect(try store.readings.storeDayItems([item(1, 3)], device: device, summarize: Self.summary) == 0)
        #expect(try store.readings.storeDayItems([item(1, 5)], device: device, summarize: Self.summary) == 1)
        #expect(try store.readings.all(device: device).map(\.id) == first)
        #expect(try store.readings.all(device: device).first?.reading == Self.summary(day, [item(1, 5)]))
        #expect(try Self.queued(store, device, caller).1 == first)
        #expect(try store.journal.undelivered(device: device, caller: caller).map(\.id) == first)
        // revised while a delivery of the older revision is in flight: still pending once that delivery is journaled
        let owner = ReservationOwner(owner: "b")
        let held = try store.journal.reservePending(device: device, caller: caller, for: owner) { pending in
            let reading = try pending.next()!
            return (reading.id, readingIDs: [reading.id])
        }
        try store.readings.storeDayItems([item(2, 1)], device: device, summarize: Self.summary)
        try store.journal.record(
            caller: caller, device: device, action: .layered(cmd: 2), status: 0, at: Timestamp(secondsSince1970: 0),
            readingIDs: [held], remaining: 0, owner: ReservationOwner(owner: "b"))
        #expect(try Self.queued(store, device, caller).1 == [held])
        #expect(try store.journal.undelivered(device: device, caller: caller).map(\.id) == [held])
        #expect(try deliver("c") == [held])
        #expect(try store.journal.undelivered(device: device, caller: caller).isEmpty)
        // the items are kept as they came, the newer replacing the older
        var items: [DayItem] = []
        try store.readings.forEachDayItem(device: device) { items.append($0) }
        #expect(items == [item(1, 5), item(2, 1)])
        #expect(try store.journal.deliveries().count == 3)
    }

    @Test("a callback's queries use the indexes: no scan of the readings of a device or of the journal")
    func queryPlans() throws {
        let store = try VitalStore()
        try store.readings.store(
            (0..<50).map { Self.glucose(60 + $0 % 10, at: 1_700_000_000 + Int64($0)) }, device: Self.devices[0])
        let plans = try store.explainPendingQueries(device: Self.devices[0], caller: Self.callers[0])
        for plan in plans {
            #expect(!plan.contains("SCAN"), "\(plan)")
        }
        #expect(plans.allSatisfy { $0.contains("SEARCH pending USING PRIMARY KEY") }, "\(plans)")
    }

    @Test("withReadings counts and reads one snapshot: a commit by another process in between is in neither")
    func readingsAreOneSnapshot() throws {
        let directory = try TemporaryDirectory("snapshot")
        defer { directory.remove() }
        let path = directory.file("vitalbridge.sqlite")
        let store = try VitalStore(path: path)
        let other = try VitalStore(path: path)
        let device = Self.devices[0]
        try store.readings.store([Self.glucose(90, at: 10), Self.glucose(91, at: 20)], device: device)
        let (count, read) = try store.readings.withDeliverable(
            device: device, since: Timestamp(secondsSince1970: 0), caller: "app"
        ) {
            stream in
            // counted already; another process commits a reading before the first row is read
            try other.readings.store([Self.glucose(92, at: 30)], device: device)
            var values: [Int64] = []
            while let reading = try stream.next() { values.append(reading.reading.measuredAt.secondsSince1970) }
            return (stream.count, values)
        }
        #expect(count == 2 && read == [10, 20], "counted \(count), read \(read)")
        #expect(try store.readings.all(device: device).count == 3)
    }

    @Test("devices and readings are one snapshot: a device and its reading another process adds between are in neither")
    func devicesAndReadingsAreOneSnapshot() throws {
        let directory = try TemporaryDirectory("snapshot")
        defer { directory.remove() }
        let path = directory.file("vitalbridge.sqlite")
        let store = try VitalStore(path: path)
        let other = try VitalStore(path: path)
        let at = Timestamp(secondsSince1970: 0)
        try store.saveDevice(StoredDevice(mac: Self.devices[0], model: .bg5, addedAt: at))
        try store.readings.store([Self.glucose(90, at: 10)], device: Self.devices[0])
        var listed: [MACAddress] = []
        var read: [MACAddress] = []
        try store.readings.forEach { devices in
            listed = devices.map(\.mac)
            // the devices are read; another process adds a device and its reading before the first reading is read
            try other.saveDevice(StoredDevice(mac: Self.devices[1], model: .bg5, addedAt: at))
            try other.readings.store([Self.glucose(91, at: 20)], device: Self.devices[1])
        } _: { stored in
            read.append(stored.device)
        }
        #expect(listed == [Self.devices[0]] && read == [Self.devices[0]], "listed \(listed), read \(read)")
        #expect(try store.readings.all().count == 2 && store.devices().count == 2)
    }

    @Test("a reading or device row the store cannot read is an error naming it, never skipped")
    func unreadableRows() throws {
        let directory = try TemporaryDirectory("pending")
        defer { directory.remove() }
        let path = directory.file("vitalbridge.sqlite")
        let store = try VitalStore(path: path)
        let ids = try store.readings.store([Self.glucose(90, at: 1), Self.glucose(91, at: 2)], device: Self.devices[0])
        try store.saveDevice(
            StoredDevice(mac: Self.devices[0], model: .bg5, addedAt: Timestamp(secondsSince1970: 0)))
        let raw = try DatabaseQueue(path: path)
        try raw.write { db in
            try db.execute(sql: "UPDATE reading SET kind = 'lactate' WHERE id = ?", arguments: [ids[1]])
            try db.execute(sql: "UPDATE reading SET mgdl = 'x' WHERE id = ?", arguments: [ids[0]])
            try db.execute(sql: "UPDATE device SET model = 999")
        }
        #expect(throws: StoreError.self) { try store.readings.all() }
        do {
            _ = try store.readings.all()
        } catch {
            #expect(error.code == .corrupt && error.message.contains("reading \(ids[0]) of 004D3208D2F4"))
        }
        // a body composition's quantity without its body fat is unreadable, not a weight without a composition
        try raw.write { db in
            try db.execute(
                sql: "UPDATE reading SET kind = 'weight', mgdl = NULL, kg = 70.0, water = 40.5 WHERE id = ?",
                arguments: [ids[0]])
        }
        do {
            _ = try store.readings.all()
            Issue.record("a composition without its body fat was read")
        } catch {
            #expect(error.code == .corrupt && error.message.contains("reading \(ids[0])"))
        }
        // a field that is there but not a number is an unreadable row too, not a missing value
        try raw.write { db in
            try db.execute(
                sql: "UPDATE reading SET kind = 'glucose', mgdl = 90, kg = NULL, water = NULL WHERE id = ?",
                arguments: [ids[0]])
            try db.execute(
                sql:
                    "UPDATE reading SET kind = 'blood_pressure', mgdl = NULL, sys = 120.0, dia = 80.0, hr = 'abc' WHERE id = ?",
                arguments: [ids[1]])
        }
        do {
            _ = try store.readings.all()
            Issue.record("an unreadable heart rate was read")
        } catch {
            #expect(error.code == .corrupt && error.message.contains("reading \(ids[1])"))
        }
        do {
            _ = try store.devices()
        } catch {
            #expect(error.code == .corrupt && error.message.contains("004D3208D2F4"))
        }
        #expect(throws: StoreError.self) { try store.device(Self.devices[0]) }
    }

    @Test("a store error says what kind of failure it is: foreign file, newer schema, busy")
    func errorCodes() throws {
        let directory = try TemporaryDirectory("codes")
        defer { directory.remove() }
        let foreign = directory.file("foreign.sqlite")
        try DatabaseQueue(path: foreign).write { db in try db.execute(sql: "CREATE TABLE notes (text TEXT)") }
        #expect { try VitalStore(path: foreign) } throws: { ($0 as? StoreError)?.code == .foreignFile }
        // a first open killed between the migrations table and the first migration's commit left that table alone
        // (a kill trial found it): the file is ours, and the next open finishes it
        let interrupted = directory.file("interrupted.sqlite")
        try DatabaseQueue(path: interrupted).write { db in
            try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        }
        let finished = try VitalStore(path: interrupted)
        try finished.readings.store([Self.glucose(90, at: 1)], device: Self.devices[0])
        #expect(try finished.readings.all().count == 1)

        let newer = directory.file("newer.sqlite")
        _ = try VitalStore(path: newer)
        try DatabaseQueue(path: newer).writeWithoutTransaction { db in try db.execute(sql: "PRAGMA user_version = 99") }
        #expect { try VitalStore(path: newer) } throws: { ($0 as? StoreError)?.code == .schema }

        let busy = directory.file("busy.sqlite")
        let store = try VitalStore(path: busy, busyTimeout: 0.1)
        var configuration = Configuration()
        configuration.busyMode = .immediateError
        let holder = try DatabaseQueue(path: busy, configuration: configuration)
        try holder.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            #expect {
                try store.readings.store([Self.glucose(90, at: 1)], device: Self.devices[0])
            } throws: { ($0 as? StoreError)?.code == .busy }
            try db.execute(sql: "ROLLBACK")
        }
    }
}
