import Foundation
import LayeredProtocol
import Locking
import Testing
import VitalBridge
import VitalCore
import VitalDevices
import VitalSimulation
import VitalStore
import VitalTestSupport

/// A sink that keeps what a band pushed, item by item, then stores it: the witness of what the band sent.
final class WitnessBandSink: RecordSink {
    let sink: StoreSink
    let pushed = Locked<[BandItem]>([])

    init(_ sink: StoreSink) { self.sink = sink }

    func store(_ records: [DeviceRecord]) async throws { try await sink.store(records) }

    func storeDayItems(_ batch: DayItemBatch) async throws {
        try await sink.storeDayItems(batch)
        let items = try batch.items.map { try BandItem(storedBytes: $0.bytes) }
        pushed.withLock { $0 += items }
    }
}

/// The smartbands end to end in process: the simulated band's pushes, the driver's batches and acknowledgements,
/// and the store, which must hold every item exactly once whatever happens to the link.
@Suite("Smartbands: every pushed item kept once")
struct SmartbandTests {
    static let mac = MACAddress("004D3208D310")!
    static let start = Timestamp(parsing: "2026-11-20 12:00:00")!

    /// A Fit Pro 9614N that has recorded for `days` days when the world starts.
    static func band(days: Int, failures: FailureScript? = nil) -> FleetDevice {
        var device = FleetDevice(model: "FitPro9614N", mac: mac.description, failures: failures)
        device.recordingSince =
            Timestamp(secondsSince1970: start.secondsSince1970 - Int64(days) * 86_400)
            .description
        return device
    }

    /// Syncs the band of `world` into `store` in batches of `batchSize`; returns the driver's count.
    static func sync(_ world: SimulatedWorld, into sink: any RecordSink, batchSize: Int = SmartbandGATT.window)
        async throws -> Int
    {
        let connection = try await world.connect(to: mac)
        var driver = SmartbandDriver(
            entry: DeviceCatalog.entry(for: .fitPro9614N), connection: connection, clock: { world.clock.wallTime })
        driver.batchSize = batchSize
        do {
            let count = try await driver.sync(into: sink) { _ in }
            await connection.disconnect()
            return count
        } catch {
            await connection.disconnect()
            throw error
        }
    }

    /// The items `store` holds for the band, decoded, by day, kind and key.
    static func storedItems(_ store: VitalStore) throws -> [BandItem] {
        var items: [BandItem] = []
        try store.readings.forEachDayItem(device: mac) { items.append(try BandItem(storedBytes: $0.bytes)) }
        return items
    }

    /// The last of `pushed` for each day, kind and key, in the store's order: what the store must hold.
    static func latest(_ pushed: [BandItem]) -> [BandItem] {
        var latest: [String: BandItem] = [:]
        for item in pushed { latest["\(item.date!.daysSince1970)/\(item.kind)/\(item.key)"] = item }
        return latest.values.sorted { ($0.date!, $0.kind, $0.key) < ($1.date!, $1.kind, $1.key) }
    }

