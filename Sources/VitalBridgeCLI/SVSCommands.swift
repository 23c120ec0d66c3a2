import ArgumentParser
import Foundation
import ShareVitalSigns
import VitalBridge
import VitalCore
import VitalDevices
import VitalStore

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
    static func sign(_ text: String) throws -> VitalSign {
        guard let sign = VitalSign(parsing: text) else {
            throw ValidationError(
                "--sign must be a vital-sign name (HR, RR, SPO2, TEMP, BPSYS, BPDIA, RRTAPS, POFILES, BP, PO, RRATE, "
                    + "POWITHFILES) or a code from 1 to 255")
        }
        return sign
    }

    struct Request: ParsableCommand {
        static let configuration = CommandConfiguration(
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
        @Option(help: "The sign: a name (HR, BP, …) or a code.") var sign: String
        @Option(help: "The requester's id, also the scheme the provider returns to.") var requester: String
        @Option(help: "new or resume.") var state: StateArgument = .new
        @Flag(help: "Unsealed, for requesters that predate sealing: the answer is readable by any process.")
        var plain = false

        func run() throws {
            let sign = try SVSCommand.sign(sign)
            let home = try openHub(homeOptions.home, create: true).home
            var random = SystemRandomNumberGenerator()
            func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) } }
            let request: SVSRequest
            do {
                request = try SVSRequest(
                    sign: sign, state: state.state, requester: requester,
                    key: plain ? nil : bytes(SealedAnswer.keySize),
                    requestID: plain ? nil : bytes(16))
            } catch {
                printError("cannot request \(sign): \(error)")
                throw ExitStatus.refused
            }
            do {
                try SVSFiles.saveRequest(request, requester: requester, in: home)
                try SVSFiles.writeBoard(request.board)
            } catch {
                printError("\(error)")
                throw ExitStatus.refused
            }
            if plain {
                printError("plain mode: any process of this user can read the answer and change it")
            }
            print(request.providerURL)
        }
    }

    struct Open: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
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
                printError("not a ShareVitalSigns request: \(text.prefix(200)) has no svs- scheme")
                throw ExitStatus.refused
            }
            let status = await OpenInvocation(
                home: homeOptions.home, platform: .ios, caller: caller, scanQR: nil, url: text
            ).run()
            guard status == .done else { throw status }
        }
    }

    struct Retrieve: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Poll the shared board for a sign: its value (exit 0), in progress (exit 4) or invalid (exit 1).",
            discussion: """
                A combination answers its highest sign (BP: the diastolic); ask for BPSYS and BPDIA one by one. A
                sealed answer that does not open with the requester's key (changed, replayed, or for another
                request) is invalid, never a value.

                Example:
                  vitalbridge svs retrieve --sign BPSYS --requester org.vitalbridge.demo
                """)
        @OptionGroup var homeOptions: HomeOptions
        @Option(help: "The sign: a name (HR, BPSYS, …) or a code.") var sign: String
        @Option(help: "The requester's id.") var requester: String

        func validate() throws {
            guard SVSRequest.isRequesterID(requester) else {
                throw ValidationError("--requester must be a URL scheme: a letter, then letters, digits, +, - and .")
            }
        }

        func run() throws {
            let sign = try SVSCommand.sign(sign)
            let answer: PollAnswer
            do {
                answer = try SVSFiles.poll(sign, requester: requester, home: openHub(homeOptions.home).home)
            } catch let error as ExitStatus {
                throw error
            } catch {
                printError("invalid: \(error)")
                print("invalid")
                throw ExitStatus.refused
            }
            switch answer {
            case .inProgress:
                print("in progress")
                throw ExitStatus.notYet
            case .invalid:
                print("invalid")
                throw ExitStatus.refused
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

/// Where ShareVitalSigns keeps its files: the shared board, and each requester's key in the home.
enum SVSFiles {
    /// `$XDG_RUNTIME_DIR/vitalbridge`, else `$HOME/.local/state/vitalbridge/run`.
    static var boardFolder: String {
        if let runtime = environment("XDG_RUNTIME_DIR"), !runtime.isEmpty { return runtime + "/vitalbridge" }
        return (environment("HOME") ?? "") + "/.local/state/vitalbridge/run"
    }

    static var boardPath: String { boardFolder + "/svsPasteboard" }

    /// The folder, made private (0700) if new; a link or another user's folder is refused.
    static func checkedFolder() throws(HomeError) -> String {
        let folder = boardFolder
        try Home.makeDirectory(folder, intermediates: true)
        try Home.checkDirectory(folder, ownedByUser: false)
        return folder
    }

    /// The board the engine answers on.
    static let board = FileBoard()

    static func writeBoard(_ board: Board) throws(HomeError) {
        _ = try checkedFolder()
        try Home.writeFile(board.json, to: boardPath)
    }

    /// The board, or `nil` if no request was ever written.
    static func readBoard() throws -> Board? {
        _ = try checkedFolder()
        guard Home.exists(boardPath) else { return nil }
        let bytes = try Home.readFile(boardPath, limit: 1 << 16)
        do {
            return try Board(json: bytes)
        } catch {
            throw HomeError("\(boardPath): \(error)")
        }
    }

    /// `home/svs/<requester>.json`.
    static func keyPath(_ requester: String, in home: Home) -> String { home.directory + "/svs/\(requester).json" }

    /// Keeps a sealed request's key and identifier for its requester (a plain request removes an older key).
    static func saveRequest(_ request: SVSRequest, requester: String, in home: Home) throws(HomeError) {
        let folder = home.directory + "/svs"
        try Home.makeDirectory(folder, intermediates: false)
        try Home.checkDirectory(folder, ownedByUser: false)
        let path = keyPath(requester, in: home)
        guard let key = request.key, let requestID = request.board.requestID else {
            unlink(path)
            return
        }
        let members: [(key: String, value: JSON)] = [
            ("key", .string(Base64URL.encode(key))), ("request", .string(Base64URL.encode(requestID))),
        ]
        try Home.writeFile(JSON.object(members).serialized(pretty: false), to: path)
    }

    /// The key and request identifier `requester` kept, if any.
    static func savedRequest(_ requester: String, in home: Home) throws -> (key: [UInt8], requestID: [UInt8])? {
        let path = keyPath(requester, in: home)
        guard Home.exists(path) else { return nil }
        let bytes = try Home.readFile(path, limit: 4_096)
        guard case .object(let members)? = try? JSON.parse(bytes),
            case .string(let key)? = members.first(where: { $0.key == "key" })?.value,
            case .string(let request)? = members.first(where: { $0.key == "request" })?.value,
            let keyBytes = Base64URL.decode(key), let requestID = Base64URL.decode(request)
        else { throw HomeError("\(path) is not a saved request") }
        return (keyBytes, requestID)
    }

    /// What `requester` finds for `sign` on the board: the document's table, sealed answers opened with the key it
    /// kept. A board for another request than the one it kept, or one that does not open, is invalid.
    static func poll(_ sign: VitalSign, requester: String, home: Home) throws -> PollAnswer {
        guard let board = try readBoard() else { throw HomeError("no request on the shared board \(boardPath)") }
        guard let requestID = board.requestID else { return PollAnswer(sign: sign, answer: board.answer) }
        guard let saved = try savedRequest(requester, in: home) else {
            throw HomeError("the board holds a sealed request, and \(requester) kept no key for it")
        }
        guard saved.requestID == requestID else {
            throw HomeError("the board holds another request than the one \(requester) made")
        }
        return PollAnswer(sign: sign, answer: try SealedAnswer.open(board, key: saved.key, requestID: requestID))
    }
}

/// The shared board as a file (``SVSFiles/boardPath``), for the engine's ShareVitalSigns adapter.
struct FileBoard: SharedBoard {
    var location: String { SVSFiles.boardPath }
    func read() throws -> Board? { try SVSFiles.readBoard() }
    func write(_ board: Board) throws { try SVSFiles.writeBoard(board) }
}
