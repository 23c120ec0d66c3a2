import HealthGATT
import Testing
import VitalCore
import VitalDevices
import VitalTestSupport

/// The smartband codec (SmartbandGATT): every message and command round-trips, bad bytes name their field and
/// offset, and every rule of the SDK document refuses what it must before anything is sent.
@Suite("Smartband codec")
struct SmartbandCodecTests {
    static let day = CalendarDate(year: 2026, month: 11, day: 20)!

    static func minute(_ value: Int) -> MinuteOfDay { MinuteOfDay(value)! }

    static func randomItem(_ random: inout SeededGenerator) -> BandItem {
        let date = CalendarDate(daysSince1970: Int64.random(in: 0...40_000, using: &random))
        let totals = BandTotals(
            sport: BandSport.table.randomElement(using: &random)!.sport,
            steps: Int.random(in: 0...200_000, using: &random),
            calories: Int.random(in: 0...9_999, using: &random), distance: Int.random(in: 0...100_000, using: &random))
        switch Int.random(in: 0...4, using: &random) {
        case 0: return .todayTotals(totals)
        case 1: return .dayTotals(date, totals)
        case 2:
            return .sport(
                BandSportSession(
                    date: date, sport: BandSport(rawValue: UInt8.random(in: 0...255, using: &random)),
                    start: minute(Int.random(in: 0...1439, using: &random)),
                    end: minute(Int.random(in: 0...1439, using: &random)), steps: totals.steps,
                    calories: totals.calories, distance: totals.distance))
        case 3:
            return .sleep(
                BandSleepSegment(
                    date: date, type: BandSleepType.allCases.randomElement(using: &random)!,
                    start: minute(Int.random(in: 0...1439, using: &random)),
                    end: minute(Int.random(in: 0...1439, using: &random))))
        default:
            let minutes = (0..<60).map { _ in
                Bool.random(using: &random) ? nil : Int.random(in: 1...254, using: &random)
            }
            return .heartRate(
                BandHeartRateHour(date: date, hour: Int.random(in: 0...23, using: &random), minutes: minutes)!)
        }
    }

    /// One message of each kind but items.
    static let otherMessages: [BandMessage] = [
        .caughtUp(last: 0), .caughtUp(last: 4_000_000_000), .commandResult(opCode: 0x07, success: false),
        .commandResult(opCode: 0x14, success: true), .scheduleExists(true), .scheduleExists(false), .findPhone,
        .takePicture,
        .supportedSports(
            BandSupportedSports(
                sports: [.walk, BandSport(rawValue: 0x83), BandSport(rawValue: 0x99)], maximumActive: 5)),
    ]

    @Test("every kind of message reads back as it was written")
    func messagesRoundTrip() throws {
        var random = SeededGenerator(seed: 0xBA_4D01)
        for _ in 0..<2_000 {
            let message = BandMessage.item(
                sequence: UInt32.random(in: 1...UInt32.max, using: &random), Self.randomItem(&random))
            #expect(try BandMessage(bytes: message.encoded(today: Self.day)) == message)
        }
        for message in Self.otherMessages { #expect(try BandMessage(bytes: message.encoded()) == message) }
    }

    @Test("today's totals ignore the band's date bytes, even impossible ones (the document's rule)")
    func todayIgnoresBandDate() throws {
        let totals = BandTotals(steps: 8_421, calories: 312, distance: 6_120)
        let message = BandMessage.item(sequence: 7, .todayTotals(totals))
        var bytes = message.encoded(today: Self.day)
        #expect(bytes.prefix(9) == [0x01, 7, 0, 0, 0, 0xEA, 0x07, 11, 20])
        bytes[7] = 13  // month 13
        bytes[8] = 0  // day 0
        #expect(try BandMessage(bytes: bytes) == message)
        // a past day's date is trusted, so an impossible one is refused where it stands
        var past = BandMessage.item(sequence: 8, .dayTotals(Self.day, totals)).encoded()
        past[7] = 13
        #expect(throws: GATTError(.invalidValue, characteristic: "band data", field: "date", offset: 5)) {
            try BandMessage(bytes: past)
        }
    }

