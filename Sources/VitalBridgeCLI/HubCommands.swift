import ArgumentParser
import Foundation
import LayeredProtocol
import VitalBridge
import VitalCore
import VitalDevices
import VitalExports
import VitalHome
import VitalSimulation
import VitalStore

/// `vitalbridge open URL`: act as the layered app for one request.
struct OpenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Handle one layered-app request URL and print the callback URL.",
        discussion: """
            Prints exactly the callback URL, as one line, and exits 0 whenever a callback was handed over \
            (success, fail or cancel). When none may be sent (not an ihealth-layer:// URL, an unknown caller, a \
            scheme that does not match the caller's whitelist entry, a callerurl that is not a custom app scheme) it \
            prints one line on stderr and exits 3. A home that cannot be used answers ERROR_STORE when the whitelist \
            names the destination, else exits 1. If the callback cannot be written out, it exits 5 and its \
            readings stay pending. Usage errors exit 2.

            With --deliver the callback is not printed but opened, as an app opens another app's URL: through \
            --opener, else $VITALBRIDGE_OPENER, else xdg-open (a program, then any arguments before the URL). It \
            counts as delivered only when the opener exits 0; otherwise the command says why on stderr and exits \
            5, and the next request delivers its readings. This is the form a desktop's URL handler runs (see \
            install-handler). It also answers ShareVitalSigns requests (svs-…://), opening <requester>://. The \
            callback is then in the opener's arguments, which other local users can read in /proc unless it is \
            mounted with hidepid=2.

            When standard input and standard error are a terminal, a person answers the phone's dialogs there: \
            the connect prompt of popflag=1, the QR code of addtype=1 without --scan-qr (typed, or @FILE), the \
            device to use when an add by scan finds several, and Ctrl-C cancels the stage that runs \
            (ERROR_CANCEL). Without a terminal, a graphical session shows them as zenity or kdialog dialogs; else a \
            simulated home's fleet file answers what it scripts; else nobody can be asked, and the add fails with \
            ERROR_NO_PROMPT or ERROR_SEVERAL_DEVICES:<count>.

            The caller is --caller if given, else the request's appid, else the whitelisted caller whose callback \
            scheme is the request's scheme.

            Delivery is at least once: a reading counts as delivered only after its callback was written out in \
            full, so after a crash it may come again. De-duplicate readings by device, measurement time and values \
            (two readings in one second are distinct when their values differ).

            --transport bluez reaches real devices through BlueZ (the system bus, or DBUS_SYSTEM_BUS_ADDRESS); it \
            speaks to the generic SIG devices (devicemodel 900-905) only, and answers any other model with \
            ERROR_UNSUPPORTED_TRANSPORT.

            Examples:
              vitalbridge open 'ihealth-layer://?cmd=0&devicemodel=100&mac=004D3208D2F4&unit=2&scheme=vitalbridge-demo'
              vitalbridge open --transport bluez 'ihealth-layer://?cmd=1&addtype=0&devicemodel=905&scheme=vitalbridge-demo'
              vitalbridge open --platform android 'ihealth-layer://?appid=org.vitalbridge.demo&cmd=2&devicemodel=400&mac=004D3208D308'
              vitalbridge open --scan-qr 'BP5:004D3208D2F4' 'ihealth-layer://?cmd=1&addtype=1&devicemodel=100&scheme=vitalbridge-demo'
              vitalbridge open --deliver 'ihealth-layer://?cmd=2&devicemodel=100&mac=004D3208D2F4&scheme=vitalbridge-demo'
            """
    )

    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var platformOptions: PlatformOptions
    @OptionGroup var transportOptions: TransportOptions

    @Option(help: "Who opened the URL, as the platform says (bundle or package id); at most once.")
    var caller: [String] = []

    @Option(
        name: .customLong("scan-qr"), help: "The text of the QR code the camera reads, for addtype=1; at most once.")
    var scanQR: [String] = []

    @Flag(help: "Open the callback with the desktop's opener instead of printing it.")
    var deliver = false

    @Option(help: "The opener for --deliver: a program and its leading arguments (default xdg-open); at most once.")
    var opener: [String] = []

    @Argument(help: "The request URL, quoted for the shell.")
    var url: String

    func validate() throws {
        guard caller.count <= 1 else { throw ValidationError("--caller may be given once") }
        guard scanQR.count <= 1 else { throw ValidationError("--scan-qr may be given once") }
        guard opener.count <= 1 else { throw ValidationError("--opener may be given once") }
        guard opener.isEmpty || deliver else { throw ValidationError("--opener is for --deliver") }
        if let text = opener.first, Opener(text) == nil {
            throw ValidationError("--opener must name a program, not '\(text.prefix(80))'")
        }
    }

    /// What the command line asked for.
    var invocation: OpenInvocation {
        OpenInvocation(
            home: homeOptions.home, platform: platformOptions.platform, caller: caller.first, scanQR: scanQR.first,
            transport: transportOptions.choice, delivery: deliver ? .opener(opener.first) : .standardOutput, url: url)
    }

    func run() async throws {
        let status = await invocation.run()
        guard status == .done else { throw CommandError(ending: status) }
    }
}

