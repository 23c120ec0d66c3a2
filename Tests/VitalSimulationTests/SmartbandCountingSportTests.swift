import HealthGATT
import Testing
import VitalCore
import VitalDevices
import VitalTestSupport

/// The smartband codec's items for counting sports (`06`–`08`): a session's `detail_data` and a total's `count`
/// round-trip, items without them are written as before, and bad bytes name the field and offset.
@Suite("Smartband codec: counting sports")
struct SmartbandCountingSportTests {
    static let day = CalendarDate(year: 2026, month: 11, day: 20)!

    static func minute(_ value: Int) -> MinuteOfDay { MinuteOfDay(value)! }

    /// `hex` written with spaces between groups, as the codec article writes bytes.
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.filter { $0 != " " })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    static let sitUps = BandSportSession(
        date: day, sport: BandSport(rawValue: 0x02), start: minute(725), end: minute(735), steps: 0, calories: 80,
        distance: 0, detail: BandSportDetail(activity: 10, count: 220))

    static func randomCounted(_ random: inout SeededGenerator) -> BandItem {
        func maybe() -> Int? {
            Bool.random(using: &random) ? Int.random(in: 0...Int(UInt32.max), using: &random) : nil
        }
        let date = CalendarDate(daysSince1970: Int64.random(in: 0...40_000, using: &random))
        let sport = BandSport(rawValue: UInt8.random(in: 0...255, using: &random))
        let totals = BandTotals(
            sport: sport, steps: Int.random(in: 0...200_000, using: &random),
            calories: Int.random(in: 0...9_999, using: &random), distance: Int.random(in: 0...100_000, using: &random),
            count: Int.random(in: 0...Int(UInt32.max), using: &random))
        switch Int.random(in: 0...2, using: &random) {
        case 0: return .todayTotals(totals)
        case 1: return .dayTotals(date, totals)
        default:
            return .sport(
                BandSportSession(
                    date: date, sport: sport, start: minute(Int.random(in: 0...1439, using: &random)),
                    end: minute(Int.random(in: 0...1439, using: &random)), steps: totals.steps,
                    calories: totals.calories, distance: totals.distance,
                    detail: BandSportDetail(activity: maybe(), count: maybe(), distance: maybe())))
        }
    }

    @Test("a session's detail and a total's count read back as written, every member present or not")
    func roundTrip() throws {
        var random = SeededGenerator(seed: 0xC0_0A7)
        for _ in 0..<2_000 {
            let message = BandMessage.item(
                sequence: UInt32.random(in: 1...UInt32.max, using: &random), Self.randomCounted(&random))
            #expect(try BandMessage(bytes: message.encoded(today: Self.day)) == message)
        }
    }

    @Test("the type follows the value: with detail or count 06, 07, 08; without them 03, 02, 01 as before")
    func typeFollowsValue() throws {
        var plain = Self.sitUps
        plain.detail = nil
        #expect(BandMessage.item(sequence: 1, .sport(plain)).encoded().first == 0x03)
        #expect(BandMessage.item(sequence: 1, .sport(Self.sitUps)).encoded().first == 0x06)
        let counted = BandTotals(sport: BandSport(rawValue: 0x02), steps: 0, calories: 80, distance: 0, count: 220)
        var uncounted = counted
        uncounted.count = nil
        #expect(BandMessage.item(sequence: 1, .dayTotals(Self.day, counted)).encoded().first == 0x07)
        #expect(BandMessage.item(sequence: 1, .dayTotals(Self.day, uncounted)).encoded().first == 0x02)
        #expect(BandMessage.item(sequence: 1, .todayTotals(counted)).encoded().first == 0x08)
        #expect(BandMessage.item(sequence: 1, .todayTotals(uncounted)).encoded().first == 0x01)
        // stored as the kind without them, so that either replaces the other; the repetitions are the detail's
        #expect(BandItem.sport(Self.sitUps).kind == BandItem.sport(plain).kind)
        #expect(BandItem.dayTotals(Self.day, counted).kind == 2 && BandItem.todayTotals(counted).kind == 2)
        #expect(Self.sitUps.count == 220 && plain.count == nil)
        // a stored item reads back whole
        #expect(try BandItem(storedBytes: BandItem.sport(Self.sitUps).storedBytes) == .sport(Self.sitUps))
    }

    @Test("the marks of a night (start, end, placed) never replace the segment at their minute")
    func sleepMarksKeepTheirOwnKey() {
        let keys = BandSleepType.allCases.map {
            BandItem.sleep(BandSleepSegment(date: Self.day, type: $0, start: Self.minute(30), end: Self.minute(30)))
                .key
        }
        #expect(Set(keys).count == 4)  // deep, light and wake up are the segments, by start minute
        #expect(keys[2] == 30 && keys[3] == 30 && keys[5] == 30)
    }

    @Test("every prefix is refused, and a short detail or count names the member it lacks")
    func truncated() throws {
        var random = SeededGenerator(seed: 0xC0_0A8)
        for _ in 0..<300 {
            let bytes = BandMessage.item(sequence: 3, Self.randomCounted(&random)).encoded(today: Self.day)
            for count in 0..<bytes.count {
                #expect(throws: GATTError.self) { try BandMessage(bytes: Array(bytes.prefix(count))) }
            }
            #expect(throws: GATTError(.tooLong, characteristic: "band data", field: "end", offset: bytes.count)) {
                try BandMessage(bytes: bytes + [0])
            }
        }
        let session = BandMessage.item(sequence: 9, .sport(Self.sitUps)).encoded()
        // 06, sequence 4, date 4, sport, start 2, end 2, steps 4, kcal 4, metres 4: the presence byte is at 26
        #expect(throws: GATTError(.short, characteristic: "band data", field: "detail.flags", offset: 26)) {
            try BandMessage(bytes: Array(session.prefix(26)))
        }
        #expect(throws: GATTError(.short, characteristic: "band data", field: "detail.count", offset: 27)) {
            try BandMessage(bytes: Array(session.prefix(29)))
        }
        #expect(throws: GATTError(.short, characteristic: "band data", field: "detail.activity", offset: 31)) {
            try BandMessage(bytes: Array(session.prefix(32)))
        }
        let totals = BandMessage.item(
            sequence: 10,
            .dayTotals(
                Self.day, BandTotals(sport: BandSport(rawValue: 0x02), steps: 0, calories: 80, distance: 0, count: 220))
        ).encoded()
        #expect(throws: GATTError(.short, characteristic: "band data", field: "count", offset: 22)) {
            try BandMessage(bytes: Array(totals.prefix(24)))
        }
    }

    @Test("a detail's reserved presence bits are refused where they stand")
    func reservedDetailBits() throws {
        var bytes = BandMessage.item(sequence: 9, .sport(Self.sitUps)).encoded()
        bytes[26] = 0b1011
        #expect(throws: GATTError(.reservedValue, characteristic: "band data", field: "detail.flags", offset: 26)) {
            try BandMessage(bytes: bytes)
        }
    }

    @Test("the codec article's counting-sport examples are what the codec writes and reads")
    func articleExamples() throws {
        let session = BandMessage.item(sequence: 9, .sport(Self.sitUps))
        let sessionBytes = Self.bytes(
            "06 09000000 EA07 0B 14 02 D502 DF02 00000000 50000000 00000000 03 DC000000 0A000000")
        #expect(session.encoded() == sessionBytes)
        #expect(try BandMessage(bytes: sessionBytes) == session)
        let totals = BandMessage.item(
            sequence: 10,
            .dayTotals(
                Self.day, BandTotals(sport: BandSport(rawValue: 0x02), steps: 0, calories: 80, distance: 0, count: 220))
        )
        let totalsBytes = Self.bytes("07 0A000000 EA07 0B 14 02 00000000 50000000 00000000 DC000000")
        #expect(totals.encoded() == totalsBytes)
        #expect(try BandMessage(bytes: totalsBytes) == totals)
    }
}
