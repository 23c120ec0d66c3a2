import Foundation
import Locking
import Testing
import VitalBridge
import VitalCore
import VitalDevices
import VitalSimulation
import VitalStore
import VitalTestSupport

/// Leases that say which way a device was held: `lease` or `forget`, with its MAC.
final class RecordingLeases: DeviceLeases {
    let held = Locked<[String]>([])

    func withLease<T: Sendable>(_ mac: MACAddress, _ body: @Sendable () async throws -> T) async throws -> T {
        held.withLock { $0.append("lease \(mac)") }
        return try await body()
    }

    func forgetting<T: Sendable>(_ mac: MACAddress, _ body: @Sendable () async throws -> T) async throws -> T {
        held.withLock { $0.append("forget \(mac)") }
        return try await body()
    }
}

@Suite("DeviceDesk: removing a device from the hub")
struct DeviceRemovalTests {
    static let monitor = MACAddress("004D3208D2F4")!

    /// A desk over a store that knows the monitor, with `readings` readings of it, holding devices with `leases`.
    static func desk(readings: Int, leases: any DeviceLeases) throws -> (DeviceDesk, VitalStore) {
        let store = try VitalStore()
        try store.saveDevice(StoredDevice(mac: monitor, model: .bp5, addedAt: Engine.start))
        try store.readings.store(
            (0..<readings).map { index in
                .bloodPressure(
                    BloodPressureReading(
                        systolic: Double(120 + index), diastolic: 80,
                        measuredAt: Timestamp(secondsSince1970: Engine.start.secondsSince1970 - Int64(index) * 60)))
            }, device: monitor)
        let world = try SimulatedWorld(fleet: Fleet(user: UserScript(), devices: []), start: Engine.start)
        let desk = DeviceDesk(
            store: store, central: world, leases: leases, clock: ContinuousClock(), now: { Engine.start },
            logger: testLogger)
        return (desk, store)
    }

    @Test("a device is forgotten under a lease that forgets it; its readings stay and nobody is asked")
    func keepsReadings() async throws {
        let leases = RecordingLeases()
        let (desk, store) = try Self.desk(readings: 2, leases: leases)
        let asked = Locked(0)
        let removed = try await desk.remove(Self.monitor, deletingReadings: false) { _ in
            asked.withLock { $0 += 1 }
            return false
        }
        #expect(removed.line == "removed 004D3208D2F4 (BP5); its 2 readings stay in the store")
        #expect(leases.held.withLock { $0 } == ["forget 004D3208D2F4"] && asked.withLock { $0 } == 0)
        #expect(try store.device(Self.monitor) == nil && store.readings.all().count == 2)
    }

    @Test("deleting its readings asks with their count: a no changes nothing, a yes deletes them with the reason")
    func confirmsDeletion() async throws {
        let (desk, store) = try Self.desk(readings: 3, leases: RecordingLeases())
        let counts = Locked<[Int]>([])
        do {
            _ = try await desk.remove(Self.monitor, deletingReadings: true) { count in
                counts.withLock { $0.append(count) }
                return false
            }
            Issue.record("removed without a confirmation")
        } catch {
            #expect(error.code == .declined && error.message.hasPrefix("004D3208D2F4 was not removed"))
        }
        #expect(try store.device(Self.monitor) != nil && store.readings.all().count == 3)
        let end = try store.feed.end()
        let removed = try await desk.remove(Self.monitor, deletingReadings: true) { count in
            counts.withLock { $0.append(count) }
            return true
        }
        #expect(counts.withLock { $0 } == [3, 3])
        #expect(removed.line == "removed 004D3208D2F4 (BP5) and deleted its 3 readings")
        let changes = try store.feed.changes(after: end, limit: 10)
        #expect(changes.count == 3 && changes.allSatisfy { $0.reason == "device 004D3208D2F4 removed" })
        #expect(try store.readings.all().isEmpty && store.device(Self.monitor) == nil)
    }

    @Test("a device without readings is removed without asking; one reading is said in the singular")
    func lines() async throws {
        let (desk, _) = try Self.desk(readings: 0, leases: RecordingLeases())
        let removed = try await desk.remove(Self.monitor, deletingReadings: true) { _ in false }
        #expect(removed.line == "removed 004D3208D2F4 (BP5); it had no readings")
        let one = ForgottenDevice(device: removed.device, readings: 1, readingsDeleted: false)
        #expect(one.line == "removed 004D3208D2F4 (BP5); its 1 reading stays in the store")
        #expect(
            ForgottenDevice(device: removed.device, readings: 1, readingsDeleted: true).line
                == "removed 004D3208D2F4 (BP5) and deleted its 1 reading")
    }

    @Test("a MAC the hub does not know takes no lease; a device another request holds is not removed")
    func refusals() async throws {
        let leases = RecordingLeases()
        let (desk, _) = try Self.desk(readings: 1, leases: leases)
        await #expect(throws: DeviceDeskError(.unknownDevice, "004D3208D399 is not a device of this hub")) {
            try await desk.remove(MACAddress("004D3208D399")!, deletingReadings: false) { _ in true }
        }
        #expect(leases.held.withLock { $0 }.isEmpty)
        let (busy, store) = try Self.desk(readings: 1, leases: BusyLeases())
        do {
            _ = try await busy.remove(Self.monitor, deletingReadings: true) { _ in true }
            Issue.record("removed a device in use")
        } catch {
            #expect(error.code == .device && error.message.contains("in use"))
        }
        #expect(try store.device(Self.monitor) != nil && store.readings.all().count == 1)
    }
}
