import ArgumentParser
import Foundation
import LayeredProtocol
import VitalBridge
import VitalCore
import VitalDevices
import VitalHome
import VitalStore

/// `vitalbridge band …`: the smartbands' own API (VitalBridge's devicemodels 700–702), beyond what the layered
/// protocol offers: following the band's pushes, and every setting of the SDK document, each checked before
/// anything is sent. Whatever the band pushes while a command runs is stored before it is acknowledged.
struct BandCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "band",
        abstract: "Follow a smartband's pushes and change its settings (Fit Pro 9614N, Fit Pulse 9615N, Smartee …).",
        discussion: """
            The band must be a device of the hub (add it first with a layered request, cmd 1 or 4, devicemodel
            700, 701 or 702). Every command stores what the band pushes while it runs before the band may forget
            it. A setting the SDK document's rules refuse is an error naming the field; nothing is sent then.

            Examples:
              vitalbridge band follow --mac 004D3208D310
              vitalbridge band targets --mac 004D3208D310 --sport walk=300 --sport cycling=500
              vitalbridge band alarm --mac 004D3208D310 --id 0 --time 06:30 --days mon,tue,wed,thu,fri --repeat
            """,
        subcommands: [
            Scan.self, Follow.self, Info.self, Today.self, Sports.self, Bind.self, Unbind.self, Targets.self,
            Alarms.self, Alarm.self, Sedentary.self, Schedule.self, Personal.self, Options.self, Text.self, Camera.self,
            Reset.self, SportData.self, HourlyHeartRate.self, State.self,
        ])
}

/// `--home`, `--transport` and `--mac` of every band command: the device's options.
typealias BandOptions = DeviceOptions

extension DeviceOptions {
    /// Runs `body` on the band through the engine (``DeviceDesk/withBand(_:doing:_:)``): under its lease, what it
    /// pushes meanwhile stored. A band the hub does not know, a device that is not a band, a broken rule or a
    /// failing band exits 1 with one line saying why.
    func withBand<T: Sendable>(
        doing operation: String, _ body: @escaping @Sendable (SmartbandDriver, any RecordSink) async throws -> T
    ) async throws -> T {
        try await onBand { desk throws(DeviceDeskError) in try await desk.withBand(address, doing: operation, body) }
    }

    /// Runs `body` with the engine's desk on the home; its refusal exits 1 with one line, and a band the hub does
    /// not know gets the request that adds it.
    func onBand<T>(_ body: (DeviceDesk) async throws(DeviceDeskError) -> T) async throws -> T {
        let desk = try desk(readOnly: false)
        let advice = { await desk.bandAddAdvice(address) }
        return try await refusing(advice: advice) { () throws(DeviceDeskError) in try await body(desk) }
    }

    /// Runs `command` on the band (the rules were checked when it was made) and prints `done`.
    func run(_ command: BandCommand.Kind, saying done: String) async throws {
        _ = try await withBand(doing: "the command") { driver, sink in
            try await driver.run(command, storingInto: sink)
        }
        print(done)
    }
}

extension BandCommand {
    typealias Kind = VitalDevices.BandCommand

    /// A setting's rule broken: one line naming the field, exit 1, nothing sent.
    static func refuse(_ error: BandSettingError) -> CommandError {
        CommandError("refused: \(error)")
    }

    /// Runs a rule-checked constructor, turning its refusal into ``refuse(_:)``.
    static func checked<T>(_ make: () throws(BandSettingError) -> T) throws -> T {
        do {
            return try make()
        } catch {
            throw refuse(error)
        }
    }

    /// `on`/`off`, as an option's value or as the flags `--on` and `--off`.
    enum Switch: String, ExpressibleByArgument, EnumerableFlag {
        case on, off
        var isOn: Bool { self == .on }
    }

    /// `--repeat` or `--once`: weekly, or one time.
    enum Repetition: String, EnumerableFlag {
        case `repeat`, once
        var repeats: Bool { self == .repeat }
    }

    /// Days of the week: `mon,tue,…,sun`, `weekdays`, `weekend` or `every-day`.
    static func weekdays(_ text: String) throws -> BandWeekdays {
        do {
            return try BandWeekdays(parsing: text)
        } catch {
            throw ValidationError("--days: \(error.message)")
        }
    }

    /// The reader of `option`'s time of day, `HH:mm`: a usage error that says the form.
    static func time(_ option: String) -> @Sendable (String) throws -> BandTimeOfDay {
        reading(BandTimeOfDay.init(parsing:), else: "\(option) must be HH:mm, 00:00 to 23:59")
    }

