import HealthGATT
import Testing
import VitalCore
import VitalDevices

private let g = GATTCharacteristics.self

/// A band day keeps what the band sent besides its sums: each sport's totals and the night's segments in order,
/// start, end and placed among them (issue 37); malformed sleep and sport bytes are refused by name.
@Suite("Smartband day: sport totals and sleep segments")
struct BandDaySummaryTests {
    static let date = CalendarDate(year: 2026, month: 11, day: 20)!

    static func segment(_ type: BandSleepType, _ start: Int, _ end: Int) -> BandItem {
        .sleep(BandSleepSegment(date: date, type: type, start: MinuteOfDay(start)!, end: MinuteOfDay(end)!))
    }

    /// A day of three sports and a night of every sleep type, in the store's order (kind, then key: the marks'
    /// keys are 1440 × type + minute, so they come after the segments).
    static let items: [BandItem] = [
        .dayTotals(date, BandTotals(sport: BandSport(rawValue: 0x88), steps: 0, calories: 310, distance: 12_400)),
        .dayTotals(date, BandTotals(steps: 8_421, calories: 312, distance: 6_120)),
        .dayTotals(date, BandTotals(sport: BandSport(rawValue: 0x02), steps: 0, calories: 80, distance: 0, count: 220)),
        segment(.lightSleep, 40, 150), segment(.deepSleep, 150, 245), segment(.lightSleep, 245, 357),
        segment(.wakeUp, 357, 400), segment(.startSleep, 40, 40), segment(.endSleep, 400, 400),
        segment(.placed, 400, 403),
    ]

    @Test("each sport's totals by code beside their sums; the night in order: start, the segments, end, placed")
    func summary() {
        let day = BandDay(date: Self.date, items: Self.items)
        #expect(day.steps == 8_421 && day.calories == 702 && day.distance == 18_520)
        #expect(
            day.sportTotals == [
                .init(type: 1, steps: 8_421, calories: 312, distance: 6_120),
                .init(type: 2, steps: 0, calories: 80, distance: 0, count: 220),
                .init(type: 0x88, steps: 0, calories: 310, distance: 12_400),
            ])
        #expect(day.sleepSegments.map(\.type) == [1, 4, 3, 4, 6, 2, 5])
        #expect(
            day.sleepSegments.map { "\($0.start)-\($0.end)" } == [
                "40-40", "40-150", "150-245", "245-357", "357-400", "400-400", "400-403",
            ])
        // the minutes are as before: start, end and placed count for nothing
        #expect(day.sleep == BandDay.Sleep(deep: 95, light: 222, awake: 43))
        // whatever order the items come in
        #expect(BandDay(date: Self.date, items: Self.items.reversed()) == day)
    }

    func driver(_ script: [ScriptStep]) -> (SmartbandDriver, ScriptedConnection) {
        let connection = ScriptedConnection(script, offering: [g.bandControlPoint, g.bandData], mtu: 247)
        let entry = DeviceCatalog.entry(for: .fitPro9614N)
        return (SmartbandDriver(entry: entry, connection: connection) { time(12, 0).host }, connection)
    }

    static func bytes(_ sequence: UInt32, _ item: BandItem) -> [UInt8] {
        BandMessage.item(sequence: sequence, item).encoded()
    }

    /// A sleep segment of type 7, and a sport whose detail announces a member no version has (bit 3).
    static let malformed: [(bytes: [UInt8], field: String)] = {
        var sleep = bytes(3, segment(.deepSleep, 150, 245))
        sleep[9] = 7
        let session = BandSportSession(
            date: date, sport: BandSport(rawValue: 0x02), start: MinuteOfDay(725)!, end: MinuteOfDay(735)!, steps: 0,
            calories: 80, distance: 0, detail: BandSportDetail(count: 220))
        var sport = bytes(3, .sport(session))
        // the presence byte comes before the count's four bytes
        sport[sport.count - 5] = 0x09
        return [(sleep, "sleepType"), (sport, "detail.flags")]
    }()

    @Test(
        "malformed sleep or sport bytes fail the sync naming the field; what an earlier sync stored stays, nothing more",
        arguments: [0, 1])
    func malformedRefused(_ index: Int) async throws {
        let sink = RecordingSink()
        let (first, _) = driver([
            .notify(g.bandData, Self.bytes(1, Self.items[1])), .notify(g.bandData, Self.bytes(2, Self.items[5])),
            .notify(g.bandData, [0x10, 0x02, 0x00, 0x00, 0x00]), .write(g.bandControlPoint, [0x14, 0x02, 0, 0, 0]),
        ])
        #expect(try await first.sync(into: sink) { _ in } == 2)
        let (second, connection) = driver([.notify(g.bandData, Self.malformed[index].bytes)])
        let error = await #expect(throws: DeviceError.self) { try await second.sync(into: sink) { _ in } }
        #expect(error?.code == .protocolViolation)
        #expect(error?.message.contains(Self.malformed[index].field) == true, "\(String(describing: error))")
        #expect(sink.bandBatches == [[Self.items[1], Self.items[5]]])
        #expect(connection.writes.isEmpty)
    }
}