    @Test("a heart-rate minute of 255 is no value, never 255 bpm; 0 is refused where it stands")
    func heartRateMinutes() throws {
        var minutes: [Int?] = Array(repeating: 70, count: 60)
        minutes[3] = nil
        let hour = try #require(BandHeartRateHour(date: Self.day, hour: 14, minutes: minutes))
        let bytes = BandMessage.item(sequence: 1, .heartRate(hour)).encoded()
        #expect(bytes.count == 1 + 4 + 4 + 1 + 60 && bytes[10 + 3] == 255)
        guard case .item(_, .heartRate(let read)) = try BandMessage(bytes: bytes) else {
            Issue.record("not a heart-rate hour")
            return
        }
        #expect(read.minutes[3] == nil && read.minutes.compactMap { $0 }.count == 59)
        var zero = bytes
        zero[10 + 5] = 0
        #expect(throws: GATTError(.invalidValue, characteristic: "band data", field: "rate[5]", offset: 15)) {
            try BandMessage(bytes: zero)
        }
        #expect(BandHeartRateHour(date: Self.day, hour: 24, minutes: minutes) == nil)
        #expect(BandHeartRateHour(date: Self.day, hour: 1, minutes: Array(minutes.prefix(59))) == nil)
    }

    @Test("bad bytes name their field and offset: every prefix, a byte too many, an unknown type or sleep type")
    func badBytes() throws {
        var random = SeededGenerator(seed: 0xBA_4D02)
        for _ in 0..<200 {
            let bytes = BandMessage.item(sequence: 9, Self.randomItem(&random)).encoded(today: Self.day)
            for count in 0..<bytes.count {
                #expect(throws: GATTError.self) { try BandMessage(bytes: Array(bytes.prefix(count))) }
            }
            #expect(throws: GATTError(.tooLong, characteristic: "band data", field: "end", offset: bytes.count)) {
                try BandMessage(bytes: bytes + [0])
            }
        }
        #expect(throws: GATTError(.reservedValue, characteristic: "band data", field: "type", offset: 0)) {
            try BandMessage(bytes: [0x09])
        }
        let sleep = BandMessage.item(
            sequence: 1,
            .sleep(BandSleepSegment(date: Self.day, type: .deepSleep, start: Self.minute(60), end: Self.minute(90))))
        var bytes = sleep.encoded()
        bytes[9] = 7
        #expect(throws: GATTError(.invalidValue, characteristic: "band data", field: "sleepType", offset: 9)) {
            try BandMessage(bytes: bytes)
        }
        bytes[9] = 3
        bytes[10] = 0xA0  // minute 1440
        bytes[11] = 0x05
        #expect(throws: GATTError(.invalidValue, characteristic: "band data", field: "start", offset: 10)) {
            try BandMessage(bytes: bytes)
        }
    }

    /// One command of each kind, with settings at the edges the rules allow.
    static func exampleCommands() throws -> [BandCommand] {
        [
            .bind(userID: 1111), .unbind, .getToday, .getSupportedSports, .sportDataSwitch(true),
            .heartRateHourly(false),
            .setSportTargets(try BandSportTargets([(.walk, 300), (BandSport(rawValue: 0x88), 500)])),
            .setAlarm(
                try BandAlarm(id: 7, isOn: true, hour: 6, minute: 30, weekdays: [.repeatsWeekly, .monday, .friday])),
            .setSedentary(try BandSedentaryReminder(isOn: true, startHour: 9, endHour: 18, weekdays: .everyDay)),
            .writeSchedule(
                try BandSchedule(date: Self.day, hour: 8, minute: 15, title: "Café ☕︎", subtitle: "with Ana")),
            .deleteSchedule(Self.day, hour: 8, minute: 15), .clearSchedules, .readScheduleInfo,
            .readSchedule(Self.day, hour: 8, minute: 15),
            .setPersonalInfo(try BandPersonalInfo(gender: .woman, height: 168, weight: 61, age: 34, stepTarget: 9_000)),
            .setHardwareOptions(try BandHardwareOptions(units: .imperial, clock: .twelveHour, whiteBackground: true)),
            .setHardwareOptions(try BandHardwareOptions()), try .pushing("Time to move 🚶"), .cameraMode(true), .reset,
            .receivedThrough(123_456),
        ]
    }

    @Test("every command reads back as it was written, settings checked on the way in too")
    func commandsRoundTrip() throws {
        let commands = try Self.exampleCommands()
        for command in commands {
            #expect(try BandCommand(bytes: command.encoded) == command, "\(command)")
            #expect(command.encoded.first == command.opCode)
        }
        // the rules hold for bytes from elsewhere too: six sports written by hand are refused
        let six: [UInt8] = [0x07, 6] + [0x01, 0x80, 0x81, 0x82, 0x83, 0x84].flatMap { [$0, 100, 0] }
        #expect(throws: GATTError(.invalidValue, characteristic: "band control point", field: "sports", offset: 1)) {
            try BandCommand(bytes: six)
        }
        #expect(throws: GATTError(.reservedValue, characteristic: "band control point", field: "opCode", offset: 0)) {
            try BandCommand(bytes: [0x7F])
        }
    }

    @Test("sports: at most 5, walking among them, each once, from the table, with a calorie target")
    func sportRules() throws {
        let sports = BandSport.table.map(\.sport)
        #expect(
            sports.count == 24 && BandSport.table.first?.name == "walk"
                && BandSport(rawValue: 0x91).name == "shuttlecock")
        #expect("\(BandSport(rawValue: 0x42))" == "sport 0x42")
        let cases: [([(sport: BandSport, calories: Int)], String)] = [
            ([], "sports"), (sports.prefix(6).map { ($0, 100) }, "sports"),
            ([(BandSport(rawValue: 0x80), 100)], "sports"),
            ([(.walk, 100), (.walk, 200)], "sports[1]"),
            ([(.walk, 100), (BandSport(rawValue: 0x42), 100)], "sports[1]"),
            ([(.walk, 0)], "sports[0].target"), ([(.walk, 65_536)], "sports[0].target"),
        ]
        for (targets, field) in cases {
            #expect(
                performing: { try BandSportTargets(targets) }, throws: { ($0 as? BandSettingError)?.field == field })
        }
        #expect(try BandSportTargets(sports.prefix(5).map { ($0, 100) }).targets.count == 5)
    }

    @Test("alarms 0-7 ring only switched on, viable, on a weekday; the sedentary reminder needs its hours in order")
    func alarmRules() throws {
        #expect(try BandAlarm(id: 0, isOn: true, hour: 7, minute: 0, weekdays: [.monday]).rings)
        #expect(try !BandAlarm(id: 0, isOn: true, hour: 7, minute: 0, weekdays: [.repeatsWeekly]).rings)
        #expect(try !BandAlarm(id: 0, isOn: true, isViable: false, hour: 7, minute: 0, weekdays: .everyDay).rings)
        #expect(try !BandAlarm(id: 0, isOn: false, hour: 7, minute: 0, weekdays: .everyDay).rings)
        for (make, field) in [
            (
                { () throws(BandSettingError) in
                    _ = try BandAlarm(id: 8, isOn: true, hour: 7, minute: 0, weekdays: .everyDay)
                }, "alarm.id"
            ),
            (
                { () throws(BandSettingError) in
                    _ = try BandAlarm(id: 1, isOn: true, hour: 24, minute: 0, weekdays: .everyDay)
                }, "alarm.hour"
            ),
            (
                { () throws(BandSettingError) in
                    _ = try BandAlarm(id: 1, isOn: true, hour: 7, minute: 60, weekdays: .everyDay)
                }, "alarm.minute"
            ),
            (
                { () throws(BandSettingError) in
                    _ = try BandSedentaryReminder(isOn: true, startHour: 18, endHour: 9, weekdays: .everyDay)
                }, "sedentary.end"
            ),
            (
                { () throws(BandSettingError) in
                    _ = try BandSedentaryReminder(isOn: true, startHour: 9, endHour: 18, weekdays: .repeatsWeekly)
                }, "sedentary.weekdays"
            ),
            (
                { () throws(BandSettingError) in
                    _ = try BandSedentaryReminder(isOn: true, startHour: -1, endHour: 18, weekdays: .everyDay)
                }, "sedentary.start"
            ),
        ] as [(() throws(BandSettingError) -> Void, String)] {
            #expect(performing: { try make() }, throws: { ($0 as? BandSettingError)?.field == field })
        }
        // the weekday bits: bit 7 repeat, bit 6 Monday … bit 0 Sunday
        #expect(BandWeekdays([.repeatsWeekly, .monday, .sunday]).rawValue == 0b1100_0001)
    }

    @Test("schedules: at most 4 a day, never two at one minute, title <= 20 and subtitle <= 33 characters")
    func scheduleRules() throws {
        var book: [BandSchedule] = []
        for hour in [8, 12, 16, 20] {
            let entry = try BandSchedule(date: Self.day, hour: hour, minute: 0, title: "Pills")
            try BandSchedule.check(adding: entry, to: book)
            book.append(entry)
        }
        let fifth = try BandSchedule(date: Self.day, hour: 22, minute: 0, title: "Pills")
        #expect(
            throws: BandSettingError("schedule.date", "the band holds at most 4 entries a day (\(Self.day) has them)")
        ) {
            try BandSchedule.check(adding: fifth, to: book)
        }
        let sameMinute = try BandSchedule(date: Self.day, hour: 12, minute: 0, title: "Lunch")
        #expect(throws: BandSettingError.self) { try BandSchedule.check(adding: sameMinute, to: Array(book.prefix(2))) }
        let nextDay = try BandSchedule(
            date: CalendarDate(daysSince1970: Self.day.daysSince1970 + 1), hour: 12, minute: 0, title: "Lunch")
        try BandSchedule.check(adding: nextDay, to: book)
        #expect(throws: BandSettingError("schedule.title", "must be 1 to 20 characters (21 given)")) {
            try BandSchedule(date: Self.day, hour: 8, minute: 0, title: String(repeating: "é", count: 21))
        }
        #expect(
            try BandSchedule(date: Self.day, hour: 8, minute: 0, title: String(repeating: "é", count: 20)).title.count
                == 20)
        #expect(throws: BandSettingError("schedule.subtitle", "must be at most 33 characters (34 given)")) {
            try BandSchedule(
                date: Self.day, hour: 8, minute: 0, title: "a", subtitle: String(repeating: "b", count: 34))
        }
        #expect(throws: BandSettingError.self) { try BandSchedule(date: Self.day, hour: 8, minute: 0, title: "") }
        #expect(throws: BandSettingError.self) { try BandSchedule(date: Self.day, hour: 8, minute: 0, title: "a\nb") }
    }

    @Test(
        "personal info, hardware options and text: each value out of range is named; the band's gender is the protocol's sex reversed"
    )
    func otherRules() throws {
        #expect(BandPersonalInfo.gender(for: .male) == .man && BandPersonalInfo.Gender.man.rawValue == 0)
        #expect(BandPersonalInfo.gender(for: .female) == .woman && UserSex.female.rawValue == 0)
        for (height, weight, age, target, field) in [
            (49, 70, 30, 8_000, "personal.height"), (170, 251, 30, 8_000, "personal.weight"),
            (170, 70, 0, 8_000, "personal.age"), (170, 70, 30, 0, "personal.target"),
        ] {
            #expect(
                performing: {
                    try BandPersonalInfo(gender: .man, height: height, weight: weight, age: age, stepTarget: target)
                }, throws: { ($0 as? BandSettingError)?.field == field })
        }
        #expect(throws: BandSettingError("options.backlightEnd", "must be 0 to 23")) {
            try BandHardwareOptions(backlightEnd: 24)
        }
        #expect(throws: BandSettingError.self) { try BandCommand.pushing(String(repeating: "a", count: 61)) }
        #expect(throws: BandSettingError.self) { try BandCommand.pushing("") }
        #expect(throws: BandSettingError.self) { try BandCommand.pushing("bell\u{7}") }
        #expect(try BandCommand.pushing(String(repeating: "é", count: 30)).encoded.count == 2 + 60)
    }

    /// `hex` written with spaces between groups, as the codec article writes bytes.
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.filter { $0 != " " })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    @Test("the codec article's examples are what the codec writes and reads")
    func articleExamples() throws {
        let today = BandMessage.item(
            sequence: 7, .todayTotals(BandTotals(steps: 8_421, calories: 312, distance: 6_120)))
        let todayBytes = Self.bytes("01 07000000 EA07 0B 14 01 E5200000 38010000 E8170000")
        #expect(today.encoded(today: Self.day) == todayBytes)
        #expect(try BandMessage(bytes: todayBytes) == today)
        let sports = BandCommand.setSportTargets(
            try BandSportTargets([(.walk, 300), (BandSport(rawValue: 0x88), 500)]))
        #expect(sports.encoded == Self.bytes("07 02 01 2C01 88 F401"))
        let alarm = BandCommand.setAlarm(
            try BandAlarm(id: 7, isOn: true, hour: 6, minute: 30, weekdays: [.repeatsWeekly, .monday, .friday]))
        #expect(alarm.encoded == Self.bytes("08 07 01 01 06 1E C4"))
        #expect(throws: BandSettingError("sports", "must be 1 to 5 sports (6 given)")) {
            try BandSportTargets(BandSport.table.prefix(6).map { ($0.sport, 100) })
        }
    }
}