    /// A sport's calorie target, `SPORT=KCAL`: the sport by its name in the band's table or its code (`0x0b`).
    static func sportTarget(_ text: String) throws -> (sport: BandSport, calories: Int) {
        let parts = text.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, let calories = Int(parts[1]) else {
            throw ValidationError("--sport must be SPORT=KCAL, e.g. walk=300 (got '\(text)')")
        }
        return (try sport("--sport")(String(parts[0])), calories)
    }

    /// The reader of `option`'s sport, by its name in the band's table or its code (`0x88`).
    static func sport(_ option: String) -> @Sendable (String) throws -> BandSport {
        reading(BandSport.init(named:)) { "\(option): '\($0)' is not a sport of the band's table" }
    }

    struct Follow: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "follow",
            abstract: "Hold the connection and store every push the moment it arrives, until SIGINT or SIGTERM.",
            discussion: """
                Switches the band's sport-data push and hourly heart rate on, then stores each item as the band
                pushes it (a finished sport at once, each heart-rate hour at its turn) and acknowledges it only
                once committed. A dropped link is reconnected (after 0.5 s, doubling to 30 s while it fails),
                with batches half as large each time (512 down to 16), so that a link that never holds for a full
                batch still progresses. SIGINT or SIGTERM stops it cleanly: nothing acknowledged was uncommitted, and what the band still
                holds it sends again next time. --hours stops it after that many hours of the band's clock (the
                simulator's runs a day in well under a second).

                Examples:
                  vitalbridge band follow --mac 004D3208D310
                  vitalbridge band follow --mac 004D3208D310 --hours 24
                """)

        @OptionGroup var band: BandOptions

        @Option(help: "Stop after this many hours of the band's clock (1 to 87600).")
        var hours: Int?

        func validate() throws {
            if let hours, !(1...87_600).contains(hours) { throw ValidationError("--hours must be 1 to 87600") }
        }

        func run() async throws {
            let stop = SignalWatcher.watch([SIGINT, SIGTERM], secondEnds: false)
            let claim = try claimHome(band.homeOptions.home, for: .follower("band follow"))
            let hours = self.hours
            let mac = band.address
            let total = try await band.onBand { desk throws(DeviceDeskError) in
                // the body throws only the desk's errors; cancelling(_:) does not say so in its type
                do {
                    return try await stop.cancelling {
                        try await desk.follow(mac, hours: hours) { event in if let line = event.line { print(line) } }
                    }
                } catch let error as DeviceDeskError {
                    throw error
                } catch {
                    throw DeviceDeskError(.device, "\(mac): follow failed: \(error)")
                }
            }
            withExtendedLifetime(claim) { print("stopped: \(total) item(s) stored") }
        }
    }

    struct Scan: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "scan",
            abstract: "Scan for smartbands (their band service, 0xFFD0) and list those found.",
            discussion: "Example:\n  vitalbridge band scan")
        @OptionGroup var homeOptions: HomeOptions

        func run() async throws {
            print(try await openHub(homeOptions.home).bandTable())
        }
    }

    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "info",
            abstract: "Show the band's model, firmware, battery and clock (and store what it pushes).",
            discussion: "Each connection reads the band's clock, sets it when over 2 s off and moves what it dated by"
                + " the offset.\n\nExample:\n  vitalbridge band info --mac 004D3208D310")
        @OptionGroup var band: BandOptions

        func run() async throws {
            let (model, info, clock) = try await band.withBand(doing: "device information") { driver, sink in
                let info = try await driver.deviceInfo()
                try await driver.run(.getToday, storingInto: sink)
                return (driver.entry.model, info, driver.lastClockReading)
            }
            print(info.line(model: model))
            print("clock: " + (clock.map(\.description) ?? "the band has no clock the hub can read"))
        }
    }

    struct Today: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "today",
            abstract: "Ask the band for today's totals now, store them, and show today as a caller would get it.",
            discussion: "Example:\n  vitalbridge band today --mac 004D3208D310")
        @OptionGroup var band: BandOptions

        func run() async throws {
            let today = try await band.onBand { desk throws(DeviceDeskError) in
                try await desk.bandToday(band.address)
            }
            print(today.map { $0.resultObject(unit: .kilometre).json } ?? "nothing recorded today")
        }
    }

    struct Sports: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sports",
            abstract: "List the sports the band says it supports (not all may be activated: see targets).",
            discussion: """
                Each line: the sport's code, its name in the SDK document's table, then the band's own name for it
                and its unit (the SDK's getSupportSportsList NAME and UNIT), e.g. `0x1  walk  走路 (步)`.

                Example:
                  vitalbridge band sports --mac 004D3208D310
                """)
        @OptionGroup var band: BandOptions

        func run() async throws {
            let (list, names) = try await band.withBand(doing: "the sports list") { driver, sink in
                try await driver.supportedSports(storingInto: sink)
            }
            print(list.lines(names: names).joined(separator: "\n"))
        }
    }

    struct Bind: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bind",
            abstract: "Bind the band to this hub under a user id.",
            discussion: "Example:\n  vitalbridge band bind --mac 004D3208D310 --user-id 1111")
        @OptionGroup var band: BandOptions
        @Option(help: "The user id, 1 to 4294967295.") var userID: UInt32

        func validate() throws { if userID == 0 { throw ValidationError("--user-id must be 1 to 4294967295") } }
        func run() async throws { try await band.run(.bind(userID: userID), saying: "bound to user \(userID)") }
    }

    struct Unbind: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unbind",
            abstract: "Unbind the band.", discussion: "Example:\n  vitalbridge band unbind --mac 004D3208D310")
        @OptionGroup var band: BandOptions
        func run() async throws { try await band.run(.unbind, saying: "unbound") }
    }

    struct Text: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "text",
            abstract: "Show a text on the band (1 to 60 bytes of UTF-8, no control characters).",
            discussion: "Example:\n  vitalbridge band text --mac 004D3208D310 'Time for a walk'")
        @OptionGroup var band: BandOptions
        @Argument(help: "The text.") var text: String

        func run() async throws {
            let command = try BandCommand.checked { () throws(BandSettingError) in try Kind.pushing(text) }
            try await band.run(command, saying: "text sent")
        }
    }

    struct Camera: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "camera",
            abstract: "Switch camera mode: the band's button then takes a picture (shown by band follow).",
            discussion: "Example:\n  vitalbridge band camera --mac 004D3208D310 on")
        @OptionGroup var band: BandOptions
        @Argument(help: "on or off.") var mode: Switch

        func run() async throws { try await band.run(.cameraMode(mode.isOn), saying: "camera mode \(mode.rawValue)") }
    }

    struct SportData: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sport-data",
            abstract: "Switch the band's sport-data push on or off (the SDK's sportDataSwichOn).",
            discussion: """
                On, the band pushes each finished sport and the day's data at once while connected; off, it keeps
                them until the switch is on again (nothing is lost: it sends them at the next sync). band follow
                switches it on.

                Examples:
                  vitalbridge band sport-data --mac 004D3208D310 off
                  vitalbridge band sport-data --mac 004D3208D310 on
                """)
        @OptionGroup var band: BandOptions
        @Argument(help: "on or off.") var mode: Switch

        func run() async throws {
            try await band.run(.sportDataSwitch(mode.isOn), saying: "sport data \(mode.rawValue)")
        }
    }

    struct HourlyHeartRate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "hourly-hr",
            abstract: "Switch the band's hourly heart-rate push on or off (the SDK's getHRDataOfHours).",
            discussion: """
                On, the band pushes each completed hour of heart rate at the turn of the hour while connected; off,
                it keeps them for the next sync. band follow switches it on.

                Examples:
                  vitalbridge band hourly-hr --mac 004D3208D310 on
                  vitalbridge band hourly-hr --mac 004D3208D310 off
                """)
        @OptionGroup var band: BandOptions
        @Argument(help: "on or off.") var mode: Switch

        func run() async throws {
            try await band.run(.heartRateHourly(mode.isOn), saying: "hourly heart rate \(mode.rawValue)")
        }
    }

    struct State: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "state",
            abstract: "Show whether the band connects, to which user it is bound, and its switches.",
            discussion: """
                The SDK's currentState, isConnected and isBinded: the hub connects to the band, asks its state, and
                prints one line each. A band out of range is an error (exit 1) saying why it did not connect.

                Example:
                  vitalbridge band state --mac 004D3208D310
                """)
        @OptionGroup var band: BandOptions

        func run() async throws {
            let status = try await band.withBand(doing: "band state") { driver, sink in
                try await driver.status(storingInto: sink)
            }
            print((["connected: yes"] + status.lines).joined(separator: "\n"))
        }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset",
            abstract: "Reset the band to its factory state, after storing everything it holds.",
            discussion: "Example:\n  vitalbridge band reset --mac 004D3208D310 --yes")
        @OptionGroup var band: BandOptions
        @Flag(help: "Confirm: the band's settings and memory are erased.") var yes = false

        func validate() throws {
            if !yes { throw ValidationError("a reset erases the band: confirm with --yes") }
        }

        func run() async throws {
            // the band holds nothing unstored by then: the reset follows a sync on the same link
            let stored = try await band.onBand { desk throws(DeviceDeskError) in try await desk.reset(band.address) }
            print("stored \(stored) item(s), then reset the band")
        }
    }
}
