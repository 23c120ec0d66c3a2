import ArgumentParser
import BlueZ
import Foundation
import Locking
import VitalCore
import VitalDevices
import VitalHome

/// `vitalbridge pair --mac M`: pairs a real device through BlueZ, with the hub's own pairing agent.
struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair a Bluetooth device through BlueZ and mark it trusted, answering its pairing dialogue here.",
        discussion: """
            For a BlueZ home (vitalbridge init --adapter hci0). While it runs, the hub is BlueZ's pairing agent: \
            a passkey the hub must show is printed ('Enter 123456 on the device …'), a passkey the device shows or \
            a PIN is asked for on the terminal, and a passkey both show is confirmed with y/n (--yes accepts it). \
            Prompts go to standard error and answers are read from standard input; at its end nothing is \
            accepted. Prints one line: 'paired MAC (bonded, trusted)'. A failure (a wrong passkey, a declined \
            dialogue, a device BlueZ does not hear, no adapter, no bus) prints one line naming it and exits 1.

            Examples:
              vitalbridge pair --mac 00:4D:32:08:D3:10
              vitalbridge pair --mac 004D3208D310 --yes --home ~/vitalbridge-home
            """)

    @OptionGroup var homeOptions: HomeOptions

    @Option(
        name: .customLong("mac"),
        help: ArgumentHelp(
            "The device's Bluetooth address: 12 hexadecimal digits, with or without colons.", valueName: "address"),
        transform: { text in
            guard let device = PairCommand.address(text) else {
                throw ValidationError(
                    "--mac must be a Bluetooth address: 12 hexadecimal digits, or 6 pairs separated by colons")
            }
            return device
        })
    var device: MACAddress

    @Flag(help: "Accept a passkey the device shows for comparison without asking.")
    var yes = false

    /// The address `--mac` names: `004D3208D310` or `00:4D:32:08:D3:10`.
    static func address(_ text: String) -> MACAddress? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 6 {
            guard parts.allSatisfy({ $0.count == 2 }) else { return nil }
            return MACAddress(parts.joined())
        }
        return parts.count == 1 ? MACAddress(text) : nil
    }

    func run() async throws {
        let hub = try openHub(homeOptions.home)
        guard case .bluez(let central) = hub.transport else {
            throw CommandError(
                "cannot pair \(BlueZNames.address(device)): the home reaches simulated devices; pairing is for a "
                    + "BlueZ home (vitalbridge init --adapter hci0)")
        }
        let result: PairingResult
        do {
            result = try await central.pair(device, user: TerminalPairingUser(acceptsComparison: yes))
        } catch {
            await central.close()
            throw CommandError("cannot pair \(BlueZNames.address(device)): \(error.message)")
        }
        await central.close()
        var notes: [String] = []
        if result.wasPaired { notes.append("already paired") }
        if let bonded = result.bonded { notes.append(bonded ? "bonded" : "not bonded") }
        notes.append(result.trusted ? "trusted" : "not trusted")
        print("paired \(BlueZNames.address(device)) (\(notes.joined(separator: ", ")))")
    }
}

/// The person at the terminal answering a pairing dialogue: passkeys shown and asked on standard error, answers
/// read from standard input.
struct TerminalPairingUser: PairingUser {
    /// `--yes`: a passkey to compare is accepted without asking.
    let acceptsComparison: Bool
    /// The passkey shown last: BlueZ shows it again as the device reports digits typed.
    private let shown = Locked<UInt32?>(nil)

    init(acceptsComparison: Bool) { self.acceptsComparison = acceptsComparison }

    func show(passkey: UInt32, entered: Int, for device: MACAddress) async {
        let new = shown.withLock { last in
            guard last != passkey else { return false }
            last = passkey
            return true
        }
        guard new else { return }
        printError(
            "Enter \(PairingPasskey.text(passkey)) on the device \(BlueZNames.address(device)), then Enter there")
    }

    func show(pinCode: String, for device: MACAddress) async {
        printError("Enter the PIN \(pinCode) on the device \(BlueZNames.address(device))")
    }

    func passkey(for device: MACAddress) async -> UInt32? {
        let question = "The passkey the device \(BlueZNames.address(device)) shows (6 digits, empty: cancel): "
        while let text = readAnswer(question) {
            guard !text.isEmpty else { return nil }
            if let passkey = PairingPasskey.parse(text) { return passkey }
            printError("'\(text.prefix(20))' is not a passkey: type the 6 digits the device shows")
        }
        return nil
    }

    func pinCode(for device: MACAddress) async -> String? {
        let question = "The PIN code of the device \(BlueZNames.address(device)) (empty: cancel): "
        while let text = readAnswer(question) {
            guard !text.isEmpty else { return nil }
            if (1...16).contains(text.utf8.count) { return text }
            printError("a PIN code has 1 to 16 characters")
        }
        return nil
    }

    func confirm(passkey: UInt32, for device: MACAddress) async -> Bool {
        let shown = PairingPasskey.text(passkey)
        if acceptsComparison {
            printError("Accepting the passkey \(shown) of the device \(BlueZNames.address(device)) (--yes)")
            return true
        }
        guard let answer = readAnswer("Does the device \(BlueZNames.address(device)) show \(shown)? [y/N] ") else {
            return false
        }
        return ["y", "yes"].contains(answer.lowercased())
    }

    /// Asks `question` on standard error and reads one line from standard input; `nil` at its end, or once the
    /// task is cancelled (BlueZ gave the question up).
    func readAnswer(_ question: String) -> String? {
        let answer = VitalHome.readAnswer(question, limit: 256, until: { Task.isCancelled })
        // a terminal echoed the answer and its line end; from a pipe, the next line starts on its own too
        if answer != nil, isatty(0) == 0 { FileHandle.standardError.write(Data("\n".utf8)) }
        return answer
    }
}
