import Locking
import TestRequirements
import Testing
import VitalBridge
import VitalCore
import VitalDevices
import VitalSimulation
import VitalStore
import VitalTestSupport

/// A clock whose sleeps return at once, having moved its own virtual time on: it keeps every duration it was asked
/// to sleep. A cancelled task's sleep throws and is not kept.
final class RecordingClock: Clock, Sendable {
    typealias Instant = VirtualClock.Instant

    private let time = VirtualClock(start: SmartbandTests.start)
    private let recorded = Locked<[Duration]>([])

    var now: Instant { time.now }
    var minimumResolution: Duration { time.minimumResolution }

    /// The durations slept, in order.
    var slept: [Duration] { recorded.withLock { $0 } }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        recorded.withLock { $0.append(now.duration(to: deadline)) }
        try await time.sleep(until: deadline, tolerance: tolerance)
    }
}

/// A link to the simulated world that drops after the band sent `dropAfter` events on it.
struct DroppingConnection: BluetoothConnection {
    let base: any BluetoothConnection
    let dropAfter: Int
    private let received = Locked(0)

    init(base: any BluetoothConnection, dropAfter: Int) {
        self.base = base
        self.dropAfter = dropAfter
    }

    var peripheral: MACAddress { base.peripheral }
    var mtu: Int { get async { await base.mtu } }

    func read(_ characteristic: CharacteristicID) async throws(DeviceError) -> [UInt8] {
        try await base.read(characteristic)
    }

    func write(_ characteristic: CharacteristicID, _ value: [UInt8]) async throws(DeviceError) {
        try await base.write(characteristic, value)
    }

    func subscribe(_ characteristic: CharacteristicID) async throws(DeviceError) {
        try await base.subscribe(characteristic)
    }

    func nextEvent() async throws(DeviceError) -> GATTEvent {
        try await dropWhenDue()
        let event = try await base.nextEvent()
        received.withLock { $0 += 1 }
        return event
    }

    func nextEvent(within timeout: Duration) async throws(DeviceError) -> GATTEvent? {
        try await dropWhenDue()
        let event = try await base.nextEvent(within: timeout)
        if event != nil { received.withLock { $0 += 1 } }
        return event
    }

    func offers(_ characteristic: CharacteristicID) async -> Bool { await base.offers(characteristic) }

    func confirm(_ token: IndicationToken) async throws(DeviceError) { try await base.confirm(token) }

    func disconnect() async { await base.disconnect() }

    private func dropWhenDue() async throws(DeviceError) {
        guard received.withLock({ $0 }) >= dropAfter else { return }
        await base.disconnect()
        throw DeviceError(.disconnected, message: "the test dropped the link")
    }
}

/// The simulated world as a central whose connections follow a script, one step per connection: refused, or a link
/// that drops after so many events; once the script is spent, links that hold.
final class ScriptedCentral: BluetoothCentral {
    enum Step {
        case refuse
        case link(dropAfter: Int)
    }

    let world: SimulatedWorld
    private let steps: Locked<[Step]>

    init(_ world: SimulatedWorld, _ steps: [Step]) {
        self.world = world
        self.steps = Locked(steps)
    }

    func scan(for services: [UInt16]) -> AsyncStream<Advertisement> { world.scan(for: services) }

    func connect(to mac: MACAddress) async throws(DeviceError) -> any BluetoothConnection {
        let step = steps.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        switch step {
        case .refuse?:
            throw DeviceError(.connectionFailed, message: "the test refused the connection")
        case .link(let dropAfter)?:
            return DroppingConnection(base: try await world.connect(to: mac), dropAfter: dropAfter)
        case nil:
            return try await world.connect(to: mac)
        }
    }
}

/// What a follower reported, in order.
final class EventLog: Sendable {
    private let recorded = Locked<[BandFollowEvent]>([])

    func append(_ event: BandFollowEvent) { recorded.withLock { $0.append(event) } }
    var events: [BandFollowEvent] { recorded.withLock { $0 } }