/// One `vitalbridge open`: what the command line asked for, and the run itself.
///
/// The hub's hot path. Its documented form is read by ``init(fastParsing:)`` without ArgumentParser, whose
/// command tree and property wrappers cost more at first use than the request itself; anything else (help, a
/// usage error) goes through ``OpenCommand``, which runs the same ``run()``.
struct OpenInvocation: Equatable {
    var home: String?
    var platform: Platform = .ios
    var caller: String?
    var scanQR: String?
    var transport = TransportChoice()
    var delivery = Delivery.standardOutput
    var url: String

    /// Where the callback goes: printed, or opened by the opener (the one named, else the configured one).
    enum Delivery: Equatable {
        case standardOutput
        case opener(String?)
    }

    init(
        home: String?, platform: Platform, caller: String?, scanQR: String?, transport: TransportChoice = .init(),
        delivery: Delivery = .standardOutput, url: String
    ) {
        self.home = home
        self.platform = platform
        self.caller = caller
        self.scanQR = scanQR
        self.transport = transport
        self.delivery = delivery
        self.url = url
    }

    /// `open [--home DIR] [--platform ios|android] [--caller ID] [--scan-qr TEXT] [--transport T] [--adapter A]
    /// [--deliver [--opener O]] URL`, each option at most once and with a valid value, the URL last; `nil` for
    /// anything else.
    init?(fastParsing arguments: [String]) {
        guard arguments.first == "open", arguments.count >= 2, let url = arguments.last, !url.hasPrefix("-") else {
            return nil
        }
        self.url = url
        var options = arguments[1..<(arguments.count - 1)]
        var seen = (home: false, platform: false, caller: false, scanQR: false, transport: false, adapter: false)
        var opener: String?
        while let name = options.popFirst() {
            if name == "--deliver" {
                guard delivery == .standardOutput else { return nil }
                delivery = .opener(nil)
                continue
            }
            guard let value = options.popFirst(), !value.hasPrefix("-") else { return nil }
            switch name {
            case "--home" where !seen.home && !value.isEmpty: (home, seen.home) = (value, true)
            case "--caller" where !seen.caller: (caller, seen.caller) = (value, true)
            case "--scan-qr" where !seen.scanQR: (scanQR, seen.scanQR) = (value, true)
            case "--platform" where !seen.platform:
                guard let parsed = Platform(rawValue: value) else { return nil }
                (platform, seen.platform) = (parsed, true)
            case "--transport" where !seen.transport:
                guard let parsed = Transport(rawValue: value) else { return nil }
                (transport.transport, seen.transport) = (parsed, true)
            case "--adapter" where !seen.adapter:
                guard (try? TransportOptions.check(adapter: value)) != nil else { return nil }
                (transport.adapter, seen.adapter) = (value, true)
            case "--opener" where opener == nil:
                guard Opener(value) != nil else { return nil }
                opener = value
            default: return nil
            }
        }
        if transport.transport == .simulated, transport.adapter != nil { return nil }
        if let opener {
            guard delivery == .opener(nil) else { return nil }
            delivery = .opener(opener)
        }
    }

    /// How the callback is handed over; `nil` when the configured opener is not a command.
    func handOff() -> (any CallbackHandOff)? {
        guard case .opener(let option) = delivery else { return StandardOutputHandOff() }
        return Opener.chosen(option: option).map { OpenerHandOff(opener: $0) }
    }

