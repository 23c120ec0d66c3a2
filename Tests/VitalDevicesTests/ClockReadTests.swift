import HealthGATT
import Locking
import Testing
import VitalCore
import VitalDevices

/// A clock read is compared with the hub's clock at its end, and one that took longer than the tolerance is made
/// again: a device's answer says its time when it answered.
@Suite("Reading a device's clock")
struct ClockReadTests {
    static let shown = Timestamp(parsing: "2026-11-20 09:00:00")!

    /// A push monitor's driver whose Current Time shows ``shown``, reading it against a hub clock that gives
    /// `times` in turn (the last one again when they run out).
    static func read(hubTimes times: [Int64]) async throws -> (DeviceClock?, reads: Int) {
        let connection = ScriptedConnection(
            [], offering: [GATTCharacteristics.currentTime],
            reads: [GATTCharacteristics.currentTime: CurrentTime(shown).encoded()])
        let driver = try #require(
            makeDriver(for: DeviceCatalog.entry(for: .bp5), connection: connection) { shown } as? PushDeviceDriver)
        let next = Locked(0)
        try await driver.readClock {
            let index = next.withLock { index in
                defer { index += 1 }
                return min(index, times.count - 1)
            }
            return Timestamp(secondsSince1970: shown.secondsSince1970 + times[index])
        }
        let reads = connection.operations.filter { $0 == .read(GATTCharacteristics.currentTime) }.count
        return (driver.clockSession.clock, reads)
    }

    @Test("a quick read: the offset against the hub's time at its end")
    func quick() async throws {
        // the hub's clock reads 1 s before the device's, then 2 s later: the device is 1 s behind it then
        let (clock, reads) = try await Self.read(hubTimes: [-1, 1])
        #expect(clock == .read(offset: -1) && reads == 1)
    }

    @Test("a read that took longer than 2 s is made again, and the quick one counts")
    func slowThenQuick() async throws {
        let (clock, reads) = try await Self.read(hubTimes: [-60, 0, -3600, -3600])
        #expect(clock == .read(offset: 3_600) && reads == 2)
    }

    @Test("three slow reads leave the clock unknown: the session's readings are marked unverified")
    func alwaysSlow() async throws {
        let (clock, reads) = try await Self.read(hubTimes: [0, 10, 20, 30, 40, 50])
        #expect(clock == .unknown && reads == 3)
    }
}
