import Testing
import VitalBridge
import VitalCore
import VitalDevices
import VitalSimulation
import VitalStore

/// A band's clock end to end in process: read on every link, what the band dated moved by its offset, the clock set
/// once what it sent is committed, a restarted clock's items kept and marked.
@Suite("A band's clock: read on each link, set when off, what it dated moved")
struct BandClockTests {
    static let mac = SmartbandTests.mac
    static let start = SmartbandTests.start

    /// A world whose Fit Pro 9614N recorded for 3 days with its clock `offset` seconds ahead, or restarted when it
    /// began recording; its link dropping after `dropAfter` items.
    static func world(offset: Int? = nil, reset: Bool = false, dropAfter: Int? = nil, state: WorldState? = nil)
        throws -> SimulatedWorld
    {
        var device = SmartbandTests.band(days: 3, failures: dropAfter.map { FailureScript(disconnectAfter: $0) })
        device.clockOffset = offset
        if reset {
            // restarted at 06:00: the band's days begin at the true 06:00, each the true day holding most of it
            device.clockReset = true
            device.recordingSince = "2026-11-17 06:00:00"
        }
        return try SimulatedWorld(fleet: Fleet(devices: [device]), state: state, start: start)
    }

    /// What the band holds now, as its clock dated it.
    static func held(_ world: SimulatedWorld) async -> [BandItem] {
        _ = await world.heldCount(of: mac)
        return await world.deviceState(of: mac)?.band?.pending.map(\.item) ?? []
    }

    /// Syncs the band once, the hub's clock `hubAhead` seconds ahead of the world's; returns what the link learned
    /// of the band's clock.
    static func sync(_ world: SimulatedWorld, into store: VitalStore, hubAhead: Int64 = 0) async throws
        -> BandClockReading
    {
        let connection = try await world.connect(to: mac)
        let hubClock: @Sendable () -> Timestamp = {
            Timestamp(secondsSince1970: world.clock.wallTime.secondsSince1970 + hubAhead)
        }
        var driver = SmartbandDriver(
            entry: DeviceCatalog.entry(for: .fitPro9614N), connection: connection, clock: hubClock)
        driver.batchSize = 64
        do {
            _ = try await driver.sync(into: StoreSink(store: store, device: mac)) { _ in }
            await connection.disconnect()
        } catch {
            await connection.disconnect()
            throw error
        }
        return try #require(driver.lastClockReading)
    }

    /// The statuses of the band's stored days.
    static func statuses(_ store: VitalStore) throws -> [ReadingStatus] {
        try store.readings.all(device: mac).map(\.reading.annotations.status)
    }

    @Test(
        "a clock off by hours or days: each item moved back by the offset, the days unmarked, the clock set once",
        arguments: [7_205, -7_205, -172_800])
    func off(offset: Int) async throws {
        let world = try Self.world(offset: offset)
        let raw = await Self.held(world)
        let store = try VitalStore()
        let reading = try await Self.sync(world, into: store)
        #expect(abs(reading.offset - Int64(offset)) <= 1 && reading.wasSet && !reading.wasReset)
        // every item the band dated, moved back by the offset to the nearest minute, is stored (and today's totals)
        let minutes = Int((Double(offset) / 60).rounded())
        let expected = Set(SmartbandTests.latest(raw.map { $0.movedBack(byMinutes: minutes) }))
        let stored = try SmartbandTests.storedItems(store)
        #expect(expected.isSubset(of: Set(stored)) && stored.count - expected.count <= 1)
        #expect(expected.count > 3 * 24)
        #expect(try Self.statuses(store).allSatisfy(\.isEmpty))
        // the band's clock is the world's now; the next link finds it right and moves nothing
        let band = try #require(await world.deviceState(of: Self.mac)?.band)
        #expect(band.clockOffset.magnitude <= 1)
        world.clock.advance(by: .seconds(3 * 3_600))
        let later = await Self.held(world)
        #expect(!later.isEmpty)
        let again = try await Self.sync(world, into: store)
        #expect(!again.needsSetting && !again.wasSet)
        #expect(Set(SmartbandTests.latest(later)).isSubset(of: Set(try SmartbandTests.storedItems(store))))
    }

