import ArgumentParser
import Foundation
import LayeredProtocol
import VitalBridge
import VitalDevices
import VitalHome

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

    /// Handles the request (``Hub/open(_:platform:caller:scannedQR:home:transport:handOff:interrupt:progress:logger:report:)``):
    /// prints (or opens) the answer and returns ``ExitStatus/done``; ``ExitStatus/noCallback`` when no answer may be
    /// sent, ``ExitStatus/handOffFailed`` when it could not be handed over, ``ExitStatus/refused`` when the request
    /// or the home was refused.
    func run() async -> ExitStatus {
        guard let handOff = handOff() else {
            printError("VITALBRIDGE_OPENER must name a program (and its leading arguments)")
            return .refused
        }
        // a person at a terminal answers the prompts, and Ctrl-C cancels the stage that runs
        var progress: @Sendable (SyncProgress) -> Void = { _ in }
        if isatty(2) == 1 { progress = { drawProgress($0) } }
        let outcome = await Hub.open(
            url, platform: platform, caller: caller, scannedQR: scanQR, home: Home.directory(option: home),
            transport: transport, handOff: handOff, interrupt: TerminalUser.isAttached ? Interrupt.watch() : nil,
            progress: progress, logger: hubLogger(), report: printError)
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
