import ArgumentParser
import Foundation
import LayeredClient
import LayeredProtocol
import VitalCore
import VitalStore

/// The `vitalbridge` command: the root of the command tree.
public struct VitalBridgeCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "vitalbridge",
        abstract: "VitalBridge: an open hub for vital signs that speaks the iHealth layered-app protocol.",
        version: "\(VitalBridgeCommand.version) (store schema \(VitalStore.schemaVersion))",
        subcommands: [
            DemoCommand.self, InitCommand.self, OpenCommand.self, DevicesCommand.self, RecordsCommand.self,
            ChangesCommand.self, SinkCommand.self, ReportCommand.self,
            WhitelistCommand.self, PeopleCommand.self, ServeCommand.self, SyncCommand.self, AddCommand.self,
            MeasureCommand.self,
            FleetCommand.self, BandCommand.self, DeviceCommand.self, SVSCommand.self, DDSCommand.self, HRVCommand.self,
            RequestCommand.self, ComposeCommand.self, CallbackCommand.self, GATTCommand.self, ScanCommand.self,
            SimulateCommand.self, InstallHandlerCommand.self, UninstallHandlerCommand.self, DoctorCommand.self,
            PairCommand.self,
        ]
    )

    public init() {}

    /// This release of VitalBridge, raised with each release: `vitalbridge --version` shows it with the store's schema
    /// (`0.15.0 (store schema 12)`), so that two releases are told apart by more than their store.
    public static let version = "0.15.0"

    /// Runs the command line and exits: usage errors exit 2 (not ArgumentParser's 64), so every VitalBridge command
    /// answers 0 done, 1 rejected input, 2 usage, 3 no callback may be sent (``ExitStatus``).
    public static func runFromCommandLine() -> Never {
        // A closed standard output is an error a command reports (a callback not handed over exits 5), not a
        // signal that kills it.
        signal(SIGPIPE, SIG_IGN)
        // Everything the hub creates is private to the user: folders 0700, files 0600.
        umask(0o077)
        // the command runs as a task; the main thread only waits, and the task ends the process. (Not in
        // dispatchMain(), which ends the main thread: valgrind 3.19, which measures the benchmarks' instructions,
        // crashes in the signal wait libdispatch then leaves in the thread's exit.) A signal's handler may run here.
        Task { await runCommandLine() }
        while true { pause() }
    }

    private static func runCommandLine() async -> Never {
        // `open` is the hub's hot path: its documented form is read without building the whole command tree,
        // which costs more than the request itself; anything else (help, a usage error) goes through the parser.
        if let open = OpenInvocation(fastParsing: Array(CommandLine.arguments.dropFirst())) {
            Foundation.exit(await open.run().rawValue)
        }
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            exit(withError: nil)
        } catch let failure as CommandError {
            if let message = failure.message { printError(message) }
            Foundation.exit(failure.status.rawValue)
        } catch {
            // what ArgumentParser found while parsing: a usage error exits 2, with the closest command when a word
            // of the command line is not one
            if exitCode(for: error) == .validationFailure {
                var message = fullMessage(for: error)
                if !message.hasSuffix("\n") { message += "\n" }
                if let suggestion = suggestion(for: Array(CommandLine.arguments.dropFirst())) {
                    message += suggestion + "\n"
                }
                FileHandle.standardError.write(Data(message.utf8))
                Foundation.exit(ExitStatus.usage.rawValue)
            }
            exit(withError: error)
        }
    }
}

extension Platform: ExpressibleByArgument {}

/// Options every protocol command shares.
struct PlatformOptions: ParsableArguments {
    @Option(
        name: .customLong("platform"),
        help: ArgumentHelp(
            "The platform the URL comes from: ios or android (Android requires appid); at most once.",
            valueName: "platform"))
    var platforms: [Platform] = []

    /// The platform `--platform` names; iOS when absent.
    var platform: Platform { platforms.first ?? .ios }

    func validate() throws {
        guard platforms.count <= 1 else { throw ValidationError("--platform may be given once") }
    }
}

/// `vitalbridge request URL`: reads a request as the layered app does.
struct RequestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Check a caller's request URL and show what the layered app reads from it.",
        discussion: """
            Prints one 'name: value' line per field of the validated request. A request the layered app rejects \
            prints one line on stderr naming the parameter at fault and the reason its fail callback carries, \
            and exits 1.

            Examples:
              vitalbridge request 'ihealth-layer://?cmd=0&devicemodel=100&mac=004D3208D2F4&unit=2&ver=100&scheme=myapp'
              vitalbridge request --platform android 'ihealth-layer://?appid=com.example&cmd=1&addtype=0&devicemodel=300'
            """
    )

    @OptionGroup var options: PlatformOptions

    @Argument(help: "The request URL, quoted for the shell.")
    var url: String

    func run() throws {
        let request: LayeredRequest
        do {
            request = try LayeredRequest(parsing: url, platform: options.platform)
        } catch {
            throw CommandError("invalid request: \(error); fail callback reason \(error.reason)")
        }
        for (name, value) in request.summary { print("\(name): \(value)") }
    }
}

/// `vitalbridge callback URL`: reads a callback as a caller app does.
struct CallbackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "callback",
        abstract: "Read a callback URL as a caller's client does: status by stage, device, reason and each reading.",
        discussion: """
            Reads the URL with LayeredClient's LayeredResponse and prints 'name: value' lines, then one line per \
            reading, 'measured:' for the request's own measurement and 'stored:' for a synced or held one, in the \
            requested unit. A URL that is not a valid callback (its status cannot answer its cmd, a reading lacks \
            a value its kind always has) prints one line on stderr and exits 1.

            Example:
              vitalbridge callback 'myapp://?cmd=6&devicemodel=100&status=12799&mac=004D3208D2F4&reason=ERROR-100-4'
            """
    )

    @Argument(help: "The callback URL, quoted for the shell.")
    var url: String

    func run() throws {
        let response: LayeredResponse
        do {
            response = try LayeredResponse(parsing: url)
        } catch {
            throw CommandError("invalid callback: \(error)")
        }
        for (name, value) in response.summary { print("\(name): \(value)") }
        for reading in response.readings { print("\(reading.origin): \(reading)") }
    }
}

/// Writes one line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// `Did you mean 'records'?` for a mistyped command in `arguments` (`recrods`, `whitelist lst`): the closest command
/// name at the level where the word is not one, when it is close enough; `nil` otherwise.
func suggestion(
    for arguments: [String], in command: any ParsableCommand.Type = VitalBridgeCommand.self, root: Bool = true
)
    -> String?
{
    let subcommands = command.configuration.subcommands
    guard !subcommands.isEmpty, let word = arguments.first, !word.hasPrefix("-") else { return nil }
    if let next = subcommands.first(where: { name(of: $0) == word }) {
        return suggestion(for: Array(arguments.dropFirst()), in: next, root: false)
    }
    let names = subcommands.map(name(of:)) + (root ? ["help"] : [])
    let scored = names.map { (name: $0, distance: editDistance(word, $0)) }
    guard let best = scored.min(by: { $0.distance < $1.distance }),
        best.distance <= max(2, best.name.count / 3)
    else { return nil }
    return "Did you mean '\(best.name)'?"
}

/// The name `command` has on the command line: its configuration's, else its type's name in lowercase, as
/// ArgumentParser derives it for the one-word types (`Alarm`, `Follow`) that give none.
func name(of command: any ParsableCommand.Type) -> String {
    command.configuration.commandName ?? String(describing: command).lowercased()
}