    var storedCounts: [Int] { events.compactMap { if case .stored(let count, _) = $0 { count } else { nil } } }
    var batchSizes: [Int] { events.compactMap { if case .reconnected(let size) = $0 { size } else { nil } } }
    var drops: Int { events.filter { if case .linkDropped = $0 { true } else { false } }.count }
    var retries: [Duration] {
        events.compactMap { if case .reconnectFailed(_, let retryIn) = $0 { retryIn } else { nil } }
    }
}

/// A sink that checks, as each batch arrives, that the band still holds every item of it (nothing is acknowledged
/// before it is stored), then stores it and keeps it as the witness of what the band sent.
final class HeldCheckingSink: RecordSink {
    let world: SimulatedWorld
    let witness: WitnessBandSink
    /// Items of a batch the band had already forgotten when the batch reached the sink.
    let forgotten = Locked(0)

    init(_ world: SimulatedWorld, _ sink: StoreSink) {
        self.world = world
        witness = WitnessBandSink(sink)
    }

    func store(_ records: [DeviceRecord]) async throws { try await witness.store(records) }

    func storeDayItems(_ batch: DayItemBatch) async throws {
        let day = world.clock.wallTime.day
        let held =
            await world.deviceState(of: SmartbandTests.mac)?.band?.pending.map { $0.item.dated(today: day) } ?? []
        let items = try batch.items.map { try BandItem(storedBytes: $0.bytes) }
        forgotten.withLock { $0 += items.filter { !held.contains($0) }.count }
        try await witness.storeDayItems(batch)
    }
}

/// A sink that refuses everything.
struct RefusingSink: RecordSink {
    func store(_ records: [DeviceRecord]) async throws { throw DeviceError(.storeFailed, message: "refused") }
    func storeDayItems(_ batch: DayItemBatch) async throws { throw DeviceError(.storeFailed, message: "refused") }
}

/// The smartband follower in process: the simulated band, scripted drops and refusals, and a clock that records its
/// sleeps instead of sleeping.
@Suite("BandFollower: follows a band across drops, storing before acknowledging")
struct BandFollowerTests {
    static let mac = SmartbandTests.mac
    static let start = SmartbandTests.start

    static func world(days: Int) throws -> SimulatedWorld {
        try SimulatedWorld(fleet: Fleet(devices: [SmartbandTests.band(days: days)]), start: start)
    }

    static func hoursLater(_ hours: Int64) -> Timestamp {
        Timestamp(secondsSince1970: start.secondsSince1970 + hours * 3_600)
    }

    static func follower(
        _ world: SimulatedWorld, central: (any BluetoothCentral)? = nil, firstLink: (any BluetoothConnection)?,
        sink: any RecordSink, clock: any Clock<Duration> = RecordingClock()
    ) -> BandFollower {
        BandFollower(
            central: central ?? world, entry: DeviceCatalog.entry(for: .fitPro9614N), mac: mac, firstLink: firstLink,
            sink: sink, bandClock: { world.clock.wallTime }, clock: clock, logger: testLogger)
    }

    /// Whether some central holds a link to the band: a second connection is then refused.
    static func linked(_ world: SimulatedWorld) async -> Bool {
        do {
            try await world.connect(to: mac).disconnect()
            return false
        } catch {
            return error.code == .connectionFailed
        }
    }

    /// Runs `follower` in a task of its own, which `events` may cancel through the handle it is given.
    static func cancellable(
        _ follower: BandFollower, events: @escaping @Sendable (BandFollowEvent, Task<Int, any Error>) -> Void
    ) async throws -> Int {
        let handle = Locked<Task<Int, any Error>?>(nil)
        let (gate, open) = AsyncStream<Void>.makeStream()
        let task = Task {
            for await _ in gate { break }
            return try await follower.run { event in
                if let task = handle.withLock({ $0 }) { events(event, task) }
            }
        }
        handle.withLock { $0 = task }
        open.finish()
        return try await task.value
    }