    /// Handles the request (layered, ShareVitalSigns or Welltory DDS): prints (or opens) the answer and returns
    /// ``ExitStatus/done``; ``ExitStatus/noCallback`` when no answer may be sent, ``ExitStatus/handOffFailed``
    /// when it could not be handed over, ``ExitStatus/refused`` when the request or the home was refused (a home
    /// that cannot be used still answers a layered request `ERROR_STORE` when the whitelist names where to).
    ///
    /// The store is left open for the rest of the process. Every reading and delivery is already committed to
    /// SQLite's write-ahead log with a full sync, and the next process to open the store reads the log back, as it
    /// would after a crash; closing would only spend time on cleanup (GRDB's observers, a dispatch queue) that
    /// matters to a long-lived process.
    func run() async -> ExitStatus {
        guard let handOff = handOff() else {
            printError("VITALBRIDGE_OPENER must name a program (and its leading arguments)")
            return .refused
        }
        // the whitelist decides where an answer may go: without it, none may
        let folder: Home
        let whitelist: Whitelist
        do {
            folder = try Home(Home.directory(option: home), create: true)
            whitelist = try folder.whitelist()
        } catch {
            printError("cannot use the home folder: \(error)")
            return .refused
        }
        let outcome: HubOutcome
        do {
            let hub = try Hub(home: folder, whitelist: whitelist, transport: transport)
            _ = Unmanaged.passRetained(hub.store)
            // a person at a terminal answers the prompts, and Ctrl-C cancels the stage that runs
            let interrupt = TerminalUser.isAttached ? Interrupt.watch() : nil
            let (url, platform, caller, scanQR) = (url, platform, caller, scanQR)
            let bridge = hub.bridge(
                handOff: handOff, showProgress: true, user: interrupt.map { TerminalUser(interrupt: $0) })
            outcome = await Interrupt.run(cancelledBy: interrupt) {
                await bridge.handle(url: url, platform: platform, caller: caller, scannedQR: scanQR)
            }
        } catch {
            guard ProviderProtocol(of: url) == nil else {
                printError("cannot use the home folder: \(error)")
                return .refused
            }
            outcome = await Bridge.answerUnusableHome(
                url: url, platform: platform, caller: caller, whitelist: whitelist, error: error, handOff: handOff,
                logger: hubLogger())
        }
        return ExitStatus(outcome)
    }
}

extension ExitStatus {
    /// The status of what the engine did, saying on standard error why it did not answer, or why its answer is a
    /// provider's failure.
    init(_ outcome: HubOutcome) {
        switch outcome {
        case .callback(_, let report):
            if let note = report.note { printError(note) }
            self = .done
        case .handOffFailed(_, _, let why):
            printError("the answer was not handed over (its readings stay pending): \(why)")
            self = .handOffFailed
        case .noCallback(let why):
            printError("no callback: \(why)")
            self = .noCallback
        case .refused(let why):
            printError(why)
            self = .refused
        }
    }
}

/// Opens the hub in the home folder `option` names (``Home/directory(option:)``), or exits 1 with one line saying
/// why. Only commands that write create a home (`create`); the others open its store read-only.
func openHub(
    _ option: String?, create: Bool = false, readOnly: Bool? = nil, transport: TransportChoice = TransportChoice(),
    scanDuration: Duration = .seconds(5)
) throws -> Hub {
    do {
        let home = try Home(Home.directory(option: option), create: create)
        return try Hub(
            home: home, whitelist: try home.whitelist(), readOnly: readOnly ?? !create, transport: transport,
            scanDuration: scanDuration)
    } catch {
        throw CommandError("cannot use the home folder: \(error)")
    }
}

/// `vitalbridge init`: creates a home.
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a VitalBridge home (private folder, store, whitelist, fleet), or check an existing one.",
        discussion: """
            With --adapter, the home reaches real devices through that BlueZ adapter from then on (its commands \
            default to --transport bluez); --adapter none goes back to the simulator.

            Examples:
              vitalbridge init --home ~/vitalbridge-home
              vitalbridge init --adapter hci0
            """)

    @OptionGroup var homeOptions: HomeOptions

    @Option(help: ArgumentHelp("The BlueZ adapter the home uses (hci0), or none.", valueName: "name"))
    var adapter: String?

    func validate() throws {
        if let adapter, adapter != "none" { try TransportOptions.check(adapter: adapter) }
    }

    func run() throws {
        let hub = try openHub(homeOptions.home, create: true)
        do {
            if adapter == "none" {
                if Home.exists(hub.home.adapterPath) { unlink(hub.home.adapterPath) }
            } else if let adapter {
                try Home.writeFile(Array((adapter + "\n").utf8), to: hub.home.adapterPath)
            }
        } catch {
            throw CommandError("cannot use the home folder: \(error)")
        }
        print("VitalBridge home at \(hub.home.directory)")
        if let adapter = try? hub.home.adapter() { print("devices are reached through BlueZ, adapter \(adapter)") }
    }
}

