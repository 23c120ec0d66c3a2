import Foundation
import LayeredProtocol
import TestRequirements
import Testing
import VitalCore
import VitalSimulation
import VitalStore
import VitalTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A dialog program standing in for zenity or kdialog: a `/bin/sh` script in a folder of its own that appends its
/// arguments, one a line, to `arguments` in that folder, prints `answer` and exits with `status`. The folder is
/// removed when the test is done with it.
private final class FakeDialog: Sendable {
    let folder: String

    init() throws {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("vitalbridge-dialog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        folder = url.path
    }

    /// Writes the program `name` (`zenity` or `kdialog`), which answers every dialog with `answer` and `status`.
    func install(_ name: String, answer: String? = nil, status: Int32 = 0) throws {
        let path = "\(folder)/\(name)"
        // only shell builtins: the folder may be the whole PATH
        var script = "#!/bin/sh\nfor argument in \"$@\"; do printf '%s\\n' \"$argument\" >> '\(log(name))'; done\n"
        if let answer { script += "printf '%s\\n' '\(answer)'\n" }
        script += "exit \(status)\n"
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o700)
    }

    func log(_ name: String) -> String { "\(folder)/\(name).arguments" }

    /// The arguments the program `name` was called with, every call's one after the other; empty if never called.
    func arguments(_ name: String) -> [String] {
        guard let text = try? String(contentsOfFile: log(name), encoding: .utf8) else { return [] }
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// A graphical session (`DISPLAY=:99`) whose `PATH` finds this folder's programs first, then `rest`.
    func session(path rest: String? = ProcessInfo.processInfo.environment["PATH"]) -> [String: String] {
        ["DISPLAY": ":99", "PATH": [folder, rest].compactMap { $0 }.joined(separator: ":")]
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }
}

@Suite("Who answers the hub's questions: terminal, desktop dialog, fleet script, nobody")
struct PromptTests {
    /// The built-in fleet's BP5: -44 dBm.
    static let first = macOf(.bp5)
    /// A second BP5, paired and in range, heard weaker: -65 dBm (the fleet has no signal field; the simulated
    /// world draws a device's RSSI from its MAC, -40 - MAC % 40).
    static let second = "004D3208E001"
    static let connect = "Connect to the device \(first)? [y/N] "
    static let choose = "The device to use: its number (1-2) or address (empty: cancel): "
    /// Add a BP5 by scan, then sync it (cmd=4): the scan's candidates are every paired BP5 in range.
    static let scanAdd = "ihealth-layer://?cmd=4&addtype=0&devicemodel=100&ver=100&scheme=vitalbridge-demo"
    static let popflag = request(.add, .bp5, extra: "&popflag=1")
    static let qrAdd = "ihealth-layer://?cmd=1&addtype=1&devicemodel=100&ver=100&scheme=vitalbridge-demo"

    /// The built-in fleet and `user`, with a second BP5 in range that stores three records (the first stores five),
    /// one that is not paired and one out of range: an add by scan has two candidates.
    static func twoBP5s(user: UserScript = UserScript()) -> Fleet {
        var twoBP5s = fleet(user: user)
        twoBP5s.devices += [
            FleetDevice(
                model: "BP5", mac: second, serial: "BP5-E001", firmware: "1.0.0",
                records: RecordsScript(
                    generate: GeneratedRecords(count: 3, from: "2026-11-19 07:00:00", to: "2026-11-19 21:00:00"))),
            FleetDevice(model: "BP5", mac: "004D3208E002", serial: "BP5-E002", paired: false),
            FleetDevice(model: "BP5", mac: "004D3208E003", serial: "BP5-E003", inRange: false),
        ]
        return twoBP5s
    }