    @Test("today's totals reach the store dated: an undated batch is refused whole, nothing stored")
    func undatedTotals() async throws {
        let store = try VitalStore()
        let sink = StoreSink(store: store, device: Self.mac)
        let totals = BandTotals(steps: 100, calories: 4, distance: 70)
        let day = Self.start.day
        await #expect(throws: DeviceError.self) {
            try await sink.storeBandItems([.dayTotals(day, totals), .todayTotals(totals)])
        }
        #expect(try store.readings.all().isEmpty)
        try await sink.storeBandItems([.todayTotals(totals).dated(today: day)])
        #expect(try Self.storedItems(store) == [.dayTotals(day, totals)])
    }

    @Test("a month pushed (30 days × 24 heart-rate hours, sleep, sports) is stored exactly once, then nothing more")
    func month() async throws {
        let world = try SimulatedWorld(fleet: Fleet(devices: [Self.band(days: 30)]), start: Self.start)
        let store = try VitalStore()
        let witness = WitnessBandSink(StoreSink(store: store, device: Self.mac))
        let count = try await Self.sync(world, into: witness)
        let pushed = witness.pushed.withLock { $0 }
        #expect(count == pushed.count)
        // every completed hour of the 30 days, each night, each sport, each finished day's totals, and today's
        let hours = pushed.filter { if case .heartRate = $0 { true } else { false } }
        #expect(hours.count == 30 * 24)
        let minutes = hours.reduce(0) { total, item in
            guard case .heartRate(let hour) = item else { return total }
            return total + hour.minutes.compactMap { $0 }.count
        }
        #expect(minutes > 40_000 && minutes < 43_200)
        #expect(try Self.storedItems(store) == Self.latest(pushed))
        #expect(await world.deviceState(of: Self.mac)?.band?.pending.isEmpty == true)
        // one reading per day, today included; its summary is the day's items summed up
        let days = try store.readings.all(device: Self.mac)
        #expect(days.count == 31)
        let stored = try Self.storedItems(store)
        for day in days {
            guard case .band(let summary) = day.reading else {
                Issue.record("not a band day: \(day.reading)")
                continue
            }
            // the band's clock was read (and right): its days carry no mark
            let expected = BandDay(date: summary.date, items: stored.filter { $0.date == summary.date })
            #expect(summary == expected && summary.annotations.status.isEmpty)
        }
        // a second sync finds today's totals only: nothing stored twice, no day but today revised
        let before = try store.readings.all(device: Self.mac)
        #expect(try await Self.sync(world, into: witness) == 1)
        #expect(try store.readings.all(device: Self.mac).map(\.id) == before.map(\.id))
        #expect(try Self.storedItems(store) == stored)
    }

    @Test("with the link dropping at random points, resyncs end with the store a clean sync makes, nothing twice")
    func randomDrops() async throws {
        let reference = try VitalStore()
        let clean = try SimulatedWorld(fleet: Fleet(devices: [Self.band(days: 10)]), start: Self.start)
        _ = try await Self.sync(clean, into: StoreSink(store: reference, device: Self.mac))
        var random = SystemRandomNumberGenerator()
        let seed = UInt64.random(in: 0...UInt64.max, using: &random)
        var generator = SeededGenerator(seed: seed)
        let store = try VitalStore()
        var state: WorldState?
        var drops = 0
        for _ in 0..<40 {
            // a new world from what the band remembers, its link dropping after a random number of items; batches of
            // 64, so that a link that holds for fewer than 512 items still gets some acknowledged
            let after = Int.random(in: 0...120, using: &generator)
            let fleet = Fleet(devices: [Self.band(days: 10, failures: FailureScript(disconnectAfter: after))])
            state?.devices[Self.mac.description]?.spentFailures = []
            let world = try SimulatedWorld(fleet: fleet, state: state, start: Self.start)
            do {
                _ = try await Self.sync(world, into: StoreSink(store: store, device: Self.mac), batchSize: 64)
                state = await world.state()
                if await world.deviceState(of: Self.mac)?.band?.pending.isEmpty == true { break }
            } catch let error as DeviceError {
                #expect(error.code == .disconnected, "seed \(seed)")
                drops += 1
                state = await world.state()
            }
        }
        #expect(drops > 0, "seed \(seed)")
        #expect(state?.devices[Self.mac.description]?.band?.pending.isEmpty == true, "seed \(seed)")
        #expect(try Self.storedItems(store) == Self.storedItems(reference), "seed \(seed)")
        #expect(
            try store.readings.all(device: Self.mac).map(\.reading)
                == reference.readings.all(device: Self.mac).map(\.reading))
        #expect(try store.readings.all(device: Self.mac).count == 11)
    }

    @Test("a layered sync of a month answers a day per object within the URL budget, the rest counted in remaining")
    func layeredSync() async throws {
        let engine = try Engine([Self.band(days: 30)], budget: 8_000)
        var days: [String] = []
        var answered: [ResultObject] = []
        let url = "ihealth-layer://?cmd=2&devicemodel=700&mac=\(Self.mac)&unit=9&ver=100&scheme=vitalbridge-demo"
        for round in 0..<10 {
            let callback = try await engine.callback(url)
            #expect(callback.status == .success(.sync), "\(callback.reason?.rawValue ?? "")")
            guard case .list(let objects)? = callback.result else { break }
            // 5 of the 31 days fit the first 8,000 characters (each of its two sports with its steps and distance,
            // the noon one with its detail; its totals of each sport and its night's segments)
            if round == 0 { #expect(callback.remaining == 26) }
            days += objects.map { $0.string(.time) ?? "?" }
            answered += objects
            guard callback.remaining != nil else { break }
        }
        #expect(days.count == 31 && Set(days).count == 31)
        #expect(days == days.sorted())
        // each day as the store keeps it, its distance in miles (unit 9): its activity and its sport sessions
        #expect(
            answered == (try engine.store.readings.all(device: Self.mac).map { $0.reading.resultObject(unit: .mile) }))
    }

    @Test("following: each hour and each sport is stored as it is pushed; cancelled, nothing acknowledged is lost")
    func follow() async throws {
        let world = try SimulatedWorld(fleet: Fleet(devices: [Self.band(days: 1)]), start: Self.start)
        let store = try VitalStore()
        let witness = WitnessBandSink(StoreSink(store: store, device: Self.mac))
        let connection = try await world.connect(to: Self.mac)
        let driver = SmartbandDriver(
            entry: DeviceCatalog.entry(for: .fitPro9614N), connection: connection, clock: { world.clock.wallTime })
        let end = Timestamp(secondsSince1970: Self.start.secondsSince1970 + 2 * 86_400)
        let following = Task {
            try await driver.follow(into: witness) { _ in
            } stored: { _ in
                if world.clock.wallTime >= end { withUnsafeCurrentTask { $0?.cancel() } }
            }
        }
        guard case .failure(let error as DeviceError) = await following.result else {
            Issue.record("following ended without a device error")
            return
        }
        #expect(error.code == .cancelled)
        #expect(world.clock.wallTime >= end)
        let state = await world.deviceState(of: Self.mac)?.band
        #expect(state?.sportData == true && state?.hourlyHeartRate == true)
        // everything the band forgot is stored; what it still holds, it will send again
        let acknowledged = witness.pushed.withLock { $0 }
        #expect(try Self.storedItems(store) == Self.latest(acknowledged))
        await connection.disconnect()
        _ = try await Self.sync(world, into: witness)
        let hours = try Self.storedItems(store).filter { if case .heartRate = $0 { true } else { false } }
        // a day before the start and two after it, every hour, pushed as it completed
        #expect(hours.count == 3 * 24)
        #expect(try store.readings.all(device: Self.mac).count == 4)
    }
}

