import BlueZ
import DBus
import Foundation
import HealthGATT
import Locking
import SimulatedBlueZ
import TestRequirements
import Testing
import VitalCore
import VitalDevices
import VitalSimulation
import VitalTestSupport

/// A simulated world served as `org.bluez` on a private bus, and a BlueZ central on that bus.
struct BlueZBench {
    let bus: PrivateBus
    let world: SimulatedWorld
    let server: SimulatedBlueZ
    let central: BlueZCentral
    private let serving: Task<Void, Never>

    /// A bench serving `fleet` at `pace`, on `executor`: by default a thread of its own, so that it answers in time
    /// however busy the runtime's pool is (the tests that wait for a child process block its threads while they
    /// wait); `nil`, the pool.
    init(
        fleet: Fleet = .default, pace: Double = 0.001, executor: (any TaskExecutor)? = ThreadExecutor.shared
    ) async throws {
        bus = try PrivateBus()
        world = try SimulatedWorld(fleet: fleet, start: Timestamp(parsing: "2026-11-20 08:00:00")!)
        server = try await SimulatedBlueZ(world: world, bus: bus.address, pace: pace)
        let server = server
        serving = Task(executorPreference: executor) { try? await server.run() }
        central = BlueZCentral(
            bus: .address(bus.address), scanDuration: .milliseconds(300), connectTimeout: .seconds(5),
            logger: testLogger)
    }

    func stop() async {
        await central.close()
        await server.close()
        serving.cancel()
        bus.stop()
    }

    /// Runs `body` on a bench serving `fleet`, and stops the bench whatever `body` does: a bench left serving keeps
    /// its dbus-daemon, and the test process, alive.
    static func with<T>(fleet: Fleet = .default, _ body: (BlueZBench) async throws -> T) async throws -> T {
        let bench = try await BlueZBench(fleet: fleet)
        do {
            let result = try await body(bench)
            await bench.stop()
            return result
        } catch {
            await bench.stop()
            throw error
        }
    }
}

/// Keeps what a driver stores.
final class MemorySink: RecordSink, @unchecked Sendable {
    let records = Locked<[DeviceRecord]>([])
    func store(_ batch: [DeviceRecord]) async throws { records.withLock { $0 += batch } }
}

@Suite("BlueZCentral over a simulated BlueZ", .serialized, .needs(Requirement.bus))
struct BlueZCentralTests {
    static let bp5 = MACAddress("004D3208D2F4")!
    static let bg5 = MACAddress("004D3208D308")!
    static let hrs = MACAddress("004D3208D313")!

    @Test("the adapter is found, and a scan for a service hears exactly the devices that advertise it")
    func scan() async throws {
        try await BlueZBench.with { bench in
            let adapters = try await bench.central.adapters()
            #expect(adapters.map(\.name) == ["hci0"] && adapters[0].powered && adapters[0].central)
            var heard: [MACAddress: Advertisement] = [:]
            for await advertisement in bench.central.scan(for: [0x1810]) { heard[advertisement.mac] = advertisement }
            let expected = bench.world.configurations.filter { $0.entry.profile.serviceUUID == 0x1810 }.map(\.mac)
            #expect(Set(heard.keys) == Set(expected))
            #expect(heard[Self.bp5]?.localName == "BP5 D2F4" && heard[Self.bp5]?.isPaired == true)
            #expect(heard[Self.bp5]?.services == [0x1810])
        }
    }

    @Test("a push device's stored readings arrive through BlueZ, each stored before the next, none left behind")
    func pushSync() async throws {
        try await BlueZBench.with { bench in
            let stored = await bench.world.storedReadings(of: Self.bp5)
            #expect(stored.count == 5)
            let connection = try await bench.central.connect(to: Self.bp5)
            let driver = makeDriver(
                for: DeviceCatalog.entry(for: .bp5), connection: connection, clock: { Timestamp(Date()) })
            let sink = MemorySink()
            let count = try await driver.sync(into: sink) { _ in }
            await connection.disconnect()
            #expect(count == 5)
            #expect(sink.records.withLock { $0.map(\.reading) } == stored)
            #expect(await bench.world.storedReadings(of: Self.bp5).isEmpty)
        }
    }

    @Test("a Record Access Control Point device is read, then told to delete, through BlueZ")
    func racpSync() async throws {
        try await BlueZBench.with { bench in
            let stored = await bench.world.storedReadings(of: Self.bg5)
            let connection = try await bench.central.connect(to: Self.bg5)
            #expect(await connection.mtu >= 23)
            let driver = makeDriver(
                for: DeviceCatalog.entry(for: .bg5), connection: connection, clock: { Timestamp(Date()) })
            let info = try await driver.deviceInfo()
            #expect(info.serialNumber == "BG5-D308" && info.batteryLevel == 90)
            let sink = MemorySink()
            #expect(try await driver.sync(into: sink) { _ in } == stored.count)
            await connection.disconnect()
            #expect(sink.records.withLock { $0.map(\.reading) } == stored)
            #expect(await bench.world.storedReadings(of: Self.bg5).isEmpty)
        }
    }