    @Test("each batch is stored while the band still holds it, then acknowledged, then counted")
    func storedBeforeAcknowledged() async throws {
        let world = try Self.world(days: 2)
        let store = try VitalStore()
        let sink = HeldCheckingSink(world, StoreSink(store: store, device: Self.mac))
        let first = try await world.connect(to: Self.mac)
        let log = EventLog()
        let witnessed = Locked<[Int]>([])
        let total = try await Self.follower(world, firstLink: first, sink: sink).run(until: Self.hoursLater(6)) {
            if case .stored = $0 { witnessed.withLock { $0.append(sink.witness.pushed.withLock(\.count)) } }
            log.append($0)
        }
        let pushed = sink.witness.pushed.withLock { $0 }
        #expect(sink.forgotten.withLock { $0 } == 0)
        #expect(pushed.count > 48)
        // every count reported was in the store first; one link, so the last count is the total
        #expect(log.storedCounts.count > 3)
        #expect(zip(log.storedCounts, witnessed.withLock { $0 }).allSatisfy { $0 <= $1 })
        #expect(total == log.storedCounts.last && total == pushed.count)
        #expect(try SmartbandTests.storedItems(store) == SmartbandTests.latest(pushed))
        // the band forgot only what was stored
        let band = await world.deviceState(of: Self.mac)?.band
        #expect(band?.pending.isEmpty == true)
        await first.disconnect()
    }

