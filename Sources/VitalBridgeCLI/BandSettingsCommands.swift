import ArgumentParser
import Foundation
import VitalCore
import VitalDevices

/// The band's settings: sport targets, alarms, the sedentary reminder, schedules, the wearer's body and the
/// hardware options, each checked by its rule before anything is sent.
extension BandCommand {
    struct Targets: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "targets",
            abstract: "Show the band's active sports, or set or remove some (1 to 5, walking among them).",
            discussion: """
                Without options, prints the active sports and their calorie targets, read from the band. --sport
                sets a sport's target (activating it), --remove deactivates one; the others stay. A sport is its
                name in the band's table or its code (walk, cycling, 0x88); a target is 1 to 65535 kcal, all week.

                Examples:
                  vitalbridge band targets --mac 004D3208D310
                  vitalbridge band targets --mac 004D3208D310 --sport walk=300 --sport cycling=500
                  vitalbridge band targets --mac 004D3208D310 --remove cycling
                """)
        @OptionGroup var band: BandOptions
        @Option(
            name: .customLong("sport"), help: "SPORT=KCAL, repeated for each sport.",
            transform: BandCommand.sportTarget)
        var targets: [(sport: BandSport, calories: Int)] = []
        @Option(help: "A sport to deactivate, repeated.", transform: BandCommand.sport("--remove")) var remove:
            [BandSport] = []

        func run() async throws {
            let changes = BandSportTargets.Changes(targets: targets, removed: remove)
            let set = try await band.withBand(doing: "the sports") { driver, sink in
                try await driver.changeSportTargets(changes, storingInto: sink)
            }
            print((set?.lines ?? ["no sports set"]).joined(separator: "\n"))
        }
    }

    struct Alarms: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "alarms",
            abstract: "Show the band's 8 alarms, read from the band.",
            discussion: "Example:\n  vitalbridge band alarms --mac 004D3208D310")
        @OptionGroup var band: BandOptions

        func run() async throws {
            let alarms = try await band.withBand(doing: "the alarms") { driver, sink in
                try await driver.alarms(storingInto: sink)
            }
            for (id, alarm) in alarms.enumerated() { print(alarm?.line ?? "alarm \(id): not set") }
        }
    }

    struct Alarm: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "alarm",
            abstract: "Show alarm 0–7, or change what is given of it: time, days, repeat, on or off.",
            discussion: """
                An alarm rings when on, at its time, on its days (once, or every week with --repeat). Only what
                is given changes; an alarm not set yet needs --time and --days, and is switched on unless --off.
                Prints the alarm as written to the band.

                Examples:
                  vitalbridge band alarm --mac 004D3208D310 --id 7 --time 06:30 --days mon,fri --repeat
                  vitalbridge band alarm --mac 004D3208D310 --id 7 --off
                """)
        @OptionGroup var band: BandOptions
        @Option(help: "The alarm, 0 to 7.") var id: Int
        @Option(help: "HH:mm.", transform: BandCommand.time("--time")) var time: BandTimeOfDay?
        @Option(help: "mon,tue,…,sun, weekdays, weekend or every-day.", transform: BandCommand.weekdays)
        var days: BandWeekdays?
        @Flag(help: "Ring every week on its days, or once.") var repetition: Repetition?
        @Flag(help: "Switch the alarm on or off.") var toggle: Switch?

        func run() async throws {
            let changes = BandAlarm.Changes(
                isOn: toggle?.isOn, time: time, days: days, repeatsWeekly: repetition?.repeats)
            let alarm = try await band.withBand(doing: "the alarm") { [id] driver, sink in
                try await driver.changeAlarm(id, changes, storingInto: sink)
            }
            print(alarm?.line ?? "alarm \(id): not set")
        }
    }

    struct Sedentary: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sedentary",
            abstract: "Show the one sedentary reminder, or change what is given of it: hours, days, repeat, switch.",
            discussion: """
                Only what is given changes. --repeat sets the weekly repeat bit (b7 of weekRepeat): the reminder
                comes back every week on its days; --once clears it. Prints the reminder as written to the band.

                Examples:
                  vitalbridge band sedentary --mac 004D3208D310
                  vitalbridge band sedentary --mac 004D3208D310 --from 9 --to 17 --days weekdays --repeat --on
                """)
        @OptionGroup var band: BandOptions
        @Option(help: "The first hour, 0 to 23.") var from: Int?
        @Option(help: "The last hour, after the first.") var to: Int?
        @Option(help: "mon,tue,…,sun, weekdays, weekend or every-day.", transform: BandCommand.weekdays)
        var days: BandWeekdays?
        @Flag(help: "Remind every week on its days, or once.") var repetition: Repetition?
        @Flag(help: "Switch the reminder on or off.") var toggle: Switch?

        func run() async throws {
            let changes = BandSedentaryReminder.Changes(
                isOn: toggle?.isOn, startHour: from, endHour: to, days: days, repeatsWeekly: repetition?.repeats)
            let reminder = try await band.withBand(doing: "the sedentary reminder") { driver, sink in
                try await driver.changeSedentaryReminder(changes, storingInto: sink)
            }
            print(reminder.line)
        }
    }

    struct Schedule: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "schedule",
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
        @Option(help: "yyyy-MM-dd.", transform: reading(CalendarDate.init(parsing:), else: "--date must be yyyy-MM-dd"))
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
            commandName: "personal",
            abstract: "Show the wearer, or change what is given: gender, height, weight, age, daily step target.",
            discussion: """
                Only what is given changes (a band without a wearer needs all five); prints the wearer then. The
                band's gender codes are 0 man, 1 woman: the opposite of the layered protocol's sex (0 female, 1 male).

                Examples:
                  vitalbridge band personal --mac 004D3208D310
                  vitalbridge band personal --mac 004D3208D310 --gender woman --height 168 --weight 60 --age 41 --step-target 8000
                """, aliases: ["wearer"])
        enum Gender: String, ExpressibleByArgument, CaseIterable { case man, woman }
        @OptionGroup var band: BandOptions
        @Option(help: "man or woman.") var gender: Gender?
        @Option(help: "Centimetres, 50 to 250.") var height: Int?
        @Option(help: "Kilograms, 10 to 250.") var weight: Int?
        @Option(help: "Years, 1 to 120.") var age: Int?
        @Option(help: "Steps a day, 1 to 100000.") var stepTarget: Int?

        func run() async throws {
            let changes = BandPersonalInfo.Changes(
                gender: gender.map { $0 == .man ? .man : .woman }, height: height, weight: weight, age: age,
                stepTarget: stepTarget)
            let info = try await band.withBand(doing: "the wearer") { driver, sink in
                try await driver.changePersonalInfo(changes, storingInto: sink)
            }
            print(info?.line ?? "wearer: not set")
        }
    }

    struct Options: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "options",
            abstract: "Show the band's hardware options, or change those given: units, clock, sleep, backlight, …",
            discussion: """
                Without an option, prints the options read from the band; with some, changes only those, keeps
                the others and prints them. A white background exists on the Smartee Training 9616N only.

                Examples:
                  vitalbridge band options --mac 004D3208D310
                  vitalbridge band options --mac 004D3208D310 --units imperial --clock 12 --backlight 21-6
                """)
        enum Units: String, ExpressibleByArgument, CaseIterable { case metric, imperial }
        enum Clock: String, ExpressibleByArgument, CaseIterable {
            case twelve = "12"
            case twentyFour = "24"
        }
        enum Language: String, ExpressibleByArgument, CaseIterable { case english, chinese }
        @OptionGroup var band: BandOptions
        @Option(help: "metric or imperial.") var units: Units?
        @Option(help: "12 or 24.") var clock: Clock?
        @Option(help: "on or off.") var autoSleep: Switch?
        @Option(
            help: "The backlight's night hours, START-END, each 0 to 23.",
            transform: reading(BandHourRange.init(parsing:), else: "--backlight must be START-END, e.g. 22-7"))
        var backlight: BandHourRange?
        @Option(help: "on or off (Smartee Training 9616N only).") var whiteBackground: Switch?
        @Option(help: "english or chinese.") var language: Language?
        @Option(help: "on or off.") var le: Switch?
        @Option(help: "on or off: wake the screen when the wrist turns.") var wrist: Switch?

        func run() async throws {
            let changes = BandHardwareOptions.Changes(
                units: units.map { $0 == .metric ? .metric : .imperial },
                clock: clock.map { $0 == .twentyFour ? .twentyFourHour : .twelveHour }, autoSleep: autoSleep?.isOn,
                backlight: backlight, whiteBackground: whiteBackground?.isOn,
                language: language.map { $0 == .english ? .english : .simplifiedChinese }, leSwitch: le?.isOn,
                wristSwitch: wrist?.isOn)
            let options = try await band.withBand(doing: "the options") { driver, sink in
                try await driver.changeHardwareOptions(changes, storingInto: sink)
            }
            print(options.lines.joined(separator: "\n"))
        }
    }
}
