import HealthGATT
import Testing
import VitalCore
import VitalDevices

/// VitalBridge's getters of the band's settings (`16`–`1A`) and their answers (`1A`–`1E`), byte by byte.
@Suite("Band codec: settings read back, getters 16–1A and answers 1A–1E (issue 52)")
struct BandSettingsCodecTests {
    static func bytes(_ hex: String) -> [UInt8] { SmartbandCodecTests.bytes(hex) }

    /// Every answer with the bytes the codec article gives it, a not-set form of each that has one.
    static func answers() throws -> [(message: BandMessage, bytes: [UInt8])] {
        let alarm = try BandAlarm(id: 7, isOn: true, hour: 6, minute: 30, weekdays: [.repeatsWeekly, .monday, .friday])
        let weekdays: BandWeekdays = [.repeatsWeekly, .monday, .tuesday, .wednesday, .thursday, .friday]
        return [
            (.hardwareOptions(.factory(for: .fitPro9614N)), bytes("1A 00 00 01 16 07 FF 00 01 01")),
            (
                .hardwareOptions(try BandHardwareOptions(units: .imperial, clock: .twelveHour, whiteBackground: true)),
                bytes("1A 01 01 01 16 07 01 00 01 01")
            ),
            (.alarm(id: 3, nil), bytes("1B 03 00")),
            (.alarm(id: 7, alarm), bytes("1B 07 01 01 01 06 1E C4")),
            (.sedentaryReminder(.factory), bytes("1C 00 09 11 00")),
            (
                .sedentaryReminder(
                    try BandSedentaryReminder(isOn: true, startHour: 9, endHour: 17, weekdays: weekdays)),
                bytes("1C 01 09 11 FC")
            ),
            (.personalInfo(nil), bytes("1D 00")),
            (
                .personalInfo(
                    try BandPersonalInfo(gender: .woman, height: 168, weight: 60, age: 41, stepTarget: 8_000)),
                bytes("1D 01 01 A8 3C 29 401F0000")
            ),
            (.sportTargets(nil), bytes("1E 00")),
            (
                .sportTargets(try BandSportTargets([(.walk, 300), (BandSport(rawValue: 0x88), 500)])),
                bytes("1E 02 01 2C01 88 F401")
            ),
        ]
    }

    /// The getters, each a bare op code.
    static let getters: [(command: BandCommand, bytes: [UInt8])] = [
        (.getHardwareOptions, [0x16]), (.getAlarms, [0x17]), (.getSedentaryReminder, [0x18]),
        (.getPersonalInfo, [0x19]), (.getSportTargets, [0x1A]),
    ]

    @Test("each answer has the article's bytes and reads back as it was written")
    func answerBytes() throws {
        for (message, bytes) in try Self.answers() {
            #expect(message.encoded() == bytes, "\(message)")
            #expect(try BandMessage(bytes: bytes) == message)
        }
    }

