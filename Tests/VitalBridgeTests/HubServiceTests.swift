import Foundation
import LayeredProtocol
import Locking
import TestRequirements
import Testing
import VitalBridge
import VitalCore
import VitalDevices
import VitalSimulation
import VitalStore
import VitalTestSupport

/// The service in process: the built-in fleet's devices, on their presence schedules, each stored as a device of
/// the hub, an in-memory store, and the world's clock (with no pace unless given: its time runs at once).
struct Service {
    let world: SimulatedWorld
    let store: VitalStore
    let desk: DeviceDesk
    let events = Locked<[(time: Timestamp, event: ServiceEvent)]>([])

    static let start = Timestamp(parsing: "2026-11-20 06:59:00")!

    /// The devices of `fleet` (the built-in one) of `models`, `changed` to each as a test needs (a presence window,
    /// failures).
    init(
        _ models: [DeviceModel], fleet: [FleetDevice] = Fleet.default.devices, pace: Double? = nil,
        leases: any DeviceLeases = LocalLeases(), store: VitalStore? = nil,
        changed: (inout FleetDevice) -> Void = { _ in }
    ) throws {
        var devices = fleet.filter { device in models.contains { $0.name == device.model } }
        for index in devices.indices { changed(&devices[index]) }
        world = try SimulatedWorld(fleet: Fleet(pace: pace, devices: devices), start: Self.start)
        self.store = try store ?? VitalStore()
        for device in devices {
            try self.store.saveDevice(
                StoredDevice(
                    mac: MACAddress(device.mac)!, model: DeviceModel(modelString: device.model)!, addedAt: Self.start))
        }
        let clock = world.clock
        desk = DeviceDesk(
            store: self.store, central: world, leases: leases, clock: world.pacedClock, now: { clock.wallTime },
            logger: testLogger)
    }

    /// Runs the service until `seconds` of the world's time have passed; `heard` hears each event as it happens.
    ///
    /// In a world whose time runs at once the service pauses `scanPause` of it between its scans (the setting's is
    /// not used): 5 s unless a test needs finer, as a round costs the same real time whatever it covers (under
    /// ThreadSanitizer most of the suite's minutes went to rounds over empty hours), and every window these tests
    /// open lasts a minute or more.
    func run(
        seconds: Int64, settings: ServiceSettings = ServiceSettings(), scanPause: Duration = .seconds(5),
        sinks: SinkFollowing? = nil, heard: @escaping @Sendable (ServiceEvent) -> Void = { _ in }
    ) async throws {
        let (clock, events) = (world.clock, events)
        var settings = settings
        settings.settles = world.pace == nil
        if settings.settles { settings.scanPause = scanPause }
        try await HubService(desk: desk, settings: settings, sinks: sinks).run(
            until: Timestamp(secondsSince1970: clock.wallTime.secondsSince1970 + seconds)
        ) { event in
            events.withLock { $0.append((clock.wallTime, event)) }
            heard(event)
        }
    }

    /// Starts the service as ``run(seconds:settings:sinks:)`` does, on a thread of its own
    /// (``startedOnTestThread(_:)``): what a test of its stopping measures is the service's answer.
    func started(seconds: Int64, sinks: SinkFollowing? = nil) -> Task<
        (result: Result<Void, any Error>, ended: ContinuousClock.Instant), Never
    > {
        startedOnTestThread { try await run(seconds: seconds, sinks: sinks) }
    }

    /// The times of the syncs of `mac`, with the records each stored and the clock offset each set.
    func syncs(of mac: MACAddress) -> [(time: Timestamp, stored: Int, clockSetFrom: Int64?)] {
        events.withLock { events in
            events.compactMap { entry in
                guard case .synced(mac, _, let sync) = entry.event else { return nil }
                return (entry.time, sync.stored, sync.clockSetFrom)
            }
        }
    }

    func count(where matches: (ServiceEvent) -> Bool) -> Int {
        times(of: matches).count
    }

    /// The world's times of the events that match.
    func times(of matches: (ServiceEvent) -> Bool) -> [Timestamp] {
        events.withLock { $0.filter { matches($0.event) }.map(\.time) }
    }

