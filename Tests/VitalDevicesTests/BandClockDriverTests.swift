import HealthGATT
import Locking
import Testing
import VitalCore
import VitalDevices

private let g = GATTCharacteristics.self

/// The band driver's clock on a scripted link: what it does with a clock it cannot read or cannot set.
@Suite struct BandClockDriverTests {
    /// A sink that keeps each stored item with how it was dated.
    final class DatingSink: RecordSink, Sendable {
        let stored = Locked<[(item: BandItem, dating: BandItemDating)]>([])
        func store(_ records: [DeviceRecord]) async throws {}
        func storeDayItems(_ batch: DayItemBatch) async throws {
            let items = try batch.items.map { try BandItem.stored($0.bytes) }
            stored.withLock { $0 += items }
        }
    }

    static let hub = time(12, 0).host
    static let hour = BandItem.heartRate(
        BandHeartRateHour(date: BandDaySummaryTests.date, hour: 9, minutes: Array(repeating: 70, count: 60))!)

    /// A Fit Pro 9614N whose clock characteristic reads `clock`, on a link running `script`.
    static func driver(clock: [UInt8], _ script: [ScriptStep]) -> (SmartbandDriver, ScriptedConnection) {
        let connection = ScriptedConnection(
            script, offering: [g.bandControlPoint, g.bandData, g.bandTime], reads: [g.bandTime: clock], mtu: 247)
        return (
            SmartbandDriver(entry: DeviceCatalog.entry(for: .fitPro9614N), connection: connection) { hub }, connection
        )
    }

    static let sync: [ScriptStep] = [
        .notify(g.bandData, BandMessage.item(sequence: 1, hour).encoded()),
        .notify(g.bandData, [0x10, 0x01, 0x00, 0x00, 0x00]), .write(g.bandControlPoint, [0x14, 0x01, 0, 0, 0]),
    ]

    @Test("a clock that says no time: the items are kept as the band dated them, unverified, and the clock is set")
    func unreadable() async throws {
        let sink = DatingSink()
        let (driver, connection) = Self.driver(
            clock: [0xEA, 0x07, 13, 1, 0, 0, 0], Self.sync + [.write(g.bandTime, BandTime(Self.hub).encoded)])
        #expect(try await driver.sync(into: sink) { _ in } == 1)
        #expect(sink.stored.withLock { $0.map(\.item) } == [Self.hour])
        #expect(sink.stored.withLock { $0.map(\.dating) } == [.unread])
        #expect(connection.writes.last == .write(g.bandTime, BandTime(Self.hub).encoded))
        #expect(driver.lastClockReading == nil)
    }

    @Test("a clock 2 h ahead that refuses to be set: the sync still ends well, what it sent moved; the clock stays off")
    func setRefused() async throws {
        let sink = DatingSink()
        let ahead = BandTime(Timestamp(secondsSince1970: Self.hub.secondsSince1970 + 7_200)).encoded
        let refused = DeviceError(.protocolViolation, message: "write refused")
        let (driver, _) = Self.driver(
            clock: ahead, Self.sync + [.failWrite(g.bandTime, BandTime(Self.hub).encoded, refused)])
        #expect(try await driver.sync(into: sink) { _ in } == 1)
        #expect(sink.stored.withLock { $0.map(\.item) } == [Self.hour.movedBack(byMinutes: 120)])
        #expect(driver.lastClockReading?.offset == 7_200 && driver.lastClockReading?.wasSet == false)
        #expect(driver.lastClockReading?.description.hasSuffix("; not set") == true)
    }
}
