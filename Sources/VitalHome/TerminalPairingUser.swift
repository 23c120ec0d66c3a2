import BlueZ
import Foundation
import Locking
import VitalCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The person at the terminal answering a BlueZ pairing dialogue (`vitalbridge pair`): passkeys shown and asked on
/// standard error, answers read from standard input.
///
/// A passkey BlueZ shows again as the device reports digits typed is shown once. A passkey or PIN that is not one is
/// asked again, saying why; an empty answer, the end of input, or a question BlueZ gave up declines.
public struct TerminalPairingUser: PairingUser {
    /// `--yes`: a passkey to compare is accepted without asking.
    public let acceptsComparison: Bool
    /// Asks its argument and returns the answer, `nil` at the end of input.
    private let ask: @Sendable (String) -> String?
    /// Tells the person its argument, one line.
    private let tell: @Sendable (String) -> Void
    /// The passkey shown last: BlueZ shows it again as the device reports digits typed.
    private let shown = Locked<UInt32?>(nil)

    /// The person at the terminal, accepting a passkey to compare without asking when `acceptsComparison`; `ask`
    /// and `tell` are the terminal's (``readAnswer(_:)``, a line on standard error) unless given.
    public init(
        acceptsComparison: Bool, ask: (@Sendable (String) -> String?)? = nil,
        tell: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    ) {
        self.acceptsComparison = acceptsComparison
        self.ask = ask ?? { Self.readAnswer($0) }
        self.tell = tell
    }

    public func show(passkey: UInt32, entered: Int, for device: MACAddress) async {
        let new = shown.withLock { last in
            guard last != passkey else { return false }
            last = passkey
            return true
        }
        guard new else { return }
        tell("Enter \(PairingPasskey.text(passkey)) on the device \(BlueZNames.address(device)), then Enter there")
    }

    public func show(pinCode: String, for device: MACAddress) async {
        tell("Enter the PIN \(pinCode) on the device \(BlueZNames.address(device))")
    }

    public func passkey(for device: MACAddress) async -> UInt32? {
        let question = "The passkey the device \(BlueZNames.address(device)) shows (6 digits, empty: cancel): "
        while let text = ask(question) {
            guard !text.isEmpty else { return nil }
            if let passkey = PairingPasskey.parse(text) { return passkey }
            tell("'\(text.prefix(20))' is not a passkey: type the 6 digits the device shows")
        }
        return nil
    }

    public func pinCode(for device: MACAddress) async -> String? {
        let question = "The PIN code of the device \(BlueZNames.address(device)) (empty: cancel): "
        while let text = ask(question) {
            guard !text.isEmpty else { return nil }
            if (1...16).contains(text.utf8.count) { return text }
            tell("a PIN code has 1 to 16 characters")
        }
        return nil
    }

    public func confirm(passkey: UInt32, for device: MACAddress) async -> Bool {
        let shown = PairingPasskey.text(passkey)
        if acceptsComparison {
            tell("Accepting the passkey \(shown) of the device \(BlueZNames.address(device)) (--yes)")
            return true
        }
        guard let answer = ask("Does the device \(BlueZNames.address(device)) show \(shown)? [y/N] ") else {
            return false
        }
        return TerminalUser.isYes(answer)
    }

    /// Asks `question` on standard error and reads one line from standard input; `nil` at its end, or once the
    /// task is cancelled (BlueZ gave the question up).
    public static func readAnswer(_ question: String) -> String? {
        let answer = VitalHome.readAnswer(question, limit: 256, until: { Task.isCancelled })
        // a terminal echoed the answer and its line end; from a pipe, the next line starts on its own too
        if answer != nil, isatty(0) == 0 { FileHandle.standardError.write(Data("\n".utf8)) }
        return answer
    }
}