    static func mac(_ model: DeviceModel) -> MACAddress { Desk.mac(model) }
}

/// Leases that count how many devices are held at once.
final class CountingLeases: DeviceLeases {
    let state = Locked((now: 0, most: 0))

    func withLease<T: Sendable>(_ mac: MACAddress, _ body: @Sendable () async throws -> T) async throws -> T {
        state.withLock { state in
            state.now += 1
            state.most = max(state.most, state.now)
        }
        defer { state.withLock { $0.now -= 1 } }
        return try await body()
    }
}

@Suite("The hub as a service (serve), in process")
struct HubServiceTests {
    @Test("a scale seen one minute each morning is synced in that minute, and a meter in range all day at once")
    func appearsOnSchedule() async throws {
        let service = try Service([.bp5, .bg5]) { device in
            if device.model == "BP5" { device.presence = [PresenceScript(at: "07:00", seconds: 60)] }
        }
        try await service.run(seconds: 1_200)
        let monitor = service.syncs(of: Service.mac(.bp5))
        #expect(monitor.map(\.stored) == [5])
        let window = Timestamp(parsing: "2026-11-20 07:00:00")!.secondsSince1970
        #expect(monitor.allSatisfy { (window..<window + 60).contains($0.time.secondsSince1970) }, "\(monitor)")
        let meter = try #require(service.syncs(of: Service.mac(.bg5)).first)
        #expect(meter.stored == 5 && meter.time.secondsSince1970 < Service.start.secondsSince1970 + 10)
        #expect(try service.store.readings.all(device: Service.mac(.bp5)).count == 5)
    }

    @Test("a monitor that connects by itself is synced at once, each time it connects, period or not")
    func connectsByItself() async throws {
        let service = try Service([.bloodPressureMonitor]) { device in
            device.presence = [
                PresenceScript(at: "07:00", seconds: 60, connects: true),
                PresenceScript(at: "08:00", seconds: 60, connects: true),
            ]
        }
        try await service.run(seconds: 7_200, settings: ServiceSettings(period: .seconds(3 * 3_600)))
        let syncs = service.syncs(of: Service.mac(.bloodPressureMonitor))
        let windows = ["07:00:00", "08:00:00"].map { Timestamp(parsing: "2026-11-20 \($0)")!.secondsSince1970 }
        #expect(syncs.count == 2, "\(syncs)")
        for (sync, window) in zip(syncs, windows) {
            #expect((window..<window + 60).contains(sync.time.secondsSince1970), "\(syncs)")
        }
        #expect(syncs.first?.stored ?? 0 >= 5)
    }

    @Test("a device that stays in range is synced again each period, and no more often")
    func period() async throws {
        let service = try Service([.bg5])
        try await service.run(seconds: 3_600, settings: ServiceSettings(period: .seconds(900)))
        let syncs = service.syncs(of: Service.mac(.bg5))
        #expect(syncs.map(\.stored) == [5, 0, 0, 0])
        for (earlier, later) in zip(syncs, syncs.dropFirst()) {
            #expect(later.time.secondsSince1970 - earlier.time.secondsSince1970 >= 900)
        }
    }