/// `vitalbridge devices`: the devices the hub knows.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the devices the hub has added or talked to.",
        discussion: "Example:\n  vitalbridge devices --home /tmp/hub")

    @OptionGroup var homeOptions: HomeOptions

    func run() throws {
        let hub = try openHub(homeOptions.home)
        let devices = try hub.store.devices()
        guard !devices.isEmpty else {
            print(
                "no devices yet: add one with vitalbridge open 'ihealth-layer://?cmd=1&addtype=0&devicemodel=100&scheme=vitalbridge-demo'"
            )
            return
        }
        print(
            table(
                ["MAC", "model", "serial", "firmware", "added (UTC)"],
                devices.map {
                    [
                        $0.mac.description, $0.model.name, $0.serialNumber ?? "", $0.firmwareRevision ?? "",
                        $0.addedAt.description,
                    ]
                }))
    }
}

/// `--device` and `--since`: which stored readings a command reads.
struct ReadingFilter: ParsableArguments {
    @Option(help: "Only this device's readings (12 hex digits).")
    var device: String?

    @Option(help: "Only readings taken at or after this UTC time (yyyy-MM-dd HH:mm:ss).")
    var since: String?

    var mac: MACAddress? { device.flatMap { MACAddress($0) } }
    var from: Timestamp? { since.flatMap { Timestamp(parsing: $0) } }

    func validate() throws {
        if let device, MACAddress(device) == nil { throw ValidationError("--device must be 12 hexadecimal digits") }
        if let since, Timestamp(parsing: since) == nil {
            throw ValidationError("--since must be yyyy-MM-dd HH:mm:ss")
        }
    }
}