/// The heart-rate sensor (905) in process: its simulated beats, and what a recording keeps.
@Suite("Heart-rate sensor: beats as they come")
struct HeartRateSensorTests {
    static let mac = MACAddress("004D3208D313")!

    static func record(seconds: Int, seed: UInt64? = nil, failures: FailureScript? = nil) async throws
        -> (HeartRateReading, SimulatedWorld)
    {
        let device = FleetDevice(model: "HRS", mac: mac.description, seed: seed, failures: failures)
        let world = try SimulatedWorld(fleet: Fleet(devices: [device]), start: SmartbandTests.start)
        let connection = try await world.connect(to: mac)
        let driver = HeartRateDriver(
            entry: DeviceCatalog.entry(for: .heartRateSensor), connection: connection, clock: { world.clock.wallTime })
        let reading = try await driver.record(seconds: seconds)
        await connection.disconnect()
        return (reading, world)
    }

    @Test("five minutes of a resting heart: an interval a beat, the time they add up to, RSA and a few ectopics")
    func fiveMinutes() async throws {
        let (reading, world) = try await Self.record(seconds: 300, seed: 11)
        let total = reading.rrIntervals.reduce(0, +) / 1_000
        #expect(total >= 300 && total < 302)
        #expect(world.clock.wallTime.secondsSince1970 - SmartbandTests.start.secondsSince1970 == Int64(total))
        #expect(reading.rrIntervals.allSatisfy { (300...2_000).contains($0) })
        #expect((50...100).contains(reading.heartRate))
        let figures = HRVFigures(rr: reading.rrIntervals)
        // the ectopic beats are what the artefact rule rejects
        #expect(figures.rejected > 0 && figures.rejected < reading.rrIntervals.count / 20)
        #expect((15...80).contains(figures.rmssd ?? 0) && (figures.power ?? 0) > 100)
        // the same seed, the same beats
        let (again, _) = try await Self.record(seconds: 300, seed: 11)
        #expect(again == reading)
        let (other, _) = try await Self.record(seconds: 300, seed: 12)
        #expect(other.rrIntervals != reading.rrIntervals)
    }

    @Test("a measurement records 30 s and is stored before it is returned; a dropped link is an error")
    func measurement() async throws {
        let engine = try Engine([FleetDevice(model: "HRS", mac: Self.mac.description)])
        let callback = try await engine.callback(
            "ihealth-layer://?cmd=0&devicemodel=905&mac=\(Self.mac)&ver=100&scheme=vitalbridge-demo")
        guard case .list(let objects)? = callback.result, let object = objects.first else {
            Issue.record("no result: \(callback.reason?.rawValue ?? "")")
            return
        }
        let stored = try engine.store.readings.all(device: Self.mac)
        guard case .heartRate(let reading)? = stored.first?.reading else {
            Issue.record("no heart-rate reading stored")
            return
        }
        #expect(object.number(.heartRate) == FixedDecimal(reading.heartRate))
        #expect(reading.rrIntervals.reduce(0, +) >= 30_000 && reading.rrIntervals.reduce(0, +) < 32_000)
        await #expect(throws: DeviceError.self) {
            _ = try await Self.record(seconds: 300, failures: FailureScript(disconnectAfter: 10))
        }
    }
}