    @Test("a caller gets what the service stored, once, as after a sync by open; its own sync then reads nothing twice")
    func callerGetsEachReadingOnce() async throws {
        let service = try Service([.bp5])
        try await service.run(seconds: 60)
        #expect(service.syncs(of: Service.mac(.bp5)).map(\.stored) == [5])
        let handOff = RecordingHandOff()
        let bridge = Engine.bridge(
            world: service.world, store: service.store, user: ScriptedUser(), leases: LocalLeases(),
            handOff: handOff, owner: "caller")
        for expected in [5, 0] {
            _ = await bridge.handle(url: request(.sync, .bp5, Service.mac(.bp5).description), platform: .ios)
            let callback = try LayeredCallback(parsing: try #require(handOff.urls.withLock { $0.last }))
            #expect(callback.status == .success && (callback.result?.objects.count ?? 0) == expected)
        }
        #expect(try service.store.readings.all(device: Service.mac(.bp5)).count == 5)
    }

    @Test("a device that fails is tried again after the backoff, only then, and synced")
    func backoff() async throws {
        let service = try Service([.bg5]) { $0.failures = FailureScript(atConnect: true) }
        // scans every 0.5 s, so that a retry before the backoff's 5 s would be seen
        try await service.run(seconds: 120, scanPause: .milliseconds(500))
        let failures = service.events.withLock { events in
            events.compactMap { entry -> (Timestamp, Duration)? in
                guard case .failed(_, _, let retryIn) = entry.event else { return nil }
                return (entry.time, retryIn)
            }
        }
        #expect(failures.count == 1 && failures.first?.1 == ServiceSettings.firstBackoff)
        let syncs = service.syncs(of: Service.mac(.bg5))
        #expect(syncs.map(\.stored) == [5])
        #expect(syncs[0].time.secondsSince1970 - failures[0].0.secondsSince1970 >= 5)
    }

    @Test(
        "20 devices appearing at once for an hour, 4 connections: each connected in its window and synced once, nothing lost"
    )
    func twentyAtOnce() async throws {
        var devices = Fleet.default.devices.filter { device in
            let model = DeviceModel(modelString: device.model)!
            // the smartbands are followed; a heart-rate sensor, a BP3L and the wired BG1 keep no records
            return !model.isSmartband && DeviceCatalog.entry(for: model).storesRecords
        }
        for mac in ["004D3208D3FD", "004D3208D3FE", "004D3208D3FF"] {
            var twin = devices.first { $0.model == "BPS" }!
            twin.mac = mac
            devices.append(twin)
        }
        #expect(devices.count == 20)
        let models = devices.map { DeviceModel(modelString: $0.model)! }
        let service = try Service(models + [.bloodPressureMonitor], fleet: devices) { device in
            // the simulator's one clock runs on by each generic device's measurement after connecting (30 s and more)
            device.presence = [PresenceScript(at: "07:00", seconds: 3_600)]
        }
        var held: [MACAddress: Int] = [:]
        for device in devices {
            let mac = MACAddress(device.mac)!
            // the generic scale's users' weights stay on it: the hub consents as none of them
            held[mac] = await service.world.storedReadings(of: mac).count { reading in
                device.userData == nil || [nil, 255].contains(reading.annotations.userIndex)
            }
        }
        try await service.run(seconds: 4_000, settings: ServiceSettings(period: .seconds(7_200)))
        for device in devices {
            // a connection reaches a device only in its window: synced means connected then
            let mac = MACAddress(device.mac)!
            let syncs = service.syncs(of: mac)
            #expect(syncs.count == 1, "\(mac): \(syncs)")
            let stored = try service.store.readings.all(device: mac).count
            if DeviceModel(modelString: device.model)!.hasUserProfile {
                #expect(stored > 0, "\(mac)")
            } else {
                #expect(stored == held[mac], "\(mac): \(stored) stored of \(held[mac] ?? 0)")
            }
        }
    }

    @Test("a device low on battery is synced all the same, and the sync says so")
    func lowBattery() async throws {
        let service = try Service([.bloodPressureMonitor]) { $0.battery = 8 }
        try await service.run(seconds: 60)
        let synced = service.events.withLock {
            $0.compactMap { entry -> DeviceSync? in
                guard case .synced(_, _, let sync) = entry.event else { return nil }
                return sync
            }
        }
        #expect(synced.count == 1 && synced[0].battery == 8 && synced[0].stored == 5)
        #expect(
            ServiceEvent.synced(Service.mac(.bloodPressureMonitor), .bloodPressureMonitor, synced[0]).description
                == "004D3208D314 (BPS): synced, 5 new records; battery low (8 %)")
    }