/// `vitalbridge records`: the readings in the store.
struct RecordsCommand: ParsableCommand {
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json, csv, fhir
    }

    static let configuration = CommandConfiguration(
        commandName: "records",
        abstract: "List the readings in the store, oldest first, in canonical units.",
        discussion: """
            Every value carries its unit: in the table after the value (systolic=120 mmHg), in CSV and JSON in the \
            column name (systolic_mmHg, glucose_mg_dL, weight_kg, temperature_C, spo2_percent, …). CSV is RFC 4180 \
            (CRLF line ends, one column per field, empty where a reading has no such field); JSON is an array of \
            objects with numbers as numbers. Readings are read and written one at a time, so any history streams. \
            A smartband's day (band_day) shows its totals, sleep, heart-rate summary and sports; its heart-rate \
            minutes, one row each, are listed with --heart-rate-minutes. A PO3 history record's pulse wave is the \
            wave column: its samples (0-100, 20 ms apart) separated by spaces in CSV, a list in JSON, a count in \
            the table; with --format fhir, a SampledData component of the SpO2 observation.

            What a device said beyond the values is kept: a value it could not measure (it sent NaN, NRes, +INF, \
            -INF or a reserved value) is never written as a number. Its CSV cell is empty and the last column, \
            flags, names it with the value sent (systolic=NaN) after the statuses the device reported \
            (bodyMovement, irregularPulse, …), separated by spaces: bodyMovement systolic=NaN. JSON has "flags" \
            (the statuses) and "unavailable" ({"systolic":"NaN"}) when there is something to say; the table \
            shows systolic=NaN and the statuses in brackets.

            measured_at_utc is when a reading was taken: the time its device gave, corrected by how far the \
            device's clock was off when the hub read it in that session. Where the two differ, the table adds \
            (device clock: …) and JSON device_time_utc; --device-time adds a device_time_utc column to CSV.

            --format fhir writes a FHIR R4 Bundle for one person (--patient or --patient-id): a vital-signs \
            Observation per quantity with its LOINC code and UCUM unit, a Device per device (its Bluetooth address \
            as identifier), effectiveDateTime with the offset of --time-zone. The ids are stable: exporting again \
            gives the same ids. With --transaction, a server ingests the bundle in one POST, each entry a \
            conditional create, so posting it twice stores nothing twice. Glucose is in mg/dL (LOINC 2339-0), or \
            mmol/L (15074-8) with --unit mmol/L. Not exported: heart-rate minutes, sleep, arrhythmia flags, \
            perfusion index and body composition other than body fat.

            Examples:
              vitalbridge records
              vitalbridge records --device 004D3208D2F4 --since '2026-11-19 00:00:00' --format csv
              vitalbridge records --heart-rate-minutes --device 004D3208D310 --format csv
              vitalbridge records --format fhir --patient 'Jane Doe' --time-zone Europe/Berlin > bundle.json
              vitalbridge records --format fhir --transaction --patient-id 8f2c1 --unit mmol/L > transaction.json
              vitalbridge records delete --id 42 --reason 'cuff too loose'
            """,
        subcommands: [Delete.self])

    @OptionGroup var homeOptions: HomeOptions

    @OptionGroup var filter: ReadingFilter

    @Option(help: "table, json, csv or fhir.")
    var format: Format = .table

    @Flag(help: "List the smartbands' heart-rate minutes (one row a minute) instead of the readings.")
    var heartRateMinutes = false

    @Flag(
        help:
            "List the readings in quarantine instead: of a multi-user device's user index no person is assigned (vitalbridge people assign)."
    )
    var quarantine = false

    @Flag(help: "CSV: add device_time_utc, the time the device's clock gave where measured_at_utc corrects it.")
    var deviceTime = false

    @OptionGroup var fhir: FHIROptions

    func validate() throws {
        if quarantine && (format == .csv || format == .fhir) {
            throw ValidationError("readings in quarantine are not exported: list them as a table or JSON")
        }
        if quarantine && heartRateMinutes {
            throw ValidationError("--quarantine lists readings, not heart-rate minutes")
        }
        if format == .fhir {
            if heartRateMinutes { throw ValidationError("--heart-rate-minutes has no FHIR form") }
            if deviceTime { throw ValidationError("--device-time has no FHIR form: FHIR has the corrected time") }
            try fhir.check()
        } else if let option = fhir.given {
            throw ValidationError("\(option) applies to --format fhir only")
        }
    }

    func run() throws {
        let hub = try openHub(homeOptions.home)
        if format == .fhir {
            try fhir.export(
                hub.store, device: filter.mac, since: filter.from)
            return
        }
        var output = StreamingOutput()
        var first = true
        switch format {
        case .table: try output.write(RecordsFormatter.tableHeader)
        case .csv: try output.write(RecordsFormatter.csvHeader(deviceTime: deviceTime))
        case .json: try output.write("[")
        case .fhir: return  // written above, as a bundle
        }
        func write(_ row: RecordRow) throws {
            switch format {
            case .table: try output.write(RecordsFormatter.tableRow(row))
            case .csv: try output.append { RecordsFormatter.appendCSVRow(row, deviceTime: deviceTime, to: &$0) }
            case .json:
                try output.append {
                    $0 += Array((first ? "\n" : ",\n").utf8)
                    $0 += RecordsFormatter.jsonObject(row).serialized(pretty: false)
                }
            case .fhir: break
            }
            first = false
        }
        let (mac, from) = (filter.mac, filter.from)
        do {
            if heartRateMinutes {
                for band in try hub.store.devices() where band.model.isSmartband && (mac == nil || band.mac == mac) {
                    try hub.store.forEachDayItem(device: band.mac, since: from?.day) { item in
                        for row in try RecordRow.heartRateMinutes(of: item, device: band.mac)
                        where from.map({ row.time >= $0 }) ?? true {
                            try write(row)
                        }
                    }
                }
            } else if quarantine {
                var held: [String: Int] = [:]
                try hub.store.forEachReading(device: mac, since: from, selection: .quarantined) { stored in
                    held["user \(stored.reading.annotations.userIndex!) of \(stored.device)", default: 0] += 1
                    try write(RecordRow(device: stored.device, reading: stored.reading))
                }
                if format == .table {
                    for (user, count) in held.sorted(by: { $0.key < $1.key }) {
                        try output.write(
                            "\(user): \(count) reading\(count == 1 ? "" : "s") in quarantine until assigned (vitalbridge people assign)\n"
                        )
                    }
                }
            } else {
                try hub.store.forEachReading(device: mac, since: from, selection: .released) {
                    try write(RecordRow(device: $0.device, reading: $0.reading))
                }
            }
            if format == .json { try output.write(first ? "]\n" : "\n]\n") }
        } catch  where output.closed {
            // a closed pipe (`records | head`) ends the listing
            return
        }
        try output.flush()
    }
}

