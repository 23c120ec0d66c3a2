import Foundation
import LayeredProtocol
import Logging
import VitalBridge
import VitalCore
import VitalHome

/// Dialogs on the desktop standing in for the phone's: the connect prompt (`popflag=1`), the QR code's text, and
/// the list of devices to choose from, shown by zenity (GNOME and most desktops) or kdialog (KDE). Used when no
/// person is at a terminal and a graphical session is there (`DISPLAY` or `WAYLAND_DISPLAY` set) with one of the
/// two programs: the path a desktop's URL handler takes.
///
/// A dialog answered with OK or Yes is an answer; No, Cancel or a closed window declines (`ERROR_CANCEL`); a dialog
/// that cannot be shown (the display unreachable, the program failing) means nobody can be asked.
struct DesktopUser: HubUser {
    enum Program: String, CaseIterable {
        case zenity, kdialog
    }

    let program: Program
    /// The program's path.
    let path: String

    /// The dialogs of this session, if it is a graphical one with zenity or kdialog on `PATH`.
    static func available() -> DesktopUser? {
        guard ["DISPLAY", "WAYLAND_DISPLAY"].contains(where: { !(environment($0) ?? "").isEmpty }) else { return nil }
        for program in Program.allCases {
            if let path = findProgram(program.rawValue) { return DesktopUser(program: program, path: path) }
        }
        return nil
    }

    /// The first executable `name` on `PATH`.
    static func findProgram(_ name: String) -> String? {
        for folder in (environment("PATH") ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let path = "\(folder)/\(name)"
            if access(path, X_OK) == 0 { return path }
        }
        return nil
    }

    func cancels(_ stage: Stage) async -> Bool { false }

    func confirmConnect(to device: MACAddress) async -> PromptAnswer<Void> {
        let question = "Connect to the device \(device)?"
        let arguments =
            switch program {
            case .zenity: ["--question", "--title=VitalBridge", "--text=\(question)"]
            case .kdialog: ["--title", "VitalBridge", "--yesno", question]
            }
        return show(arguments).flatMap { _ in .answered(()) }
    }

    func scanQRCode() async -> PromptAnswer<String> {
        let question = "The device's QR code (its text):"
        let arguments =
            switch program {
            case .zenity: ["--entry", "--title=VitalBridge", "--text=\(question)"]
            case .kdialog: ["--title", "VitalBridge", "--inputbox", question]
            }
        return show(arguments).flatMap { $0.isEmpty ? .declined : .answered($0) }
    }

    func chooseDevice(among candidates: [DeviceCandidate]) async -> PromptAnswer<MACAddress> {
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
                printError("the dialog answered '\(text.prefix(40))', which is not a device listed")
                return .unavailable
            }
            return .answered(mac)
        }
    }

    /// Shows a dialog and waits for it: its output on OK, a decline on No, Cancel or a closed window (exit 1, or 2
    /// for kdialog's Cancel), and nobody to ask when it could not be shown.
    func show(_ arguments: [String]) -> PromptAnswer<String> {
        let outcome: (status: Int32, output: String)
        do {
            outcome = try ChildProcess([path] + arguments, name: program.rawValue).run(capture: .standardOutput)
        } catch {
            printError("no dialog could be shown: \(error)")
            return .unavailable
        }
        let signal = outcome.status & 0x7F
        let code = (outcome.status >> 8) & 0xFF
        switch (signal, code) {
        case (0, 0): return .answered(outcome.output.trimmingCharacters(in: .whitespacesAndNewlines))
        case (0, 1), (0, 2): return .declined
        default:
            printError("no dialog could be shown: \(program.rawValue) \(ChildProcess.describe(outcome.status))")
            return .unavailable
        }
    }
}