    @Test("within 2 s the clock is left alone and nothing moves; 3 s off, it is set")
    func tolerance() async throws {
        for (offset, set) in [(2, false), (-2, false), (3, true), (-3, true)] {
            let world = try Self.world(offset: offset)
            let raw = await Self.held(world)
            let store = try VitalStore()
            let reading = try await Self.sync(world, into: store)
            #expect(reading.wasSet == set, "\(offset) s")
            #expect(await world.deviceState(of: Self.mac)?.band?.clockOffset == (set ? 0 : Int64(offset)))
            // under 30 s the nearest minute is 0: items keep the band's times
            #expect(Set(SmartbandTests.latest(raw)).isSubset(of: Set(try SmartbandTests.storedItems(store))))
        }
    }

    @Test("a clock that restarted when the band began recording: set, its items kept on their true days and marked")
    func restarted() async throws {
        let world = try Self.world(reset: true)
        let raw = await Self.held(world)
        #expect(raw.allSatisfy { $0.date.map { $0 < SmartbandGATT.earliestSetTime.day } ?? true })
        let store = try VitalStore()
        let reading = try await Self.sync(world, into: store)
        #expect(reading.wasReset && reading.wasSet && reading.bandTime < SmartbandGATT.earliestSetTime)
        let days = try store.readings.all(device: Self.mac)
        // the 3 days recorded and today, none lost, none in 2000
        #expect(days.count == 4)
        let first = Timestamp(secondsSince1970: Self.start.secondsSince1970 - 3 * 86_400).day
        #expect(days.allSatisfy { $0.reading.measuredAt.day >= first && $0.reading.measuredAt.day <= Self.start.day })
        #expect(days.allSatisfy { $0.reading.annotations.status == .deviceClockNotSet })
        // what the band records once set is dated by the right clock, the next link reads it right
        world.clock.advance(by: .seconds(3 * 3_600))
        let again = try await Self.sync(world, into: store)
        #expect(!again.wasReset && !again.needsSetting)
    }

    @Test(
        "links dropping mid-sync with the clock 2 h off, the hub's clock a second apart from link to link: every item moved alike, as one clean sync stores them",
        arguments: [7_200, 7_230, 7_170])
    func drops(offset: Int) async throws {
        let reference = try VitalStore()
        _ = try await Self.sync(try Self.world(offset: offset), into: reference)
        let store = try VitalStore()
        var state: WorldState?
        var drops = 0
        for (link, after) in [5, 40, 17, 90, 300, 1_000].enumerated() {
            state?.devices[Self.mac.description]?.spentFailures = []
            let world = try Self.world(offset: offset, dropAfter: after, state: state)
            do {
                // at 2 h 0 min 30 s, 1 s apart rounds to 120 or 121 minutes: the first link's minutes must hold
                let reading = try await Self.sync(world, into: store, hubAhead: Int64(link % 2))
                #expect(reading.wasSet)
                state = await world.state()
                break
            } catch let error as DeviceError {
                #expect(error.code == .disconnected)
                drops += 1
                state = await world.state()
                // the clock is set only once everything sent was committed: still 2 h off
                #expect(state?.devices[Self.mac.description]?.band?.clockOffset == Int64(offset))
            }
        }
        #expect(drops > 0)
        #expect(try SmartbandTests.storedItems(store) == SmartbandTests.storedItems(reference))
    }

    @Test("a band's day stored before the hub read band clocks keeps timeUnverified; items of a read clock do not")
    func olderItems() async throws {
        let store = try VitalStore()
        let sink = StoreSink(store: store, device: Self.mac)
        let day = Self.start.day
        let totals = BandTotals(steps: 100, calories: 4, distance: 70)
        try await sink.storeBandItems([.dayTotals(day, totals)])
        #expect(try Self.statuses(store) == [.timeUnverified])
        let read = BandItemDating(clockRead: true, clockWasReset: false, minutes: 0)
        let hour = BandHeartRateHour(date: day, hour: 3, minutes: Array(repeating: 60, count: 60))!
        try await sink.storeBandItems([.heartRate(hour)], dating: read)
        // the day holds an item of an unread clock still
        #expect(try Self.statuses(store) == [.timeUnverified])
        try await sink.storeBandItems([.dayTotals(day, totals)], dating: read)
        #expect(try Self.statuses(store) == [[]])
    }
}