/// `vitalbridge whitelist list|add|remove`.
struct WhitelistCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whitelist",
        abstract: "Show and edit the callers the hub answers (AppWhiteList.plist).",
        subcommands: [List.self, Add.self, Remove.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the whitelisted callers.", discussion: "Example:\n  vitalbridge whitelist list")
        @OptionGroup var homeOptions: HomeOptions

        func run() throws {
            let hub = try openHub(homeOptions.home)
            let people = try hub.store.callerPeople()
            let entries = hub.whitelist.entries.sorted { $0.key < $1.key }
            // the person column only in a home whose callers name people: a single-person home's list is unchanged
            print(
                people.isEmpty
                    ? table(["caller", "callback"], entries.map { [$0.key, $0.value] })
                    : table(
                        ["caller", "callback", "person"], entries.map { [$0.key, $0.value, people[$0.key] ?? ""] }))
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Whitelist a caller with its callback URL, or * for a dynamic callerurl.",
            discussion: """
                With --person, the caller receives that person's readings (of the user indexes assigned to them); \
                without, the readings of the home's one person when it has exactly one, and no person's otherwise. \
                Readings of single-user devices go to every caller, as always.

                Examples:
                  vitalbridge whitelist add com.example.app myapp://
                  vitalbridge whitelist add com.example.mum mumsapp:// --person Mum
                  vitalbridge whitelist add com.example.web '*'
                """
        )
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "The caller's bundle or package id.") var caller: String
        @Argument(help: "Its callback URL (myapp://, a custom app scheme) or *.") var callback: String
        @Option(help: "The person whose readings the caller receives (vitalbridge people add).") var person: String?

        func run() throws {
            let hub = try openHub(homeOptions.home, create: true)
            var whitelist = hub.whitelist
            do {
                try whitelist.set(callback, for: caller)
            } catch {
                throw CommandError("cannot whitelist \(escapedCallerText(caller)): \(error)")
            }
            // the person first: a caller never receives anyone's readings for a moment
            do {
                try hub.store.setPerson(person, forCaller: caller)
            } catch {
                throw CommandError("cannot whitelist \(escapedCallerText(caller)): \(error.message)")
            }
            try Home.writeFile(whitelist.plist, to: hub.home.whitelistPath)
            print("\(caller) → \(callback)" + (person.map { " (the readings of \($0))" } ?? ""))
            if callback == Whitelist.dynamic {
                print(
                    """
                    warning: \(caller) may now name any custom app scheme as its callerurl, and whoever claims its app \
                    id (the hub cannot verify who opens a URL) receives its readings there
                    """)
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a caller from the whitelist.",
            discussion: "Example:\n  vitalbridge whitelist remove com.example.app")
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "The caller's bundle or package id.") var caller: String

        func run() throws {
            let hub = try openHub(homeOptions.home, readOnly: false)
            var whitelist = hub.whitelist
            guard whitelist.remove(caller) else {
                throw CommandError("\(escapedCallerText(caller)) is not whitelisted")
            }
            try Home.writeFile(whitelist.plist, to: hub.home.whitelistPath)
            try hub.store.setPerson(nil, forCaller: caller)
            print("removed \(caller)")
        }
    }
}

/// `vitalbridge fleet show`.
struct FleetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet", abstract: "Show the simulated devices.", subcommands: [Show.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the fleet's devices with what each still stores (a smartband: its unacknowledged items).",
            discussion: "Example:\n  vitalbridge fleet show --home /tmp/hub")
        @OptionGroup var homeOptions: HomeOptions

        func run() async throws {
            let hub = try openHub(homeOptions.home)
            let world: SimulatedWorld
            do {
                world = try hub.simulatedWorld()
                try await hub.restoreWorld()
            } catch {
                throw CommandError("cannot use the home folder: \(error)")
            }
            var rows: [[String]] = []
            for device in world.configurations {
                let stored = await world.heldCount(of: device.mac)
                rows.append([
                    device.mac.description, device.entry.model.name, device.entry.family.rawValue,
                    device.serial ?? "none",
                    device.paired ? "yes" : "no", device.inRange ? "yes" : "no", String(stored),
                ])
            }
            print(table(["MAC", "model", "family", "serial", "paired", "in range", "stored"], rows))
        }
    }
}

/// A plain text table, columns padded to their widest cell.
func table(_ header: [String], _ rows: [[String]]) -> String {
    let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
    func line(_ cells: [String]) -> String {
        zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
            .trimmingCharacters(in: .whitespaces)
    }
    return ([line(header), line(widths.map { String(repeating: "-", count: $0) })] + rows.map(line)).joined(
        separator: "\n")
}