    /// The one callback `output` printed (exit 0), parsed.
    func callback(_ output: ProcessOutput, sourceLocation: SourceLocation = #_sourceLocation) throws -> LayeredCallback
    {
        #expect(output.status == 0, "\(output.stderr)", sourceLocation: sourceLocation)
        let lines = output.stdout.filter { $0 == "\n" }.count
        #expect(output.stdout.hasSuffix("\n") && lines == 1, "\(output.stdout)", sourceLocation: sourceLocation)
        return try LayeredCallback(parsing: output.stdout.trimmingCharacters(in: .newlines))
    }

    /// The callback a run at a terminal printed (exit 0, every text expected seen), parsed.
    func callback(
        _ run: (status: Int, stdout: String, unanswered: [String]), sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> LayeredCallback {
        #expect(run.status == 0 && run.unanswered.isEmpty, "\(run)", sourceLocation: sourceLocation)
        return try LayeredCallback(parsing: run.stdout.trimmingCharacters(in: .newlines))
    }

    /// Runs `open` for `url` on `home` at a terminal where the person types `typed` at once (the terminal keeps it
    /// until the hub reads it), then checks that each text of `shown` appears on the terminal, in this order. The
    /// answer is typed ahead so that a prompt that never comes fails the test (it is left in `unanswered`) instead
    /// of leaving the hub waiting.
    func atTerminal(_ home: TestHome, _ url: String, typed: String, shown: [String]) throws -> (
        status: Int, stdout: String, unanswered: [String]
    ) {
        try onTerminal(["open", "--home", home.path, url], answers: [("", typed)] + shown.map { ($0, "") })
    }

    /// Runs `open` for `url` on `home` in `environment` (a graphical session, or none).
    func open(_ home: TestHome, _ url: String, environment: [String: String] = [:]) throws -> ProcessOutput {
        try home.run(["open", "--home", home.path, url], environment: environment)
    }

    /// Records an issue unless no device of `macs` was connected: none is among the hub's devices, none has a
    /// reading, and none was leased (a lease creates the device's lock file and saves its state file); with
    /// `noDevices`, the hub has no device at all.
    func expectNothingConnected(
        _ home: TestHome, _ macs: [String], noDevices: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let devices = try home.run(["devices", "--home", home.path])
        #expect(devices.status == 0, "\(devices.stderr)", sourceLocation: sourceLocation)
        if noDevices {
            #expect(devices.stdout.hasPrefix("no devices yet"), "\(devices.stdout)", sourceLocation: sourceLocation)
        }
        for mac in macs {
            #expect(!devices.stdout.contains(mac), sourceLocation: sourceLocation)
            #expect(try home.store().readings.all(device: MACAddress(mac)!).isEmpty, sourceLocation: sourceLocation)
            for file in ["/world/\(mac).json", "/locks/\(mac).lock"] {
                let exists = FileManager.default.fileExists(atPath: home.path + file)
                #expect(!exists, "\(file)", sourceLocation: sourceLocation)
            }
        }
    }

    /// Records an issue unless `mac` was connected and added: among the hub's devices, its state saved.
    func expectAdded(_ home: TestHome, _ mac: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let devices = try home.run(["devices", "--home", home.path])
        #expect(devices.stdout.contains(mac), "\(devices.stdout)", sourceLocation: sourceLocation)
        let saved = FileManager.default.fileExists(atPath: home.path + "/world/\(mac).json")
        #expect(saved, "no saved state", sourceLocation: sourceLocation)
    }

    // MARK: nobody, and the fleet's scripted user

    @Test("popflag=1 with nobody to ask fails ERROR_NO_PROMPT:popflag and connects nothing; the fleet's user answers")
    func connectWithoutTerminal() throws {
        let nobody = try TestHome()
        let refused = try callback(open(nobody, Self.popflag))
        #expect(refused.status == .fail && refused.reason?.rawValue == "ERROR_NO_PROMPT:popflag")
        #expect(refused.mac == nil)
        try expectNothingConnected(nobody, [Self.first])

        let accepting = try TestHome(fleet: fleet(user: UserScript(declineConnect: false)))
        let accepted = try callback(open(accepting, Self.popflag))
        #expect(accepted.status == .success && accepted.mac == MACAddress(Self.first), "\(accepted.url)")
        try expectAdded(accepting, Self.first)

        let declining = try TestHome(fleet: fleet(user: UserScript(declineConnect: true)))
        let declined = try callback(open(declining, Self.popflag))
        #expect(declined.status == .cancel && declined.reason == .cancel, "\(declined.url)")
        try expectNothingConnected(declining, [Self.first])
    }

    @Test("two BP5s in range and nobody to ask: ERROR_SEVERAL_DEVICES:2, nothing connected nor stored")
    func severalWithoutTerminal() throws {
        let home = try TestHome(fleet: Self.twoBP5s())
        let refused = try callback(open(home, Self.scanAdd))
        #expect(refused.status == ActionStatus(action: .addSync, ran: [.fail]), "\(refused.url)")
        #expect(refused.reason?.rawValue == "ERROR_SEVERAL_DEVICES:2" && refused.mac == nil)
        try expectNothingConnected(home, [Self.first, Self.second, "004D3208E002", "004D3208E003"])
    }

    @Test("two BP5s in range: the fleet's user.chooseDevice picks the second, which is added and synced")
    func fleetChooses() throws {
        let home = try TestHome(fleet: Self.twoBP5s(user: UserScript(chooseDevice: MACAddress(Self.second))))
        let added = try callback(open(home, Self.scanAdd))
        #expect(added.status == .addSuccessSyncSuccess && added.mac == MACAddress(Self.second), "\(added.url)")
        guard case .list(let records)? = added.result else {
            Issue.record("no records in \(added.url)")
            return
        }
        #expect(records.count == 3)
        try expectAdded(home, Self.second)
        try expectNothingConnected(home, [Self.first], noDevices: false)
    }

    // MARK: a person at a terminal

    @Test(
        "at a terminal the two BP5s are listed strongest first; typing the second's address (or its number) adds it",
        .needs(.python3))
    func terminalChooses() throws {
        let home = try TestHome(fleet: Self.twoBP5s())
        // on standard error, in this order: both candidates, numbered, strongest first, then the question
        let list = [
            "2 devices found:", "  1  \(Self.first)  BP5 D2F4  -44 dBm", "  2  \(Self.second)  BP5 E001  -65 dBm",
            Self.choose,
        ]
        let byAddress = try callback(atTerminal(home, Self.scanAdd, typed: Self.second + "\n", shown: list))
        #expect(byAddress.status == .addSuccessSyncSuccess && byAddress.mac == MACAddress(Self.second))
        try expectAdded(home, Self.second)
        let other = try TestHome(fleet: Self.twoBP5s())
        let byNumber = try callback(atTerminal(other, Self.scanAdd, typed: "2\n", shown: list))
        #expect(byNumber.mac == MACAddress(Self.second))
    }

    @Test("at a terminal an empty line cancels the choice: ERROR_CANCEL, nothing connected", .needs(.python3))
    func terminalCancelsChoice() throws {
        let home = try TestHome(fleet: Self.twoBP5s())
        let cancelled = try callback(atTerminal(home, Self.scanAdd, typed: "\n", shown: [Self.choose]))
        #expect(cancelled.status == .addCancelSyncNP && cancelled.reason == .cancel, "\(cancelled.url)")
        try expectNothingConnected(home, [Self.first, Self.second])
    }

    @Test("a person at a terminal answers before the fleet's scripted user", .needs(.python3))
    func terminalBeforeFleet() throws {
        let home = try TestHome(fleet: fleet(user: UserScript(declineConnect: true)))
        let accepted = try callback(atTerminal(home, Self.popflag, typed: "y\n", shown: [Self.connect]))
        #expect(accepted.status == .success && accepted.mac == MACAddress(Self.first))
    }

    // MARK: a desktop dialog

    @Test("popflag=1 in a graphical session asks zenity --question: OK adds the device, Cancel is ERROR_CANCEL")
    func zenityConnect() throws {
        let dialog = try FakeDialog()
        try dialog.install("zenity")
        // the dialog answers, not the fleet's scripted user (which would decline)
        let home = try TestHome(fleet: fleet(user: UserScript(declineConnect: true)))
        let accepted = try callback(open(home, Self.popflag, environment: dialog.session()))
        #expect(accepted.status == .success && accepted.mac == MACAddress(Self.first), "\(accepted.url)")
        #expect(dialog.arguments("zenity").contains("--question"), "\(dialog.arguments("zenity"))")
        #expect(dialog.arguments("zenity").contains("--text=Connect to the device \(Self.first)?"))
        try expectAdded(home, Self.first)

        let closing = try FakeDialog()
        try closing.install("zenity", status: 1)
        let other = try TestHome()
        let declined = try callback(open(other, Self.popflag, environment: closing.session()))
        #expect(declined.status == .cancel && declined.reason == .cancel, "\(declined.url)")
        #expect(closing.arguments("zenity").contains("--question"))
        try expectNothingConnected(other, [Self.first])
    }

    @Test("two BP5s in a graphical session: zenity --list shows both, strongest first; printing the second picks it")
    func zenityChooses() throws {
        let dialog = try FakeDialog()
        try dialog.install("zenity", answer: Self.second)
        let home = try TestHome(fleet: Self.twoBP5s())
        let added = try callback(open(home, Self.scanAdd, environment: dialog.session()))
        #expect(added.status == .addSuccessSyncSuccess && added.mac == MACAddress(Self.second), "\(added.url)")
        let arguments = dialog.arguments("zenity")
        #expect(arguments.contains("--list"), "\(arguments)")
        let (first, second) = (arguments.firstIndex(of: Self.first), arguments.firstIndex(of: Self.second))
        #expect(first != nil && second != nil && first! < second!, "\(arguments)")
        #expect(!arguments.contains("004D3208E002") && !arguments.contains("004D3208E003"))
        try expectAdded(home, Self.second)
        try expectNothingConnected(home, [Self.first], noDevices: false)
    }

    @Test("addtype=1 without --scan-qr in a graphical session: zenity --entry answered BP5:<mac> adds that device")
    func zenityQRCode() throws {
        let dialog = try FakeDialog()
        try dialog.install("zenity", answer: "BP5:\(Self.first)")
        let home = try TestHome()
        let added = try callback(open(home, Self.qrAdd, environment: dialog.session()))
        #expect(added.status == .success && added.mac == MACAddress(Self.first), "\(added.url)")
        #expect(dialog.arguments("zenity").contains("--entry"), "\(dialog.arguments("zenity"))")
        try expectAdded(home, Self.first)
    }

    @Test("without zenity, kdialog asks: --yesno answered Yes adds the device; with both, zenity is used")
    func kdialogConnect() throws {
        let dialog = try FakeDialog()
        try dialog.install("kdialog")
        // nothing but the dialog's folder on PATH: no zenity installed anywhere can be found
        let home = try TestHome()
        let accepted = try callback(open(home, Self.popflag, environment: dialog.session(path: nil)))
        #expect(accepted.status == .success && accepted.mac == MACAddress(Self.first), "\(accepted.url)")
        #expect(dialog.arguments("kdialog").contains("--yesno"), "\(dialog.arguments("kdialog"))")
        try expectAdded(home, Self.first)

        // a Wayland session only, with both programs: zenity is the one asked
        let both = try FakeDialog()
        try both.install("kdialog", status: 1)
        try both.install("zenity")
        var wayland = both.session(path: nil)
        wayland["DISPLAY"] = nil
        wayland["WAYLAND_DISPLAY"] = "wayland-0"
        let other = try TestHome()
        let asked = try callback(open(other, Self.popflag, environment: wayland))
        #expect(asked.status == .success, "\(asked.url)")
        #expect(both.arguments("zenity").contains("--question") && both.arguments("kdialog").isEmpty)
    }

    @Test("a dialog that cannot be shown (exit 255) means nobody to ask: ERROR_NO_PROMPT:popflag, nothing connected")
    func dialogCannotShow() throws {
        let dialog = try FakeDialog()
        try dialog.install("zenity", status: 255)
        let home = try TestHome()
        let output = try open(home, Self.popflag, environment: dialog.session())
        let refused = try callback(output)
        #expect(refused.status == .fail && refused.reason?.rawValue == "ERROR_NO_PROMPT:popflag", "\(refused.url)")
        #expect(output.stderr.contains("no dialog could be shown"), "\(output.stderr)")
        #expect(dialog.arguments("zenity").contains("--question"))
        try expectNothingConnected(home, [Self.first])
    }

    @Test("an empty DISPLAY is no graphical session: the dialog is never run, and nobody is asked")
    func emptyDisplay() throws {
        let dialog = try FakeDialog()
        try dialog.install("zenity")
        var session = dialog.session()
        session["DISPLAY"] = ""
        let home = try TestHome()
        let refused = try callback(open(home, Self.popflag, environment: session))
        #expect(refused.status == .fail && refused.reason?.rawValue == "ERROR_NO_PROMPT:popflag", "\(refused.url)")
        #expect(dialog.arguments("zenity").isEmpty)
        try expectNothingConnected(home, [Self.first])
    }
}
