import Foundation
import GRDB
import Testing
import VitalCore
import VitalTestSupport

@testable import VitalStore

/// A device the hub forgets (`devices remove`): what leaves with it, what stays, and what happens when it comes back.
@Suite("Forgetting a device")
struct ForgetDeviceTests {
    static let monitor = MACAddress("004D3208D2F4")!
    static let meter = MACAddress("004D3208D308")!
    static let delivered = "org.example.delivered"
    static let asked = "org.example.asked"
    static let added = Timestamp(secondsSince1970: 1_763_500_000)
    static let now = Timestamp(secondsSince1970: 1_763_600_000)

    static func pressure(_ systolic: Double, at minute: Int64) -> Reading {
        .bloodPressure(
            BloodPressureReading(
                systolic: systolic, diastolic: 80, measuredAt: Timestamp(secondsSince1970: 1_763_550_000 + minute * 60))
        )
    }

    /// The monitor's three readings: the same ones each time it sends them.
    static let sent = [pressure(120, at: 0), pressure(121, at: 1), pressure(122, at: 2)]

    /// A store knowing the monitor and the meter, each with readings: the monitor's all delivered to one caller, and
    /// pending for another that asked for it and was handed nothing.
    static func store() throws -> VitalStore {
        let store = try VitalStore()
        for (mac, model) in [(monitor, DeviceModel.bp5), (meter, .bg5)] {
            try store.saveDevice(StoredDevice(mac: mac, model: model, serialNumber: "S-\(mac)", addedAt: added))
        }
        try store.readings.store(sent, device: monitor)
        try store.readings.store(
            [.glucose(GlucoseReading(mgPerDeciliter: 99, measuredAt: added))], device: meter)
        #expect(try deliver(store, monitor, to: delivered).count == 3)
        #expect(try queued(store, monitor, asked, taking: false).count == 3)
        #expect(try queued(store, meter, asked, taking: false).count == 1)
        return store
    }

    /// Hands `caller` every pending reading of `device`, journaled: what a sync delivers.
    @discardableResult
    static func deliver(_ store: VitalStore, _ device: MACAddress, to caller: String) throws -> [Int64] {
        let owner = ReservationOwner(owner: "sync")
        let ids = try queued(store, device, caller, owner: owner)
        try store.journal.record(
            caller: caller, device: device, action: .layered(cmd: 2), status: 0, at: now, readingIDs: ids,
            remaining: 0, owner: owner)
        return ids
    }

    /// The readings pending for `caller` of `device`, reserved for `owner` when `taking`.
    static func queued(
        _ store: VitalStore, _ device: MACAddress, _ caller: String, owner: ReservationOwner = .init(owner: "probe"),
        taking: Bool = true
    ) throws -> [Int64] {
        try store.journal.reservePending(device: device, caller: caller, for: owner) { pending in
            var ids: [Int64] = []
            while let reading = try pending.next() { ids.append(reading.id) }
            return (ids, readingIDs: taking ? ids : [])
        }
    }

