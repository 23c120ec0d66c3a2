import HealthGATT
import Testing
import VitalCore
import VitalDevices
import VitalTestSupport

/// The band's clock in VitalBridge's band codec: its characteristic's bytes, how the hub judges a clock, how it dates
/// what the band dated, and how an item moves by an offset.
@Suite("Smartband codec: the clock")
struct BandTimeCodecTests {
    static let example = Timestamp(parsing: "2026-11-29 07:40:12")!
    static let exampleBytes: [UInt8] = [0xEA, 0x07, 0x0B, 0x1D, 0x07, 0x28, 0x0C]

    static func error(_ field: String, _ offset: Int, _ reason: GATTError.Code = .invalidValue) -> GATTError {
        GATTError(reason, characteristic: "band time", field: field, offset: offset)
    }

    @Test("2026-11-29 07:40:12 is EA 07 0B 1D 07 28 0C, and reads back; the first and last second of a day too")
    func bytes() throws {
        #expect(BandTime(Self.example).encoded == Self.exampleBytes)
        #expect(try BandTime(bytes: Self.exampleBytes).time == Self.example)
        for text in ["2000-01-01 00:00:00", "2026-12-31 23:59:59", "1970-01-01 00:00:00", "9999-12-31 23:59:59"] {
            let time = try #require(Timestamp(parsing: text))
            #expect(try BandTime(bytes: BandTime(time).encoded).time == time, "\(text)")
        }
    }

