import ArgumentParser
import Foundation
import LayeredProtocol
import ShareVitalSigns
import VitalBridge
import VitalHome

/// `vitalbridge svs …`: ShareVitalSigns, with VitalBridge as provider (`open`) and as requester (`request`,
/// `retrieve`). Answers are sealed unless a requester asks for plain mode.
struct SVSCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "svs",
        abstract: "ShareVitalSigns: answer a request as provider, or request and retrieve a vital sign.",
        discussion: """
            The shared board is $XDG_RUNTIME_DIR/vitalbridge/svsPasteboard (or
            ~/.local/state/vitalbridge/run/svsPasteboard where XDG_RUNTIME_DIR is unset), private to the user.
            A request is sealed by default: its answer opens only with the key the requester keeps.

            Examples:
              vitalbridge svs request --sign BP --requester org.vitalbridge.demo
              vitalbridge svs open 'svs-bp://?requester=org.vitalbridge.demo&svskey=…'
              vitalbridge svs retrieve --sign BPSYS --requester org.vitalbridge.demo
            """,
        subcommands: [Request.self, Open.self, Retrieve.self])

    /// `--sign`: a name (`BP`) or a code (`48`).
    static let sign = reading(
        VitalSign.init(parsing:),
        else: "--sign must be a vital-sign name (HR, RR, SPO2, TEMP, BPSYS, BPDIA, RRTAPS, POFILES, BP, PO, RRATE, "
            + "POWITHFILES) or a code from 1 to 255")

    struct Request: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "request",
            abstract: "Write a request to the shared board and print the provider URL to open.",
            discussion: """
                Sealed by default: a fresh 256-bit key and request id are kept in the home
                (svs/<requester>.json, 0600) until the next request, and the key travels in the URL as svskey.
                --plain writes an old-style request whose answer any process of the user can read and change.

                Examples:
                  vitalbridge svs request --sign BP --requester org.vitalbridge.demo
                  vitalbridge svs request --sign 8 --requester org.vitalbridge.demo --plain
                """)
        @OptionGroup var homeOptions: HomeOptions
        @Option(help: "The sign: a name (HR, BP, …) or a code.", transform: SVSCommand.sign) var sign: VitalSign
        @Option(help: "The requester's id, also the scheme the provider returns to.") var requester: String
        @Option(help: "new or resume.") var state: StateArgument = .new
        @Flag(help: "Unsealed, for requesters that predate sealing: the answer is readable by any process.")
        var plain = false

        func run() throws {
            let home = try openHub(homeOptions.home, create: true).home
            let request: SVSRequest
            do {
                request = try SVSFiles.request(sign, state: state.state, requester: requester, plain: plain, in: home)
            } catch let error as SVSError {
                throw CommandError("cannot request \(sign): \(error)")
            } catch {
                throw CommandError("\(error)")
            }
            if plain {
                printError("plain mode: any process of this user can read the answer and change it")
            }
            print(request.providerURL)
        }
    }

    struct Open: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "open",
            abstract: "Answer the request on the shared board as provider, and print the URL back to the requester.",
            discussion: """
                Reads the URL from the argument, or from standard input with '-' (a URL in a program's arguments is
                visible to other users in /proc unless it is mounted with hidepid: pass a sealed request's URL on
                standard input). Only whitelisted requesters are answered (exit 3 otherwise). Signs VitalBridge
                cannot supply (RR, RRTAPS, POFILES) get a failure answer. The others are measured on devices the
                home has added, through its transport: a blood pressure monitor for BPSYS and BPDIA, a pulse
                oximeter for HR and SPO2, a thermometer for TEMP; with none, a failure answer. Each reading is
                stored like any other.

                Examples:
                  vitalbridge svs open 'svs-bp://?requester=org.vitalbridge.demo&svskey=…'
                  echo 'svs-temp://?requester=org.vitalbridge.demo' | vitalbridge svs open -
                """)
        @OptionGroup var homeOptions: HomeOptions
        @Option(help: "The requester's id, as the system reports the app that opened the URL.") var caller: String?
        @Argument(help: "The URL, or - to read it from standard input.") var url: String

        func run() async throws {
            let text = url == "-" ? (readLine(strippingNewline: true) ?? "") : url
            guard ProviderProtocol(of: text) == .shareVitalSigns else {
                throw CommandError("not a ShareVitalSigns request: \(text.prefix(200)) has no svs- scheme")
            }
            let status = await OpenInvocation(
                home: homeOptions.home, platform: .ios, caller: caller, scanQR: nil, url: text
            ).run()
            guard status == .done else { throw CommandError(ending: status) }
        }
    }

    struct Retrieve: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retrieve",
            abstract: "Poll the shared board for a sign: its value (exit 0), in progress (exit 4) or invalid (exit 1).",
            discussion: """
                A combination answers its highest sign (BP: the diastolic); ask for BPSYS and BPDIA one by one. A
                sealed answer that does not open with the requester's key (changed, replayed, or for another
                request) is invalid, never a value.

                Example:
                  vitalbridge svs retrieve --sign BPSYS --requester org.vitalbridge.demo
                """)
        @OptionGroup var homeOptions: HomeOptions
        @Option(help: "The sign: a name (HR, BPSYS, …) or a code.", transform: SVSCommand.sign)
        var sign: VitalSign
        @Option(help: "The requester's id.") var requester: String

        func validate() throws {
            guard SVSRequest.isRequesterID(requester) else {
                throw ValidationError("--requester must be a URL scheme: a letter, then letters, digits, +, - and .")
            }
        }

        func run() throws {
            let answer: PollAnswer
            do {
                answer = try SVSFiles.poll(sign, requester: requester, home: openHub(homeOptions.home).home)
            } catch let error as CommandError {
                throw error
            } catch {
                print("invalid")
                throw CommandError("invalid: \(error)")
            }
            switch answer {
            case .inProgress:
                print("in progress")
                throw CommandError(ending: .notYet)
            case .invalid:
                print("invalid")
                throw CommandError(ending: .refused)
            case .value(let value, let quality):
                print(value)
                printError("quality \(quality)")
            }
        }
    }

    enum StateArgument: String, ExpressibleByArgument, CaseIterable {
        case new, resume
        var state: RequestState { self == .new ? .new : .resume }
    }
}