    @Test(
        "a device that leaves mid-transfer is resumed on its next appearance: nothing lost, nothing doubled",
        // a push monitor and a Record Access Control Point meter, whose transfers drop after two records
        arguments: ["BP5", "BG5"])
    func resumedAfterDrop(model: String) async throws {
        let deviceModel = DeviceModel(modelString: model)!
        let service = try Service([deviceModel]) { device in
            device.failures = FailureScript(disconnectAfter: 2)
            device.presence = [PresenceScript(at: "07:00", seconds: 600), PresenceScript(at: "09:00", seconds: 600)]
        }
        let mac = Service.mac(deviceModel)
        let held = await service.world.storedReadings(of: mac)
        try await service.run(seconds: 2 * 3_600)
        let stored = try service.store.readings.all(device: mac).map(\.reading)
        #expect(service.count { if case .failed = $0 { true } else { false } } >= 1)
        #expect(stored.count == held.count && Set(stored.map(\.measuredAt)) == Set(held.map(\.measuredAt)), "\(model)")
    }

    @Test(
        "a device another process adds while the service waits is served from the next round, and one it forgets is no longer served"
    )
    func storeChangesWhileServing() async throws {
        let directory = try TemporaryDirectory("service-devices")
        defer { directory.remove() }
        let path = directory.path + "/vitalbridge.sqlite"
        // a sensor that keeps no records is left out at once: the service then only waits, writing nothing itself
        let service = try Service([.heartRateSensor, .bg5], store: try VitalStore(path: path))
        let meter = Service.mac(.bg5)
        // another process: `open` adding a device, `devices remove` forgetting one
        let other = try VitalStore(path: path)
        try other.forgetDevice(meter, deletingReadings: nil, at: Service.start)
        let added = Locked<Timestamp?>(nil)
        let clock = service.world.clock
        try await service.run(seconds: 3_600, settings: ServiceSettings(period: .seconds(600))) { event in
            switch event {
            case .skipped:
                added.withLock { $0 = clock.wallTime }
                try? other.saveDevice(StoredDevice(mac: meter, model: .bg5, addedAt: Service.start))
            case .synced(meter, _, _):
                try? other.forgetDevice(meter, deletingReadings: nil, at: Service.start)
            default: break
            }
        }
        let addedAt = try #require(added.withLock { $0 })
        // once: synced at the next round after it was added (5 s), and not again each period once forgotten (the
        // service's own commits of the sync move the version too: the forgetting is seen either way)
        let syncs = service.syncs(of: meter)
        #expect(syncs.count == 1 && syncs[0].stored == 5, "\(syncs)")
        #expect(
            syncs.allSatisfy { $0.time.secondsSince1970 - addedAt.secondsSince1970 <= 10 }, "\(syncs) after \(addedAt)")
        #expect(try service.store.readings.all(device: meter).count == 5)
    }

    @Test("a device that keeps no records is left out, said once")
    func skipsRecordless() async throws {
        let service = try Service([.heartRateSensor, .bg5])
        try await service.run(seconds: 3_600, settings: ServiceSettings(period: .seconds(60)))
        #expect(service.count { if case .skipped = $0 { true } else { false } } == 1)
        #expect(service.syncs(of: Service.mac(.bg5)).count >= 50)
    }

    @Test("with one connection, devices wait their turn: never two at once, each served")
    func oneAtATime() async throws {
        let leases = CountingLeases()
        let service = try Service([.bp5, .bg5, .po3, .hs4], leases: leases)
        try await service.run(seconds: 60, settings: ServiceSettings(connections: 1))
        for model in [DeviceModel.bp5, .bg5, .po3, .hs4] {
            #expect(service.syncs(of: Service.mac(model)).count == 1, "\(model)")
        }
        #expect(leases.state.withLock { $0.most } == 1)
    }

    @Test("a smartband in range is followed: what it pushes is stored until the service ends")
    func followsBand() async throws {
        let service = try Service([.fitPro9614N])
        try await service.run(seconds: 3 * 3_600)
        #expect(service.count { if case .band(_, .stored) = $0 { true } else { false } } >= 1)
        #expect(try !service.store.readings.all(device: Service.mac(.fitPro9614N)).isEmpty)
    }

    @Test("a band out of range frees its connection for a monitor, and is followed again when it is back")
    func bandLeaves() async throws {
        let service = try Service([.fitPro9614N, .bp5]) { device in
            device.presence =
                device.model == "BP5"
                ? [PresenceScript(at: "08:00", seconds: 600)]
                : [PresenceScript(at: "07:00", seconds: 600), PresenceScript(at: "09:00", seconds: 600)]
        }
        try await service.run(seconds: 3 * 3_600, settings: ServiceSettings(connections: 1))
        let band = Service.mac(.fitPro9614N)
        let gaveUp = service.times { if case .band(band, .gaveUp) = $0 { true } else { false } }
        #expect(!gaveUp.isEmpty)
        let monitor = service.syncs(of: Service.mac(.bp5))
        #expect(monitor.map(\.stored) == [5], "\(monitor)")
        // followed again in its second window: it stored what it recorded meanwhile
        let nine = Timestamp(parsing: "2026-11-20 09:00:00")!
        let stored = service.times { if case .band(band, .stored) = $0 { true } else { false } }
        #expect(stored.contains { $0 >= nine }, "\(stored)")
    }

    @Test("what the service stores reaches the sinks")
    func pushesToSinks() async throws {
        let service = try Service([.bg5])
        try service.store.sinks.add(
            SinkRecord(name: "lab", address: "postgresql://hub@localhost/lab", addedAt: Service.start))
        let destination = MemoryDestination()
        let outbox = Outbox(store: service.store, now: { Service.start }, clock: ContinuousClock(), logger: testLogger)
        let sinks = SinkFollowing(
            outbox: outbox, sinks: try service.store.sinks.all(), connect: { _ in destination },
            poll: .milliseconds(10))
        let mac = Service.mac(.bg5)
        let serving = Task { try await service.run(seconds: 1_000_000, sinks: sinks) }
        // the sink has all five once they are stored and pushed (the store's feed is the sink's)
        for _ in 0..<500 where destination.state.withLock({ $0.rows.values.first?.count ?? 0 }) < 5 {
            try await Task.sleep(for: .milliseconds(10))
        }
        serving.cancel()
        try await serving.value
        #expect(destination.state.withLock { $0.rows.values.first?.count } == 5)
        #expect(try service.store.readings.all(device: mac).count == 5)
    }

    @Test("a newer release migrating the store ends the service, the sinks first, within moments", .needs(.python3))
    func stopsOnNewerSchema() async throws {
        let directory = try TemporaryDirectory("service-schema")
        defer { directory.remove() }
        let path = directory.file("vitalbridge.sqlite")
        let service = try Service([.bg5], pace: 60, store: try VitalStore(path: path))
        try service.store.sinks.add(
            SinkRecord(name: "lab", address: "postgresql://hub@localhost/lab", addedAt: Service.start))
        let outbox = Outbox(store: service.store, now: { Service.start }, clock: ContinuousClock(), logger: testLogger)
        let sinks = SinkFollowing(
            outbox: outbox, sinks: try service.store.sinks.all(), connect: { _ in MemoryDestination() },
            poll: .milliseconds(10))
        let serving = service.started(seconds: 1_000_000, sinks: sinks)
        while service.syncs(of: Service.mac(.bg5)).isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        let migrate = try migrateAsNewerRelease(path)
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let migrated = ContinuousClock.now
        let end = await serving.value
        #expect((end.result.error as? StoreError)?.code == .schema, "\(String(describing: end.result.error))")
        #expect(end.ended - migrated < .seconds(2))
    }

    @Test("cancelling the service (SIGTERM) ends it at once, a band followed in real time included")
    func cancels() async throws {
        let service = try Service([.bg5, .fitPro9614N], pace: 60)
        let serving = service.started(seconds: 1_000_000_000)
        while service.syncs(of: Service.mac(.bg5)).isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        let cancelled = ContinuousClock.now
        serving.cancel()
        let end = await serving.value
        #expect(end.result.error == nil, "\(String(describing: end.result.error))")
        #expect(end.ended - cancelled < .seconds(2))
    }
}