    @Test("bad bytes name their field and offset: every prefix, a byte too many, an impossible date or time")
    func badBytes() throws {
        let fields = [
            ("date.year", 0), ("date.year", 0), ("date.month", 2), ("date.day", 3), ("hour", 4), ("minute", 5),
            ("second", 6),
        ]
        for count in 0..<Self.exampleBytes.count {
            #expect(throws: Self.error(fields[count].0, fields[count].1, .short)) {
                try BandTime(bytes: Array(Self.exampleBytes.prefix(count)))
            }
        }
        #expect(throws: GATTError(.tooLong, characteristic: "band time", field: "end", offset: 7)) {
            try BandTime(bytes: Self.exampleBytes + [0])
        }
        for (index, value, field, offset) in [
            (2, 13, "date", 0), (2, 0, "date", 0), (3, 31, "date", 0), (0, 0, "date", 0), (4, 24, "hour", 4),
            (5, 60, "minute", 5), (6, 60, "second", 6),
        ] {
            var bytes = Self.exampleBytes
            bytes[index] = UInt8(value)
            if index == 0 { bytes[1] = 0 }  // year 0
            #expect(throws: Self.error(field, offset)) { try BandTime(bytes: bytes) }
        }
    }

    @Test(
        "a clock is set when over 2 s off; it restarted when it shows a time before 2001 or a day before the band was added"
    )
    func reading() {
        let hub = Self.example
        func at(_ offset: Int64, added: Timestamp? = nil) -> BandClockReading {
            BandClockReading(
                bandTime: Timestamp(secondsSince1970: hub.secondsSince1970 + offset), hubTime: hub, addedAt: added)
        }
        #expect(!at(2).needsSetting && !at(-2).needsSetting && at(3).needsSetting && at(-3).needsSetting)
        #expect(at(7_205).minutes == 120 && at(-89).minutes == -1 && at(29).minutes == 0 && at(30).minutes == 1)
        let restarted = at(SmartbandGATT.earliestSetTime.secondsSince1970 - 1 - hub.secondsSince1970)
        #expect(restarted.wasReset)
        let added = Timestamp(parsing: "2026-11-01 00:00:00")!
        #expect(at(-30 * 86_400, added: added).wasReset && !at(-30 * 86_400).wasReset)
        // behind, but not a day before the band was added: not restarted
        #expect(!at(-3, added: hub).wasReset && !at(-86_400, added: hub).wasReset && at(-86_401, added: hub).wasReset)
        #expect(at(0).description == "showed 2026-11-29 07:40:12, right (0 s off)")
        var set = at(7_205)
        set.wasSet = true
        #expect(
            set.description == "showed 2026-11-29 09:40:17, 2 h 0 min 5 s ahead of the hub's; set to the hub's time")
        #expect(at(-90_061).description.hasSuffix(", 1 d 1 h 1 min 1 s behind the hub's; not set"))
        #expect(restarted.description.contains("(the clock had restarted)"))
    }

    @Test("a clock still off as an earlier link found it moves by that link's minutes, whichever way a second rounds")
    func sticky() {
        let hub = Self.example
        func at(_ offset: Int64, earlier: BandItemDating?) -> BandClockReading {
            BandClockReading(
                bandTime: Timestamp(secondsSince1970: hub.secondsSince1970 + offset), hubTime: hub, earlier: earlier)
        }
        let first = at(7_230, earlier: nil)
        #expect(first.minutes == 121)
        let stored = BandItemDating(clockRead: true, clockWasReset: false, minutes: first.minutes)
        // a second later or earlier, 7,229 s rounds to 120: the earlier link's 121 is kept
        #expect(at(7_229, earlier: stored).minutes == 121 && at(7_231, earlier: stored).minutes == 121)
        // a clock set since (within 2 s), a clock moved on by more than a minute, or an unread earlier link: its own
        #expect(at(1, earlier: stored).minutes == 0 && at(7_400, earlier: stored).minutes == 123)
        #expect(at(7_229, earlier: .unread).minutes == 120)
    }

    @Test(
        "each item placed: today's totals on the band's day, a restarted clock's old items kept, an absurd clock unread"
    )
    func place() {
        let hub = Self.example
        let totals = BandTotals(steps: 5, calories: 0, distance: 0)
        // the band 2 h ahead at the hub's 23:00: its today is the next day, and stays it
        let late = Timestamp(parsing: "2026-11-29 23:00:00")!
        let ahead = BandClockReading(
            bandTime: Timestamp(secondsSince1970: late.secondsSince1970 + 7_200), hubTime: late)
        let next = CalendarDate(year: 2026, month: 11, day: 30)!
        #expect(ahead.place(.todayTotals(totals), at: late).item == .dayTotals(next, totals))
        #expect(ahead.place(.todayTotals(totals), at: late).dating.minutes == 120)
        // a clock restarted at 2000: what it dated since is moved and marked; what it holds from before stays
        let epoch = Timestamp(parsing: "2000-01-03 10:00:00")!
        let restarted = BandClockReading(bandTime: epoch, hubTime: hub)
        let old = BandItem.dayTotals(CalendarDate(year: 2026, month: 11, day: 27)!, totals)
        #expect(restarted.place(old, at: hub).item == old)
        #expect(
            restarted.place(old, at: hub).dating == BandItemDating(clockRead: true, clockWasReset: false, minutes: 0))
        let since = restarted.place(.dayTotals(CalendarDate(year: 2000, month: 1, day: 2)!, totals), at: hub)
        #expect(since.item == .dayTotals(CalendarDate(year: 2026, month: 11, day: 28)!, totals))
        #expect(since.dating.clockWasReset && since.dating.clockRead)
        // a clock more than a thousand years off: nothing moved, its clock counted unread
        let absurd = BandClockReading(bandTime: Timestamp(parsing: "0900-01-01 00:00:00")!, hubTime: hub)
        #expect(absurd.place(old, at: hub) == (old, .unread))
    }

    @Test("how an item was dated round-trips through its stored sequence number; 0 is a clock never read")
    func dating() throws {
        let largest = (1 << 29) - 1
        for dating in [
            BandItemDating.unread, BandItemDating(clockRead: true, clockWasReset: false, minutes: 0),
            BandItemDating(clockRead: true, clockWasReset: true, minutes: -14_150_000),
            BandItemDating(clockRead: true, clockWasReset: false, minutes: 120),
            BandItemDating(clockRead: true, clockWasReset: false, minutes: largest),
            BandItemDating(clockRead: true, clockWasReset: false, minutes: -largest),
        ] {
            let item = BandItem.heartRate(
                BandHeartRateHour(date: SmartbandCodecTests.day, hour: 3, minutes: Array(repeating: 61, count: 60))!)
            let stored = try BandItem.stored(item.storedBytes(dating: dating))
            #expect(stored.item == item && stored.dating == dating, "\(dating)")
        }
        #expect(BandItemDating(clockRead: true, clockWasReset: false, minutes: 1 << 40).minutes == largest)
        #expect(
            try BandItem.stored(
                BandItem.dayTotals(SmartbandCodecTests.day, BandTotals(steps: 0, calories: 0, distance: 0)).storedBytes
            ).dating == .unread)
    }

    @Test(
        "an item moves back by the offset: sports and sleep by the minute across midnight, hours and days to the nearest"
    )
    func moved() {
        let day = SmartbandCodecTests.day
        let before = CalendarDate(daysSince1970: day.daysSince1970 - 1)
        let minute = SmartbandCodecTests.minute
        let sport = BandSportSession(
            date: day, sport: .walk, start: minute(60), end: minute(100), steps: 10, calories: 1, distance: 7)
        guard case .sport(let moved) = BandItem.sport(sport).movedBack(byMinutes: 90) else {
            Issue.record("not a sport")
            return
        }
        #expect(moved.date == before && moved.start == minute(1_410) && moved.end == minute(1_439))
        guard case .sport(let forward) = BandItem.sport(sport).movedBack(byMinutes: -30) else { return }
        #expect(forward.date == day && forward.start == minute(90) && forward.end == minute(130))
        let sleep = BandSleepSegment(date: day, type: .lightSleep, start: minute(10), end: minute(50))
        #expect(
            BandItem.sleep(sleep).movedBack(byMinutes: 30)
                == .sleep(BandSleepSegment(date: before, type: .lightSleep, start: minute(1_420), end: minute(20))))
        let rates = Array(repeating: Optional(70), count: 60)
        let hour = BandItem.heartRate(BandHeartRateHour(date: day, hour: 0, minutes: rates)!)
        #expect(hour.movedBack(byMinutes: 29) == hour)
        #expect(hour.movedBack(byMinutes: 31) == .heartRate(BandHeartRateHour(date: before, hour: 23, minutes: rates)!))
        let totals = BandItem.dayTotals(day, BandTotals(steps: 5, calories: 0, distance: 0))
        #expect(totals.movedBack(byMinutes: 719) == totals)
        #expect(totals.movedBack(byMinutes: 721) == .dayTotals(before, BandTotals(steps: 5, calories: 0, distance: 0)))
        #expect(
            BandItem.todayTotals(BandTotals(steps: 0, calories: 0, distance: 0)).movedBack(byMinutes: 10_000)
                == .todayTotals(BandTotals(steps: 0, calories: 0, distance: 0)))
        // a move out of the years a band date can hold leaves the item as the band dated it
        let ancient = BandItem.dayTotals(
            CalendarDate(year: 1, month: 1, day: 1)!, BandTotals(steps: 0, calories: 0, distance: 0))
        #expect(ancient.movedBack(byMinutes: 1_440) == ancient)
        #expect(totals.movedBack(byMinutes: Int.max) == totals)
    }
}