    @Test("each getter is its op code alone, 16 to 1A, and reads back")
    func getterBytes() throws {
        for (command, bytes) in Self.getters {
            #expect(command.encoded == bytes && command.opCode == bytes[0])
            #expect(try BandCommand(bytes: bytes) == command)
            #expect(throws: GATTError(.tooLong, characteristic: "band control point", field: "end", offset: 1)) {
                try BandCommand(bytes: bytes + [0])
            }
        }
        #expect(throws: GATTError(.reservedValue, characteristic: "band control point", field: "opCode", offset: 0)) {
            try BandCommand(bytes: [0x1B])
        }
        #expect(throws: GATTError(.reservedValue, characteristic: "band data", field: "type", offset: 0)) {
            try BandMessage(bytes: [0x1F])
        }
    }

    @Test("every strict prefix of an answer or a setter is refused naming a field, and a byte too many is refused")
    func everyPrefix() throws {
        let setters = try SmartbandCodecTests.exampleCommands().filter { (0x07...0x10).contains($0.opCode) }
        let encoded =
            try Self.answers().map { (bytes: $0.bytes, characteristic: "band data") }
            + setters.map { (bytes: $0.encoded, characteristic: "band control point") }
        for (bytes, characteristic) in encoded {
            for count in 0..<bytes.count {
                let prefix = Array(bytes.prefix(count))
                #expect(
                    performing: {
                        if characteristic == "band data" {
                            _ = try BandMessage(bytes: prefix)
                        } else {
                            _ = try BandCommand(bytes: prefix)
                        }
                    },
                    throws: { error in
                        guard let error = error as? GATTError else { return false }
                        return error.code == .short && !error.field.isEmpty && error.offset <= count
                    })
            }
            #expect(throws: GATTError(.tooLong, characteristic: characteristic, field: "end", offset: bytes.count)) {
                if characteristic == "band data" {
                    _ = try BandMessage(bytes: bytes + [0])
                } else {
                    _ = try BandCommand(bytes: bytes + [0])
                }
            }
        }
    }

    @Test(
        "an answer is read with the setters' rules: each impossible value is refused naming its field and offset",
        arguments: [
            ("1B 08 00", "id", 1), ("1B 03 02", "set", 2), ("1B 03 01 01 01 18 00 C4", "alarm.hour", 1),
            ("1B 03 01 02 01 06 00 C4", "on", 3), ("1C 01 11 09 FC", "sedentary.end", 1),
            ("1C 01 09 11 80", "sedentary.weekdays", 1), ("1D 01 02 A8 3C 29 401F0000", "gender", 2),
            ("1D 01 01 31 3C 29 401F0000", "personal.height", 2), ("1D 01 01 A8 3C 00 401F0000", "personal.age", 2),
            ("1E 01 88 F401", "sports", 1), ("1E 02 01 2C01 01 F401", "sports[1]", 1),
            ("1E 01 01 0000", "sports[0].target", 1), ("1A 02 00 01 16 07 FF 00 01 01", "units", 1),
            ("1A 00 02 01 16 07 FF 00 01 01", "clock", 2),
            ("1A 00 00 01 18 07 FF 00 01 01", "options.backlightStart", 1),
            ("1A 00 00 01 16 07 02 00 01 01", "background", 6), ("1A 00 00 01 16 07 FF 02 01 01", "language", 7),
        ])
    func malformedAnswers(hex: String, field: String, offset: Int) {
        #expect(throws: GATTError(.invalidValue, characteristic: "band data", field: field, offset: offset)) {
            try BandMessage(bytes: Self.bytes(hex))
        }
    }

    @Test("a setter still refuses no sport at all, and names the clock, not the units, for a clock of 2")
    func setterRules() {
        #expect(throws: GATTError(.invalidValue, characteristic: "band control point", field: "sports", offset: 1)) {
            try BandCommand(bytes: [0x07, 0x00])
        }
        #expect(throws: GATTError(.invalidValue, characteristic: "band control point", field: "clock", offset: 2)) {
            try BandCommand(bytes: Self.bytes("10 00 02 01 16 07 FF 00 01 01"))
        }
    }

    @Test("the settings' lines say each part as the commands take it")
    func lines() throws {
        #expect(
            BandHardwareOptions.factory(for: .fitPro9614N).lines == [
                "units: metric", "clock: 24", "auto-sleep: on", "backlight: 22-7", "language: english", "le: on",
                "wrist: on",
            ])
        #expect(BandHardwareOptions.factory(for: .smarteeTraining9616N).lines[4] == "white-background: off")
        let alarm = try BandAlarm(id: 7, isOn: true, hour: 6, minute: 5, weekdays: [.repeatsWeekly, .monday, .friday])
        #expect(alarm.line == "alarm 7: on, 06:05, mon,fri, every week")
        #expect(
            try BandAlarm(id: 0, isOn: true, hour: 6, minute: 30, weekdays: []).line
                == "alarm 0: on, 06:30, no day, once (it will not ring)")
        #expect(BandSedentaryReminder.factory.line == "sedentary reminder: off, 9 to 17, no day, once")
        let weekdays = try BandSedentaryReminder(
            isOn: true, startHour: 9, endHour: 17, weekdays: [.monday, .tuesday, .wednesday, .thursday, .friday])
        #expect(weekdays.line == "sedentary reminder: on, 9 to 17, weekdays, once")
        #expect(
            try BandPersonalInfo(gender: .woman, height: 168, weight: 60, age: 41, stepTarget: 8_000).line
                == "wearer: woman, 168 cm, 60 kg, 41 years, 8000 steps a day")
        #expect(
            try BandSportTargets([(.walk, 300), (BandSport(rawValue: 0x88), 500)]).lines == [
                "walk: 300 kcal", "cycling: 500 kcal",
            ])
    }
}