    /// The rows of `table` that name `device` in `column`.
    static func rows(_ store: VitalStore, _ table: String, _ column: String, _ device: MACAddress) throws -> Int {
        try store.file.database.read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM \(table) WHERE \(column) = ?", arguments: [device.description])!
        }
    }

    @Test(
        "the device and every caller's queue of it go in one transaction; its readings, journal, items and people stay")
    func forgets() throws {
        let store = try Self.store()
        try store.people.add("Mum")
        try store.people.assign(device: Self.monitor, userIndex: 1, to: "Mum")
        try store.readings.storeDayItems(
            [DayItem(date: CalendarDate(daysSince1970: 20_400), kind: 2, key: 0, bytes: [1])], device: Self.monitor
        ) { date, _ in
            .band(
                BandDay(
                    date: date, steps: 1, calories: 0, distance: 0, sleep: .init(deep: 0, light: 0, awake: 0),
                    heartRate: nil, sports: []))
        }
        let readings = try store.readingCount(device: Self.monitor)
        let journal = try store.journal.deliveries()
        let feed = try store.feed.end()

        let forgotten = try store.forgetDevice(Self.monitor, deletingReadings: nil, at: Self.now)
        #expect(forgotten.device.mac == Self.monitor && forgotten.device.serialNumber == "S-004D3208D2F4")
        #expect(forgotten.readings == readings && !forgotten.readingsDeleted)
        #expect(try store.device(Self.monitor) == nil)
        #expect(try store.devices().map(\.mac) == [Self.meter])
        // nothing of it is owed to anyone; the meter's queue is untouched
        #expect(try Self.rows(store, "pending", "device_mac", Self.monitor) == 0)
        #expect(try Self.rows(store, "pending_caller", "device_mac", Self.monitor) == 0)
        #expect(try Self.rows(store, "pending", "device_mac", Self.meter) == 1)
        // its readings, the journal, its items and whose its users are stay; the feed has nothing new
        #expect(try store.readings.all(device: Self.monitor).count == readings && readings == 4)
        #expect(try store.journal.deliveries() == journal)
        #expect(try store.readings.latestDayItem(device: Self.monitor) != nil)
        #expect(try store.people.all().first?.assignments.first?.device == Self.monitor)
        #expect(try store.feed.end() == feed)
    }

    @Test("with a reason, each reading not deleted yet is deleted as records delete deletes one, a change each")
    func deletesReadings() throws {
        let store = try Self.store()
        let ids = try store.readings.all(device: Self.monitor).map(\.id)
        try store.readings.delete(ids[0], reason: "cuff too loose", at: Self.added)
        let end = try store.feed.end()

        let forgotten = try store.forgetDevice(
            Self.monitor, deletingReadings: "device 004D3208D2F4 removed", at: Self.now)
        #expect(forgotten.readings == 2 && forgotten.readingsDeleted)
        #expect(try store.readings.all(device: Self.monitor).isEmpty)
        #expect(try store.readingCount(device: Self.monitor) == 0)
        let changes = try store.feed.changes(after: end, limit: 10)
        #expect(changes.map(\.readingID) == Array(ids.dropFirst()))
        #expect(changes.allSatisfy { $0.operation == .delete && $0.reason == "device 004D3208D2F4 removed" })
        // the reading deleted before keeps its own deletion; each deleted one stays in the file, marked
        let whole = try store.feed.changes(after: store.feed.start(), limit: 10)
        #expect(whole.first { $0.readingID == ids[0] }?.reason == "cuff too loose")
        let marked = try store.file.database.read { db in
            try Int64.fetchAll(
                db, sql: "SELECT deleted_at FROM reading WHERE device_mac = ? ORDER BY id",
                arguments: [Self.monitor.description])
        }
        #expect(marked == [Self.added.secondsSince1970, Self.now.secondsSince1970, Self.now.secondsSince1970])
        // the meter's reading is not the monitor's
        #expect(try store.readings.all(device: Self.meter).count == 1)
    }

    @Test(
        "added again and sending the same records, the device stores nothing twice, re-delivers nothing delivered, and a caller that never had its kept readings gets them once",
        arguments: [false, true])
    func addedAgain(deleting: Bool) throws {
        let store = try Self.store()
        try store.forgetDevice(
            Self.monitor, deletingReadings: deleting ? "device 004D3208D2F4 removed" : nil, at: Self.now)
        let end = try store.feed.end()
        // a request for it as for a device never added: stored again, then it sends what it holds
        try store.saveDevice(StoredDevice(mac: Self.monitor, model: .bp5, addedAt: Self.now))
        let ids = try store.readings.store(Self.sent, device: Self.monitor)
        #expect(Set(ids).count == 3 && ids.allSatisfy { $0 <= 3 }, "no reading stored twice")
        #expect(try store.feed.end() == end, "nothing new in the feed: no insert, no resurrection")
        #expect(try store.readings.all(device: Self.monitor).count == (deleting ? 0 : 3))
        #expect(try Self.deliver(store, Self.monitor, to: Self.delivered).isEmpty)
        let owed = try Self.deliver(store, Self.monitor, to: Self.asked)
        #expect(owed == (deleting ? [] : ids))
        #expect(try Self.deliver(store, Self.monitor, to: Self.asked).isEmpty)
    }

    @Test("a device the hub does not know, or a reason a deletion refuses, is an error naming it; nothing changes")
    func refusals() throws {
        let store = try Self.store()
        let stranger = MACAddress("004D3208D399")!
        #expect {
            try store.forgetDevice(stranger, deletingReadings: nil, at: Self.now)
        } throws: { ($0 as? StoreError)?.message.hasSuffix(": 004D3208D399 is not a device of this hub") == true }
        #expect {
            try store.forgetDevice(Self.monitor, deletingReadings: "two\nlines", at: Self.now)
        } throws: { "\($0)".contains("control character") }
        #expect(try store.device(Self.monitor) != nil && store.readingCount(device: Self.monitor) == 3)
        #expect(try Self.rows(store, "pending_caller", "device_mac", Self.monitor) == 2)
    }
}
