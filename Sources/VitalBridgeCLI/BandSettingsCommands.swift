import ArgumentParser
import Foundation
import VitalCore
import VitalDevices

/// The band's settings: sport targets, alarms, the sedentary reminder, schedules, the wearer's body and the
/// hardware options, each checked by its rule before anything is sent.
extension BandCommand {
    struct Targets: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Activate 1 to 5 sports, walking among them, each with a calorie target (all 7 days).",
            discussion: """
                A sport is its name in the band's table or its code (walk, cycling, 0x88); the target is 1 to 65535
                kcal.

                Example:
                  vitalbridge band targets --mac 004D3208D310 --sport walk=300 --sport cycling=500
                """)
        @OptionGroup var band: BandOptions
        @Option(
            name: .customLong("sport"), help: "SPORT=KCAL, repeated for each sport.",
            transform: BandCommand.sportTarget)
        var targets: [(sport: BandSport, calories: Int)]

        func run() async throws {
            let checked = try BandCommand.checked { () throws(BandSettingError) in try BandSportTargets(targets) }
            try await band.run(.setSportTargets(checked), saying: "\(targets.count) sport(s) activated")
        }
    }

    struct Alarm: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set alarm 0–7: it rings when on, at a time, on the days given (once, or every week).",
            discussion:
                "Example:\n  vitalbridge band alarm --mac 004D3208D310 --id 7 --time 06:30 --days mon,fri --repeat")
        @OptionGroup var band: BandOptions
        @Option(help: "The alarm, 0 to 7.") var id: Int
        @Option(help: "HH:mm.", transform: BandCommand.time("--time")) var time: BandTimeOfDay
        @Option(help: "mon,tue,…,sun, weekdays, weekend or every-day.", transform: BandCommand.weekdays)
        var days: BandWeekdays
        @Flag(help: "Ring every week on those days (else once).") var `repeat` = false
        @Flag(help: "Store the alarm switched off.") var off = false

        func run() async throws {
            var weekdays = days
            if `repeat` { weekdays.insert(.repeatsWeekly) }
            let alarm = try BandCommand.checked { () throws(BandSettingError) in
                try BandAlarm(id: id, isOn: !off, hour: time.hour, minute: time.minute, weekdays: weekdays)
            }
            try await band.run(.setAlarm(alarm), saying: "alarm \(id) set\(alarm.rings ? "" : " (it will not ring)")")
        }
    }

    struct Sedentary: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the one sedentary reminder: between two hours, on the days given.",
            discussion: """
                --repeat sets the weekly repeat bit (b7 of weekRepeat): the reminder comes back every week on those
                days; without it, once.

                Example:
                  vitalbridge band sedentary --mac 004D3208D310 --from 9 --to 17 --days weekdays --repeat
                """)
        @OptionGroup var band: BandOptions
        @Option(help: "The first hour, 0 to 23.") var from: Int
        @Option(help: "The last hour, after --from.") var to: Int
        @Option(help: "mon,tue,…,sun, weekdays, weekend or every-day.", transform: BandCommand.weekdays)
        var days: BandWeekdays
        @Flag(help: "Remind every week on those days (else once).") var `repeat` = false
        @Flag(help: "Switch the reminder off.") var off = false

        func run() async throws {
            var weekdays = days
            if `repeat` { weekdays.insert(.repeatsWeekly) }
            let reminder = try BandCommand.checked { () throws(BandSettingError) in
                try BandSedentaryReminder(isOn: !off, startHour: from, endHour: to, weekdays: weekdays)
            }
            try await band.run(
                .setSedentary(reminder), saying: "sedentary reminder set" + (`repeat` ? ", every week" : ", once"))
        }
    }

    struct Schedule: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write, check, delete, clear or list the band's schedules (at most 4 a day, one a minute).",
            discussion: """
                The title has 1 to 20 characters, the subtitle at most 33. Before writing, add reads the band's
                schedule info and refuses a fifth schedule on a day (schedule.date) or a second at the same minute
                (schedule.time); nothing is written then. info shows the band's limit and every minute it holds an
                entry at (the SDK's readScheduleInfo).

                Examples:
                  vitalbridge band schedule add --mac 004D3208D310 --date 2026-11-24 --time 09:30 --title Physio
                  vitalbridge band schedule check --mac 004D3208D310 --date 2026-11-24 --time 09:30
                  vitalbridge band schedule delete --mac 004D3208D310 --date 2026-11-24 --time 09:30
                  vitalbridge band schedule clear --mac 004D3208D310
                  vitalbridge band schedule info --mac 004D3208D310
                """)
        enum Action: String, ExpressibleByArgument, CaseIterable { case add, check, delete, clear, info }
        @Argument(help: "add, check, delete, clear or info.") var action: Action
        @OptionGroup var band: BandOptions
        @Option(
            help: "yyyy-MM-dd.",
            transform: { text in
                guard let day = CalendarDate(parsing: text) else { throw ValidationError("--date must be yyyy-MM-dd") }
                return day
            })
        var date: CalendarDate?
        @Option(help: "HH:mm.", transform: BandCommand.time("--time")) var time: BandTimeOfDay?
        @Option(help: "1 to 20 characters (add).") var title: String?
        @Option(help: "At most 33 characters (add).") var subtitle: String = ""

        func validate() throws {
            guard action != .clear, action != .info else { return }
            guard date != nil else { throw ValidationError("--date must be yyyy-MM-dd") }
            guard time != nil else { throw ValidationError("--time must be HH:mm, 00:00 to 23:59") }
        }

        func run() async throws {
            if action == .clear {
                try await band.run(.clearSchedules, saying: "schedules cleared")
                return
            }
            if action == .info {
                let info = try await band.withBand(doing: "the schedule information") { driver, sink in
                    try await driver.scheduleInfo(storingInto: sink)
                }
                print("\(info.slots.count) schedule(s) set, at most \(info.maximumPerDay) a day")
                for slot in info.slots { print(slot.description) }
                return
            }
            // validate() made sure add, check and delete have both
            guard let day = date, let time else { return }
            let (hour, minute) = (time.hour, time.minute)
            switch action {
            case .add:
                let schedule = try BandCommand.checked { () throws(BandSettingError) in
                    try BandSchedule(date: day, hour: hour, minute: minute, title: title ?? "", subtitle: subtitle)
                }
                _ = try await band.withBand(doing: "the schedule") { driver, sink in
                    try await driver.writeChecked(schedule, storingInto: sink)
                }
                print("schedule written")
            case .delete:
                try await band.run(.deleteSchedule(day, hour: hour, minute: minute), saying: "schedule deleted")
            case .check:
                let answers = try await band.withBand(doing: "the schedule check") { driver, sink in
                    try await driver.run(.readSchedule(day, hour: hour, minute: minute), storingInto: sink)
                }
                print(answers.contains(.scheduleExists(true)) ? "a schedule is set then" : "no schedule then")
            case .clear, .info:
                break
            }
        }
    }

    struct Personal: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the wearer: gender, height, weight, age and daily step target.",
            discussion: """
                The band's gender codes are 0 man, 1 woman: the opposite of the layered protocol's sex (0 female,
                1 male); name it here.

                Example:
                  vitalbridge band personal --mac 004D3208D310 --gender woman --height 168 --weight 60 --age 41 --step-target 8000
                """)
        enum Gender: String, ExpressibleByArgument, CaseIterable { case man, woman }
        @OptionGroup var band: BandOptions
        @Option(help: "man or woman.") var gender: Gender
        @Option(help: "Centimetres, 50 to 250.") var height: Int
        @Option(help: "Kilograms, 10 to 250.") var weight: Int
        @Option(help: "Years, 1 to 120.") var age: Int
        @Option(help: "Steps a day, 1 to 100000.") var stepTarget: Int

        func run() async throws {
            let info = try BandCommand.checked { () throws(BandSettingError) in
                try BandPersonalInfo(
                    gender: gender == .man ? .man : .woman, height: height, weight: weight, age: age,
                    stepTarget: stepTarget)
            }
            try await band.run(.setPersonalInfo(info), saying: "personal information set")
        }
    }

    struct Options: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the band's hardware options: units, clock, automatic sleep, backlight, language, switches.",
            discussion: """
                Options left out take their defaults (metric, 24 h, automatic sleep on, backlight 22 to 7, English,
                LE and wrist switches on). A white background exists on the Smartee Training 9616N only.

                Example:
                  vitalbridge band options --mac 004D3208D310 --units imperial --clock 12 --backlight 21-6
                """)
        enum Units: String, ExpressibleByArgument, CaseIterable { case metric, imperial }
        enum Clock: String, ExpressibleByArgument, CaseIterable {
            case twelve = "12"
            case twentyFour = "24"
        }
        enum Language: String, ExpressibleByArgument, CaseIterable { case english, chinese }
        @OptionGroup var band: BandOptions
        @Option(help: "metric or imperial.") var units: Units = .metric
        @Option(help: "12 or 24.") var clock: Clock = .twentyFour
        @Option(help: "on or off.") var autoSleep: Switch = .on
        @Option(help: "The backlight's night hours, START-END, each 0 to 23.") var backlight = "22-7"
        @Option(help: "on or off (Smartee Training 9616N only).") var whiteBackground: Switch?
        @Option(help: "english or chinese.") var language: Language = .english
        @Option(help: "on or off.") var le: Switch = .on
        @Option(help: "on or off: wake the screen when the wrist turns.") var wrist: Switch = .on

        func validate() throws {
            guard Self.hours(backlight) != nil else {
                throw ValidationError("--backlight must be START-END, e.g. 22-7")
            }
        }

        /// `START-END` as two hours, or `nil`.
        static func hours(_ text: String) -> (start: Int, end: Int)? {
            let hours = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
            guard hours.count == 2, let start = hours[0], let end = hours[1] else { return nil }
            return (start, end)
        }

        func run() async throws {
            guard let hours = Self.hours(backlight) else { return }  // validate() refused it
            let (start, end) = hours
            let options = try BandCommand.checked { () throws(BandSettingError) in
                try BandHardwareOptions(
                    units: units == .metric ? .metric : .imperial,
                    clock: clock == .twentyFour ? .twentyFourHour : .twelveHour, autoSleep: autoSleep.isOn,
                    backlightStart: start, backlightEnd: end, whiteBackground: whiteBackground?.isOn,
                    language: language == .english ? .english : .simplifiedChinese, leSwitch: le.isOn,
                    wristSwitch: wrist.isOn)
            }
            _ = try await band.withBand(doing: "the options") { driver, sink in
                guard options.whiteBackground == nil || driver.entry.model == .smarteeTraining9616N else {
                    throw BandSettingError("options.whiteBackground", "exists on the Smartee Training 9616N only")
                }
                return try await driver.run(.setHardwareOptions(options), storingInto: sink)
            }
            print("options set")
        }
    }
}