    @Test(
        "a follower whose store a newer release migrated stops at its first batch: nothing stored, the band forgets nothing",
        .needs(.python3))
    func stopsOnNewerSchema() async throws {
        let directory = try TemporaryDirectory("band-schema")
        defer { directory.remove() }
        let path = directory.file("vitalbridge.sqlite")
        let world = try Self.world(days: 2)
        let store = try VitalStore(path: path)
        let migrate = try migrateAsNewerRelease(path)
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let first = try await world.connect(to: Self.mac)
        await #expect {
            try await Self.follower(world, firstLink: first, sink: StoreSink(store: store, device: Self.mac))
                .run(until: Self.hoursLater(6))
        } throws: { error in
            (error as? DeviceError)?.code == .storeFailed && "\(error)".contains("this process writes nothing more")
        }
        // what the band sent waits, unacknowledged, for a follower that can store it
        #expect(await world.deviceState(of: Self.mac)?.band?.pending.isEmpty == false)
        #expect(try store.readings.all().isEmpty)
        await first.disconnect()
    }

    @Test("a dropped link is reconnected with batches half as large each time, never below 16")
    func halvesBatches() async throws {
        let world = try Self.world(days: 3)
        let store = try VitalStore()
        let witness = WitnessBandSink(StoreSink(store: store, device: Self.mac))
        let central = ScriptedCentral(world, Array(repeating: .link(dropAfter: 40), count: 8))
        let first = try await central.connect(to: Self.mac)
        let clock = RecordingClock()
        let log = EventLog()
        let total = try await Self.follower(world, central: central, firstLink: first, sink: witness, clock: clock)
            .run(until: Self.hoursLater(48), events: log.append)
        #expect(log.drops == 8)
        #expect(log.batchSizes == [256, 128, 64, 32, 16, 16, 16, 16])
        #expect(clock.slept == Array(repeating: .milliseconds(500), count: 8))
        // the total counts what was acknowledged: each link's last count, summed
        var perLink: [Int] = []
        for event in log.events {
            switch event {
            case .reconnected: perLink.append(0)
            case .stored(let count, _):
                if perLink.isEmpty { perLink.append(count) } else { perLink[perLink.count - 1] = count }
            default: break
            }
        }
        // every item the band recorded from three days before the start to 48 hours after it (the simulated wearer's
        // hours, nights with their placed mark, noon exercises, evening sports and each sport's day totals),
        // acknowledged once
        #expect(total == perLink.reduce(0, +))
        #expect(total == 256)
        #expect(try SmartbandTests.storedItems(store) == SmartbandTests.latest(witness.pushed.withLock { $0 }))
        // the follower closed the link it made at the end; the first (dropped) one is the test's
        #expect(await !Self.linked(world))
        await first.disconnect()
    }

    @Test("while connecting fails the waits are 0.5, 1, 2, … 30 s, and 0.5 s again after a link holds")
    func backoff() async throws {
        let world = try Self.world(days: 1)
        let store = try VitalStore()
        let central = ScriptedCentral(
            world,
            [.link(dropAfter: 10)] + Array(repeating: .refuse, count: 9) + [.link(dropAfter: 10), .refuse])
        let first = try await central.connect(to: Self.mac)
        let clock = RecordingClock()
        let log = EventLog()
        _ = try await Self.follower(
            world, central: central, firstLink: first, sink: StoreSink(store: store, device: Self.mac), clock: clock
        )
        .run(until: Self.hoursLater(3), events: log.append)
        let seconds: [Double] = [0.5, 1, 2, 4, 8, 16, 30, 30, 30, 30, 0.5, 1]
        #expect(clock.slept == seconds.map { .milliseconds(Int($0 * 1_000)) })
        #expect(log.retries == [1, 2, 4, 8, 16, 30, 30, 30, 30, 1].map { .seconds($0) })
        #expect(log.drops == 2 && log.batchSizes == [256, 128])
        await first.disconnect()
    }

    @Test("cancelled, it stops at once with the total; it leaves the caller's link open")
    func cancelled() async throws {
        let world = try Self.world(days: 1)
        let store = try VitalStore()
        let first = try await world.connect(to: Self.mac)
        let follower = Self.follower(world, firstLink: first, sink: StoreSink(store: store, device: Self.mac))
        let log = EventLog()
        let total = try await Self.cancellable(follower) { event, task in
            log.append(event)
            if log.storedCounts.count == 5 { task.cancel() }
        }
        #expect(log.storedCounts.count == 5 && total == log.storedCounts.last)
        #expect(await Self.linked(world))
        await first.disconnect()
        #expect(await !Self.linked(world))
    }

    @Test("cancelled while it waits to reconnect, or on a link it made, it stops and closes its own link")
    func cancelledAfterDrops() async throws {
        // while connecting fails: it stops in its third wait
        let world = try Self.world(days: 1)
        let central = ScriptedCentral(world, [.link(dropAfter: 10)] + Array(repeating: .refuse, count: 10))
        let first = try await central.connect(to: Self.mac)
        let clock = RecordingClock()
        let store = try VitalStore()
        let follower = Self.follower(
            world, central: central, firstLink: first, sink: StoreSink(store: store, device: Self.mac), clock: clock)
        let log = EventLog()
        _ = try await Self.cancellable(follower) { event, task in
            log.append(event)
            if log.retries.count == 3 { task.cancel() }
        }
        #expect(clock.slept == [.milliseconds(500), .seconds(1), .seconds(2)])
        await first.disconnect()
        // on a link it made: closed when it stops
        let again = try Self.world(days: 1)
        let dropping = ScriptedCentral(again, [.link(dropAfter: 10)])
        let second = try await dropping.connect(to: Self.mac)
        let events = EventLog()
        let total = try await Self.cancellable(
            Self.follower(again, central: dropping, firstLink: second, sink: StoreSink(store: store, device: Self.mac))
        ) { event, task in
            events.append(event)
            if case .stored = event, !events.batchSizes.isEmpty { task.cancel() }
        }
        #expect(events.batchSizes == [256] && total == events.storedCounts.last)
        #expect(await !Self.linked(again))
        await second.disconnect()
    }

    @Test("the end of the band's clock stops it at the first commit after it, without cancelling its caller")
    func stopsAtEnd() async throws {
        for callerLink in [true, false] {
            let world = try Self.world(days: 1)
            let store = try VitalStore()
            let first = callerLink ? try await world.connect(to: Self.mac) : nil
            let log = EventLog()
            let end = Self.hoursLater(5)
            let total = try await Self.follower(
                world, firstLink: first, sink: StoreSink(store: store, device: Self.mac)
            )
            .run(until: end, events: log.append)
            #expect(!Task.isCancelled)
            let times = log.events.compactMap { if case .stored(_, let time) = $0 { time } else { nil } }
            #expect(times.last.map { $0 >= end } == true && times.dropLast().allSatisfy { $0 < end })
            #expect(world.clock.wallTime >= end && total == log.storedCounts.last)
            // a link it made it closed; the caller's it left open
            #expect(await Self.linked(world) == callerLink)
            await first?.disconnect()
            // every heart-rate hour of the day before and of the five hours, once
            let hours = try SmartbandTests.storedItems(store).compactMap { item -> Int64? in
                guard case .heartRate(let hour) = item else { return nil }
                return hour.date.daysSince1970 * 86_400 + Int64(hour.hour) * 3_600
            }
            let firstHour = Self.start.secondsSince1970 - 86_400
            #expect(hours == Array(stride(from: firstHour, to: end.secondsSince1970, by: 3_600)))
        }
    }

    @Test("across drops and refused connections nothing is lost or stored twice: the store a clean follow makes")
    func nothingLost() async throws {
        let world = try Self.world(days: 2)
        let store = try VitalStore()
        let central = ScriptedCentral(
            world,
            [
                .link(dropAfter: 25), .link(dropAfter: 7), .refuse, .link(dropAfter: 60), .link(dropAfter: 3),
                .refuse, .refuse, .link(dropAfter: 33), .link(dropAfter: 90), .link(dropAfter: 1),
            ])
        let first = try await central.connect(to: Self.mac)
        let log = EventLog()
        let witness = WitnessBandSink(StoreSink(store: store, device: Self.mac))
        _ = try await Self.follower(world, central: central, firstLink: first, sink: witness)
            .run(until: Self.hoursLater(10), events: log.append)
        #expect(log.drops == 7)
        await first.disconnect()
        let end = world.clock.wallTime
        // what the band still holds comes with a sync
        _ = try await SmartbandTests.sync(world, into: witness)
        #expect(await world.deviceState(of: Self.mac)?.band?.pending.isEmpty == true)
        // the same band followed to the same time without a drop, then synced
        let clean = try Self.world(days: 2)
        let reference = try VitalStore()
        let cleanFirst = try await clean.connect(to: Self.mac)
        _ = try await Self.follower(
            clean, firstLink: cleanFirst, sink: StoreSink(store: reference, device: Self.mac)
        )
        .run(until: end)
        await cleanFirst.disconnect()
        #expect(clean.clock.wallTime == end)
        _ = try await SmartbandTests.sync(clean, into: StoreSink(store: reference, device: Self.mac))
        let items = try SmartbandTests.storedItems(store)
        #expect(try items == SmartbandTests.storedItems(reference))
        #expect(items == SmartbandTests.latest(witness.pushed.withLock { $0 }))
        #expect(
            try store.readings.all(device: Self.mac).map(\.reading)
                == reference.readings.all(device: Self.mac).map(\.reading))
        #expect(try store.readings.all(device: Self.mac).count == 3)
    }

    @Test("an error other than a drop or a cancellation ends it with that error, its own link closed")
    func otherErrors() async throws {
        let world = try Self.world(days: 1)
        await #expect {
            _ = try await Self.follower(world, firstLink: nil, sink: RefusingSink()).run()
        } throws: { error in
            (error as? DeviceError)?.code == .storeFailed
        }
        #expect(await !Self.linked(world))
    }

    @Test("what band follow prints: a line for a commit, the wearer's button and a drop; nothing for a reconnection")
    func eventLines() {
        let time = Timestamp(secondsSince1970: 1_764_000_000)
        #expect(
            BandFollowEvent.stored(count: 4, bandTime: time).line == "stored 4 item(s) on this link, band time \(time)")
        #expect(BandFollowEvent.wearer(.findPhone).line == "the wearer pressed find-phone")
        #expect(BandFollowEvent.wearer(.takePicture).line == "the wearer took a picture")
        #expect(BandFollowEvent.linkDropped(message: "gone").line == "the link dropped (gone); reconnecting")
        #expect(BandFollowEvent.reconnected(batchSize: 16).line == nil)
        #expect(BandFollowEvent.reconnectFailed(message: "no", retryIn: .seconds(1)).line == nil)
    }
}