/// What a person names of a setting, applied to what the band has: only that changes.
@Suite("Band settings: changing only what is named (issue 52)")
struct BandSettingChangesTests {
    @Test(
        "options: the units alone change the units alone; a backlight hour of 24 or a background on a 9614N is refused")
    func options() throws {
        let band = try BandHardwareOptions(
            clock: .twelveHour, autoSleep: false, backlightStart: 21, backlightEnd: 6, language: .simplifiedChinese,
            leSwitch: false, wristSwitch: false)
        let changed = try BandHardwareOptions.Changes(units: .imperial).applied(to: band)
        #expect(
            changed
                == (try BandHardwareOptions(
                    units: .imperial, clock: .twelveHour, autoSleep: false, backlightStart: 21, backlightEnd: 6,
                    language: .simplifiedChinese, leSwitch: false, wristSwitch: false)))
        #expect(BandHardwareOptions.Changes().isEmpty && !BandHardwareOptions.Changes(leSwitch: true).isEmpty)
        #expect(throws: BandSettingError("options.backlightEnd", "must be 0 to 23")) {
            try BandHardwareOptions.Changes(backlight: BandHourRange(start: 22, end: 24)).check(for: .fitPro9614N)
        }
        #expect(throws: BandSettingError("options.whiteBackground", "exists on the Smartee Training 9616N only")) {
            try BandHardwareOptions.Changes(whiteBackground: true).check(for: .fitPulse9615N)
        }
        try BandHardwareOptions.Changes(whiteBackground: true).check(for: .smarteeTraining9616N)
        #expect(BandHourRange(parsing: "22-7") == BandHourRange(start: 22, end: 7))
        #expect(BandHourRange(parsing: "22") == nil && BandHourRange(parsing: "a-7") == nil)
    }

    @Test("the sedentary reminder: hours, days, repeat and switch each change alone; a whole the rules refuse throws")
    func sedentary() throws {
        let band = try BandSedentaryReminder(
            isOn: true, startHour: 9, endHour: 17, weekdays: [.repeatsWeekly, .monday])
        #expect(
            try BandSedentaryReminder.Changes(endHour: 20).applied(to: band)
                == (try BandSedentaryReminder(
                    isOn: true, startHour: 9, endHour: 20, weekdays: [.repeatsWeekly, .monday])))
        #expect(
            try BandSedentaryReminder.Changes(days: .friday).applied(to: band).weekdays == [.repeatsWeekly, .friday])
        #expect(try BandSedentaryReminder.Changes(repeatsWeekly: false).applied(to: band).weekdays == .monday)
        #expect(try BandSedentaryReminder.Changes(isOn: false).applied(to: band).isOn == false)
        // the end before the band's start: known only once the band's reminder is read
        try BandSedentaryReminder.Changes(endHour: 8).check()
        #expect(throws: BandSettingError("sedentary.end", "must be after the start hour")) {
            try BandSedentaryReminder.Changes(endHour: 8).applied(to: band)
        }
        for (changes, field) in [
            (BandSedentaryReminder.Changes(startHour: 24), "sedentary.start"),
            (BandSedentaryReminder.Changes(endHour: 24), "sedentary.end"),
            (BandSedentaryReminder.Changes(startHour: 17, endHour: 9), "sedentary.end"),
            (BandSedentaryReminder.Changes(isOn: true, days: []), "sedentary.weekdays"),
        ] {
            #expect(performing: { try changes.check() }, throws: { ($0 as? BandSettingError)?.field == field })
        }
    }

    @Test("an alarm: a set one changes only what is named; one not set needs its time and days and rings")
    func alarm() throws {
        let band = try BandAlarm(id: 2, isOn: true, hour: 6, minute: 30, weekdays: [.repeatsWeekly, .monday])
        let later = try BandAlarm.Changes(time: BandTimeOfDay(parsing: "07:15")).applied(to: band, id: 2)
        #expect(later == (try BandAlarm(id: 2, isOn: true, hour: 7, minute: 15, weekdays: [.repeatsWeekly, .monday])))
        #expect(try BandAlarm.Changes(isOn: false).applied(to: band, id: 2).weekdays == band.weekdays)
        #expect(throws: BandSettingError("alarm.time", "is required: alarm 4 is not set yet")) {
            try BandAlarm.Changes(days: .monday).applied(to: nil, id: 4)
        }
        #expect(throws: BandSettingError("alarm.days", "are required: alarm 4 is not set yet")) {
            try BandAlarm.Changes(time: BandTimeOfDay(parsing: "07:15")).applied(to: nil, id: 4)
        }
        let new = try BandAlarm.Changes(time: BandTimeOfDay(parsing: "07:15"), days: .sunday, repeatsWeekly: true)
            .applied(to: nil, id: 4)
        #expect(new.rings && new.id == 4 && new.weekdays == [.repeatsWeekly, .sunday])
    }

    @Test("the wearer: one part changes alone; a band without a wearer needs all five, the first missing named")
    func wearer() throws {
        let band = try BandPersonalInfo(gender: .woman, height: 168, weight: 60, age: 41, stepTarget: 8_000)
        #expect(
            try BandPersonalInfo.Changes(weight: 62).applied(to: band)
                == (try BandPersonalInfo(gender: .woman, height: 168, weight: 62, age: 41, stepTarget: 8_000)))
        #expect(
            throws: BandSettingError(
                "personal.gender", "is required: the band has no wearer yet (give gender, height, age, target)")
        ) { try BandPersonalInfo.Changes(weight: 62).applied(to: nil) }
        #expect(throws: BandSettingError("personal.weight", "must be 10 to 250 kg")) {
            try BandPersonalInfo.Changes(weight: 300).check()
        }
    }

    @Test("sports: those named are set or removed, the others stay; walking stays among them")
    func sports() throws {
        let cycling = BandSport(rawValue: 0x88)
        let swim = BandSport(rawValue: 0x83)
        let band = try BandSportTargets([(.walk, 300), (cycling, 500)])
        #expect(
            try BandSportTargets.Changes(targets: [(cycling, 600), (swim, 200)]).applied(to: band)
                == (try BandSportTargets([(.walk, 300), (cycling, 600), (swim, 200)])))
        #expect(
            try BandSportTargets.Changes(removed: [cycling]).applied(to: band) == (try BandSportTargets([(.walk, 300)]))
        )
        // walking is known only once the band's sports are read
        try BandSportTargets.Changes(targets: [(cycling, 500)]).check()
        #expect(throws: BandSettingError("sports", "must include walking (0x01)")) {
            try BandSportTargets.Changes(targets: [(cycling, 500)]).applied(to: nil)
        }
        #expect(throws: BandSettingError("sports", "must include walking (0x01)")) {
            try BandSportTargets.Changes(removed: [.walk]).check()
        }
        #expect(throws: BandSettingError("sports[0].target", "must be 1 to 65535 kcal")) {
            try BandSportTargets.Changes(targets: [(cycling, 0)]).check()
        }
        let six = BandSport.table.prefix(6).map { ($0.sport, 100) }
        #expect(throws: BandSettingError("sports", "must be 1 to 5 sports (6 given)")) {
            try BandSportTargets.Changes(targets: six).check()
        }
    }
}