    @Test("a heart-rate sensor's beats arrive as notifications")
    func heartRate() async throws {
        try await BlueZBench.with { bench in
            let connection = try await bench.central.connect(to: Self.hrs)
            try await connection.subscribe(GATTCharacteristics.heartRateMeasurement)
            var rates: [UInt16] = []
            for _ in 0..<20 {
                guard
                    case .notification(GATTCharacteristics.heartRateMeasurement, let bytes) =
                        try await connection.nextEvent()
                else { continue }
                rates.append(try HeartRateMeasurement(bytes: bytes).heartRate)
            }
            await connection.disconnect()
            #expect(rates.count == 20 && rates.allSatisfy { (40...120).contains($0) })
        }
    }

    @Test(
        "a link that drops mid-sync ends the driver with disconnected; what arrived is kept, the rest stays on the device"
    )
    func dropMidSync() async throws {
        var fleet = Fleet.default
        let index = fleet.devices.firstIndex { $0.mac == Self.bp5.description }!
        fleet.devices[index].failures = FailureScript(disconnectAfter: 2)
        try await BlueZBench.with(fleet: fleet) { bench in
            let stored = await bench.world.storedReadings(of: Self.bp5)
            let connection = try await bench.central.connect(to: Self.bp5)
            let driver = makeDriver(
                for: DeviceCatalog.entry(for: .bp5), connection: connection, clock: { Timestamp(Date()) })
            let sink = MemorySink()
            let error = await #expect(throws: DeviceError.self) { try await driver.sync(into: sink) { _ in } }
            #expect(error?.code == .disconnected)
            #expect(sink.records.withLock { $0.map(\.reading) } == Array(stored.prefix(2)))
            #expect(await bench.world.storedReadings(of: Self.bp5) == Array(stored.dropFirst(2)))
        }
    }

    @Test("a Connect the device never answers ends at once when its task is cancelled (a SIGTERM to serve)")
    func cancelledConnect() async throws {
        var fleet = Fleet.default
        let index = fleet.devices.firstIndex { $0.mac == Self.bp5.description }!
        fleet.devices[index].failures = FailureScript(connectUnanswered: true)
        try await BlueZBench.with(fleet: fleet) { bench in
            let central = bench.central
            let connecting = Task { try await central.connect(to: Self.bp5) }
            // the simulated BlueZ took the Connect: it spent the failure, and answers in 20 s
            while await bench.world.deviceState(of: Self.bp5)?.spentFailures.contains("connectUnanswered") != true {
                try await Task.sleep(for: .milliseconds(10))
            }
            let clock = ContinuousClock()
            let cancelled = clock.now
            connecting.cancel()
            let error = await #expect(throws: DeviceError.self) { try await connecting.value }
            #expect(error?.code == .cancelled, "\(String(describing: error))")
            #expect(clock.now - cancelled < .seconds(2))
            // the failure is spent: the device answers the next attempt
            let connection = try await central.connect(to: Self.bp5)
            await connection.disconnect()
        }
    }

    @Test("BlueZ restarting is survived: its links end, and what it serves again is heard and connected")
    func blueZRestarts() async throws {
        try await BlueZBench.with { bench in
            var heard = Set<MACAddress>()
            for await advertisement in bench.central.scan(for: [0x1810]) { heard.insert(advertisement.mac) }
            #expect(heard.contains(Self.bp5))
            let connection = try await bench.central.connect(to: Self.bg5)
            await bench.server.close()
            // the link went with bluetoothd
            let gone = await #expect(throws: DeviceError.self) {
                try await connection.read(GATTCharacteristics.batteryLevel)
            }
            #expect(gone?.code == .disconnected)
            // the old service's name is released as its connection closes, a moment later (seconds on a loaded
            // machine)
            var next: SimulatedBlueZ?
            for _ in 0..<1_000 where next == nil {
                next = try? await SimulatedBlueZ(world: bench.world, bus: bench.bus.address, pace: 0.001)
                if next == nil { try await Task.sleep(for: .milliseconds(20)) }
            }
            let restarted = try #require(next)
            let serving = Task(executorPreference: ThreadExecutor.shared) { try? await restarted.run() }
            defer {
                serving.cancel()
            }
            // the central hears the devices of the new bluetoothd, without being started again
            var again = Set<MACAddress>()
            for _ in 0..<100 where !again.contains(Self.bp5) {
                for await advertisement in bench.central.scan(for: [0x1810]) { again.insert(advertisement.mac) }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(again.contains(Self.bp5))
            let stored = await bench.world.storedReadings(of: Self.bp5)
            let reconnected = try await bench.central.connect(to: Self.bp5)
            let driver = makeDriver(
                for: DeviceCatalog.entry(for: .bp5), connection: reconnected, clock: { Timestamp(Date()) })
            let sink = MemorySink()
            #expect(try await driver.sync(into: sink) { _ in } == stored.count)
            await reconnected.disconnect()
            await restarted.close()
        }
    }

    @Test("a device out of range is not found; an unreachable bus is a connection failure")
    func notFound() async throws {
        var fleet = Fleet.default
        let index = fleet.devices.firstIndex { $0.mac == Self.bp5.description }!
        fleet.devices[index].inRange = false
        fleet.devices[index].paired = false
        try await BlueZBench.with(fleet: fleet) { bench in
            let missing = await #expect(throws: DeviceError.self) { try await bench.central.connect(to: Self.bp5) }
            #expect(missing?.code == .notFound)
        }
        let nowhere = BlueZCentral(bus: .address("unix:path=/nonexistent/bus"), logger: testLogger)
        let unreachable = await #expect(throws: DeviceError.self) { try await nowhere.connect(to: Self.bp5) }
        #expect(unreachable?.code == .connectionFailed)
    }
}
