import Foundation
import LayeredProtocol
import Logging
import VitalBridge
import VitalCore

/// Dialogs on the desktop standing in for the phone's: the connect prompt (`popflag=1`), the QR code's text, and
/// the list of devices to choose from, shown by zenity (GNOME and most desktops) or kdialog (KDE). Used when no
/// person is at a terminal and a graphical session is there (`DISPLAY` or `WAYLAND_DISPLAY` set) with one of the
/// two programs: the path a desktop's URL handler takes.
///
/// A dialog answered with OK or Yes is an answer; No, Cancel or a closed window declines (`ERROR_CANCEL`); a dialog
/// that cannot be shown (the display unreachable, the program failing) means nobody can be asked.
public struct DesktopUser: HubUser {
    /// The dialog programs, in the order they are looked for.
    public enum Program: String, CaseIterable, Sendable {
        case zenity, kdialog
    }

    /// The program that shows the dialogs.
    public let program: Program
    /// The program's path.
    public let path: String
    /// Told why a dialog could not be shown or answered.
    public let report: @Sendable (String) -> Void

    /// The dialogs of this session, if it is a graphical one with zenity or kdialog on `PATH`.
    public static func available(report: @escaping @Sendable (String) -> Void) -> DesktopUser? {
        guard ["DISPLAY", "WAYLAND_DISPLAY"].contains(where: { !(environment($0) ?? "").isEmpty }) else { return nil }
        for program in Program.allCases {
            if let path = findProgram(program.rawValue) {
                return DesktopUser(program: program, path: path, report: report)
            }
        }
        return nil
    }

    /// The first executable `name` on `PATH`.
    public static func findProgram(_ name: String) -> String? {
        for folder in (environment("PATH") ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let path = "\(folder)/\(name)"
            if access(path, X_OK) == 0 { return path }
        }
        return nil
    }

    public func cancels(_ stage: Stage) async -> Bool { false }

    public func confirmConnect(to device: MACAddress) async -> PromptAnswer<Void> {
        let question = "Connect to the device \(device)?"
        let arguments =
            switch program {
            case .zenity: ["--question", "--title=VitalBridge", "--text=\(question)"]
            case .kdialog: ["--title", "VitalBridge", "--yesno", question]
            }
        return show(arguments).flatMap { _ in .answered(()) }
    }

    public func scanQRCode() async -> PromptAnswer<String> {
        let question = "The device's QR code (its text):"
        let arguments =
            switch program {
            case .zenity: ["--entry", "--title=VitalBridge", "--text=\(question)"]
            case .kdialog: ["--title", "VitalBridge", "--inputbox", question]
            }
        return show(arguments).flatMap { $0.isEmpty ? .declined : .answered($0) }
    }

    public func chooseDevice(among candidates: [DeviceCandidate]) async -> PromptAnswer<MACAddress> {
        let question = "\(candidates.count) devices were found: choose the one to use."
        var arguments: [String]
        switch program {
        case .zenity:
            arguments = [
                "--list", "--title=VitalBridge", "--text=\(question)", "--column=#", "--column=Address",
                "--column=Name",
                "--column=Signal", "--print-column=2",
            ]
            for (index, candidate) in candidates.enumerated() {
                arguments += [
                    String(index + 1), candidate.mac.description, candidate.name,
                    candidate.rssi.map { "\($0) dBm" } ?? "",
                ]
            }
        case .kdialog:
            arguments = ["--title", "VitalBridge", "--menu", question]
            for candidate in candidates { arguments += [candidate.mac.description, candidate.description] }
        }
        return show(arguments).flatMap { text in
            // OK with nothing selected: no device chosen
            guard !text.isEmpty else { return .declined }
            guard let mac = DeviceCandidate.pick(text, among: candidates) else {
                report("the dialog answered '\(text.prefix(40))', which is not a device listed")
                return .unavailable
            }
            return .answered(mac)
        }
    }

    /// Shows a dialog and waits for it: its output on OK, a decline on No, Cancel or a closed window (exit 1, or 2
    /// for kdialog's Cancel), and nobody to ask when it could not be shown.
    public func show(_ arguments: [String]) -> PromptAnswer<String> {
        let outcome: (status: Int32, output: String)
        do {
            outcome = try ChildProcess([path] + arguments, name: program.rawValue).run(capture: .standardOutput)
        } catch {
            report("no dialog could be shown: \(error)")
            return .unavailable
        }
        let signal = outcome.status & 0x7F
        let code = (outcome.status >> 8) & 0xFF
        switch (signal, code) {
        case (0, 0): return .answered(outcome.output.trimmingCharacters(in: .whitespacesAndNewlines))
        case (0, 1), (0, 2): return .declined
        default:
            report("no dialog could be shown: \(program.rawValue) \(ChildProcess.describe(outcome.status))")
            return .unavailable
        }
    }
}

extension DeviceCandidate {
    /// The candidate `text` names: its number in the list (from 1) or its address; `nil` for anything else.
    public static func pick(_ text: String, among candidates: [DeviceCandidate]) -> MACAddress? {
        let text = text.trimmingCharacters(in: .whitespaces)
        if let number = Int(text), (1...candidates.count).contains(number) { return candidates[number - 1].mac }
        guard let mac = MACAddress(text), candidates.contains(where: { $0.mac == mac }) else { return nil }
        return mac
    }
}
