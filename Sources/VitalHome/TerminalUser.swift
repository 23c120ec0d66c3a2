import Foundation
import LayeredProtocol
import Locking
import VitalBridge
import VitalCore

/// A person at a terminal, standing in for the phone's dialogs: the connect prompt (`popflag=1`), the camera that
/// reads a device's QR code (its text typed, or read from a file with `@FILE`), the list of devices found to choose
/// from, and the cancel button (Ctrl-C).
///
/// It is used only when standard input and standard error are both terminals; a request from a program or a
/// desktop handler without one never waits for an answer nobody can give.
public struct TerminalUser: HubUser {
    /// Ctrl-C, which cancels the stage that runs and any question.
    public let interrupt: Interrupt
    /// Told why an answer was not taken (a file that cannot be read, a choice that is not one).
    public let report: @Sendable (String) -> Void

    /// The person at the terminal, whose Ctrl-C is `interrupt`.
    public init(interrupt: Interrupt, report: @escaping @Sendable (String) -> Void) {
        self.interrupt = interrupt
        self.report = report
    }

    /// Whether a person can answer: standard input and standard error are terminals.
    public static var isAttached: Bool { isatty(0) == 1 && isatty(2) == 1 }

    public func cancels(_ stage: Stage) async -> Bool { interrupt.pressed }

    public func confirmConnect(to device: MACAddress) async -> PromptAnswer<Void> {
        guard let answer = ask("Connect to the device \(device)? [y/N] ") else { return .declined }
        return Self.isYes(answer) ? .answered(()) : .declined
    }

    public func scanQRCode() async -> PromptAnswer<String> {
        while let text = ask("The device's QR code: type its text, or @FILE to read it from a file (empty: cancel): ") {
            guard text.hasPrefix("@") else { return text.isEmpty ? .declined : .answered(text) }
            do {
                let bytes = try Home.readUserFile(String(text.dropFirst()), limit: 4096)
                return .answered(
                    String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            } catch {
                report("\(error)")
            }
        }
        return .declined
    }

    /// Lists the candidates, numbered, and reads a number or an address; asked again until it is one of them.
    public func chooseDevice(among candidates: [DeviceCandidate]) async -> PromptAnswer<MACAddress> {
        var list = "\(candidates.count) devices found:\n"
        for (index, candidate) in candidates.enumerated() { list += "  \(index + 1)  \(candidate)\n" }
        FileHandle.standardError.write(Data(list.utf8))
        while let text = ask("The device to use: its number (1-\(candidates.count)) or address (empty: cancel): ") {
            guard !text.isEmpty else { return .declined }
            if let mac = DeviceCandidate.pick(text, among: candidates) { return .answered(mac) }
            report("'\(text.prefix(40))' is neither a number from 1 to \(candidates.count) nor an address listed")
        }
        return .declined
    }

    /// Asks `question` on standard error and reads one line from standard input; `nil` at the end of input or when
    /// Ctrl-C is pressed.
    public func ask(_ question: String) -> String? { readAnswer(question, until: { interrupt.pressed }) }

    /// Whether `answer` to a `[y/N]` question says yes: `y` or `yes`, in any case.
    public static func isYes(_ answer: String) -> Bool { ["y", "yes"].contains(answer.lowercased()) }

    /// Asks the person at the terminal the `[y/N]` `question` (``readAnswer(_:limit:until:)``): whether they
    /// answered yes (``isYes(_:)``); no at the end of input.
    public static func confirms(_ question: String) -> Bool {
        readAnswer(question, until: { false }).map(isYes) ?? false
    }
}

/// Ctrl-C while a request runs: the first press cancels it (the request's task, so its device stage stops with
/// `ERROR_CANCEL`, and any prompt), a second one ends the process as usual.
public final class Interrupt: Sendable {
    private let watcher: SignalWatcher
    private let task = Locked<Task<HubOutcome, Never>?>(nil)

    private init(_ watcher: SignalWatcher) { self.watcher = watcher }

    /// Whether Ctrl-C was pressed.
    public var pressed: Bool { watcher.signalled }

    /// Starts watching for Ctrl-C.
    public static func watch() -> Interrupt {
        let interrupt = Interrupt(SignalWatcher.watch([SIGINT], secondEnds: true))
        interrupt.watcher.onSignal { interrupt.task.withLock { $0?.cancel() } }
        return interrupt
    }

    /// Runs `operation`, as a task that Ctrl-C cancels when `interrupt` watches for it.
    public static func run(
        cancelledBy interrupt: Interrupt?, _ operation: @escaping @Sendable () async -> HubOutcome
    ) async -> HubOutcome {
        guard let interrupt else { return await operation() }
        let work = Task { await operation() }
        interrupt.task.withLock { $0 = work }
        if interrupt.pressed { work.cancel() }
        return await work.value
    }
}

/// Asks `question` on standard error and reads one line from standard input, trimmed; `nil` at the end of input,
/// past `limit` bytes, or once `stopped` (Ctrl-C pressed, the question given up), which is looked at every 0.1 s and
/// whenever a signal interrupts the wait.
public func readAnswer(_ question: String, limit: Int = 4096, until stopped: () -> Bool) -> String? {
    FileHandle.standardError.write(Data(question.utf8))
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while !stopped() {
        var ready = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 100) > 0 else { continue }
        let count = read(0, &byte, 1)
        if count < 0 && errno == EINTR { continue }
        guard count == 1 else { return nil }
        if byte == UInt8(ascii: "\n") {
            return String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        }
        guard line.count < limit else { return nil }
        line.append(byte)
    }
    FileHandle.standardError.write(Data("\n".utf8))
    return nil
}
