import Foundation
import LayeredClient
import LayeredProtocol
import TestRequirements
import Testing
import VitalCore
import VitalSimulation
import VitalStore
import VitalTestSupport

/// A private desktop: XDG data and config folders, a hub home, and a caller app registered for its own scheme with
/// Debian's xdg-utils, in generic mode (no desktop environment, `DISPLAY` set).
final class TestDesktop: Sendable {
    let root: String
    let hub: TestHome
    /// The caller app: `caller.sh request URL` opens the hub; opened with a callback, it keeps it in `callbacks`.
    let caller: String

    init(fleet: Fleet? = nil, whitelist: [String: String] = [:]) throws {
        root =
            FileManager.default.temporaryDirectory.appendingPathComponent("vitalbridge-desktop-\(UUID().uuidString)")
            .path
        hub = try TestHome(fleet: fleet, whitelist: whitelist)
        caller = root + "/caller.sh"
        for folder in ["data/applications", "config", "system", "runtime"] {
            try FileManager.default.createDirectory(
                atPath: root + "/" + folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        // a handler that keeps each callback and, while `again` holds a request and the callback says readings
        // remain, opens that request from inside the hand-off (the hub that called it is still waiting)
        try """
        #!/bin/sh
        if [ "$1" = request ]; then exec xdg-open "$2"; fi
        printf '%s\\n' "$1" >> "\(root)/callbacks"
        case "$1" in
            *"&remaining="*) [ -f "\(root)/again" ] && exec xdg-open "$(cat "\(root)/again")" ;;
        esac
        exit 0
        """.write(toFile: caller, atomically: true, encoding: .utf8)
        chmod(caller, 0o700)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// The environment of a session without a desktop environment.
    var environment: [String: String] {
        [
            "HOME": root, "XDG_DATA_HOME": root + "/data", "XDG_CONFIG_HOME": root + "/config",
            "XDG_DATA_DIRS": root + "/system", "XDG_CONFIG_DIRS": root + "/system",
            "XDG_RUNTIME_DIR": root + "/runtime",
            "XDG_CURRENT_DESKTOP": "X-Generic", "DISPLAY": ":0", "BROWSER": "false",
        ]
    }

    var mimeApps: String { root + "/config/mimeapps.list" }
    var desktopFile: String { root + "/data/applications/vitalbridge.desktop" }

    func run(_ program: String, _ arguments: [String]) throws -> ProcessOutput {
        try runProgram("/usr/bin/env", [program] + arguments, environment: environment)
    }

    func vitalbridge(_ arguments: [String]) throws -> ProcessOutput {
        try runProgram(vitalbridgePath.path, arguments, environment: environment)
    }

    /// Registers the caller app for `schemes`, as its installer would.
    func registerCaller(_ schemes: [String]) throws {
        let types = schemes.map { "x-scheme-handler/\($0);" }.joined()
        try "[Desktop Entry]\nType=Application\nName=Caller\nExec=\(caller) %u\nNoDisplay=true\nMimeType=\(types)\n"
            .write(toFile: root + "/data/applications/caller.desktop", atomically: true, encoding: .utf8)
        let output = try run("xdg-mime", ["default", "caller.desktop"] + schemes.map { "x-scheme-handler/\($0)" })
        #expect(output.status == 0, "\(output.stderr)")
    }

    /// An opener for `open --deliver` that runs `body` (a shell script; `$1` is the callback) after keeping the
    /// callback it is given in `callbacks`.
    func opener(_ name: String, then body: String = "") throws -> String {
        let path = root + "/" + name
        try "#!/bin/sh\nprintf '%s\\n' \"$1\" >> \(root)/callbacks\n\(body)\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o700)
        return path
    }

    /// `open --home … --deliver --opener OPENER URL`, as a process not yet started.
    func deliverer(_ url: String, opener: String) -> Process {
        let process = Process()
        process.executableURL = vitalbridgePath
        process.arguments = ["open", "--home", hub.path, "--deliver", "--opener", opener, url]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        return process
    }

    /// The caller app sends `url` through `xdg-open`.
    func send(_ url: String) throws -> ProcessOutput { try run(caller, ["request", url]) }

    /// The callbacks the caller app received so far, and forgets them.
    func received() -> [String] {
        let path = root + "/callbacks"
        defer { unlink(path) }
        return ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    func defaultHandler(_ scheme: String) throws -> String {
        try run("xdg-mime", ["query", "default", "x-scheme-handler/\(scheme)"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

@Suite(
    "The desktop hand-off: install-handler, open --deliver and a caller app round trip through xdg-open",
    .needs(Requirement.xdgUtils + [.gio, .desktopFileUtils]))
struct DesktopTests {
    static let schemes = [
        "ihealth-layer", "vitalbridge", "svs-hr", "svs-spo2", "svs-temp", "svs-bpsys", "svs-bpdia", "svs-bp", "svs-po",
    ]

    @Test("install-handler writes a valid desktop entry for every scheme; uninstall-handler puts back exactly what was")
    func installAndUninstall() throws {
        let desktop = try TestDesktop()
        let before =
            "[Default Applications]\ntext/html=browser.desktop\nx-scheme-handler/ihealth-layer=other.desktop\n\n[Added Associations]\ntext/plain=editor.desktop;\n"
        try before.write(toFile: desktop.mimeApps, atomically: true, encoding: .utf8)
        for _ in 0..<2 {
            // a second install replaces the first and still remembers the handler the first replaced
            let installed = try desktop.vitalbridge(["install-handler", "--home", desktop.hub.path])
            #expect(installed.status == 0 && installed.stderr.isEmpty, "\(installed.stderr)")
        }
        let validated = try desktop.run("desktop-file-validate", [desktop.desktopFile])
        #expect(validated.status == 0 && validated.stdout.isEmpty, "\(validated.stdout)")
        let entry = try String(contentsOfFile: desktop.desktopFile, encoding: .utf8)
        let binary = URL(fileURLWithPath: vitalbridgePath.path).resolvingSymlinksInPath().path
        #expect(entry.contains("\nExec=\(binary) open --home \(desktop.hub.path) --deliver %u\n"), "\(entry)")
        for scheme in Self.schemes {
            #expect(try desktop.defaultHandler(scheme) == "vitalbridge.desktop", "\(scheme)")
        }
        let uninstalled = try desktop.vitalbridge(["uninstall-handler"])
        #expect(uninstalled.status == 0, "\(uninstalled.stderr)")
        #expect(try String(contentsOfFile: desktop.mimeApps, encoding: .utf8) == before)
        #expect(!FileManager.default.fileExists(atPath: desktop.desktopFile))
        let again = try desktop.vitalbridge(["uninstall-handler"])
        #expect(again.status == 0 && again.stdout.hasPrefix("no VitalBridge handler is installed"))
    }

    @Test("uninstall-handler leaves a scheme the user gave another app since, and a desktop file it did not write")
    func uninstallLeavesOthers() throws {
        let desktop = try TestDesktop()
        #expect(try desktop.vitalbridge(["install-handler"]).status == 0)
        #expect(try desktop.run("xdg-mime", ["default", "other.desktop", "x-scheme-handler/svs-bp"]).status == 0)
        #expect(try desktop.vitalbridge(["uninstall-handler"]).status == 0)
        // nothing was set before: the file is left with the user's own choice only (after the blank line xdg-mime
        // starts a new file with)
        #expect(
            try String(contentsOfFile: desktop.mimeApps, encoding: .utf8)
                == "\n[Default Applications]\nx-scheme-handler/svs-bp=other.desktop\n")
        try "[Desktop Entry]\nType=Application\nName=Other\nExec=other %u\n".write(
            toFile: desktop.desktopFile, atomically: true, encoding: .utf8)
        let refused = try desktop.vitalbridge(["uninstall-handler"])
        #expect(refused.status == 1 && refused.stderr.contains("was not written by install-handler"))
        #expect(FileManager.default.fileExists(atPath: desktop.desktopFile))
    }

    @Test("without desktop-file-utils nothing is installed, and the error names the package")
    func missingTools() throws {
        let desktop = try TestDesktop()
        let output = try runProgram(
            vitalbridgePath.path, ["install-handler"],
            environment: desktop.environment.merging(["PATH": desktop.root + "/system"]) { $1 })
        #expect(output.status == 1 && output.stderr.contains("desktop-file-validate"), "\(output.stderr)")
        #expect(output.stderr.contains("(Debian: desktop-file-utils)"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: desktop.root + "/data/applications").isEmpty)
    }

    @Test("a home whose path needs quoting is quoted as the Desktop Entry spec says: GLib's launcher reaches it")
    func quotedHome() throws {
        let desktop = try TestDesktop()
        let home = desktop.root + "/my \"vital\" home $HOME 100%"
        let installed = try desktop.vitalbridge(["install-handler", "--home", home])
        #expect(installed.status == 0 && installed.stderr.hasPrefix("warning: a path of the command needs quoting"))
        #expect(try desktop.run("desktop-file-validate", [desktop.desktopFile]).stdout.isEmpty)
        // gio launches it as a desktop environment does: the device lands in the home with the odd name
        let url = "ihealth-layer://?cmd=1&addtype=0&devicemodel=100&scheme=vitalbridge-demo"
        #expect(try desktop.run("gio", ["launch", desktop.desktopFile, url]).status == 0)
        var listed = ""
        for _ in 0..<100 where !listed.contains(macOf(.bp5)) {
            Thread.sleep(forTimeInterval: 0.1)
            listed = (try? desktop.vitalbridge(["devices", "--home", home]).stdout) ?? ""
        }
        #expect(listed.contains(macOf(.bp5)), "\(listed)")
        let control = try desktop.vitalbridge(["install-handler", "--home", desktop.root + "/a\nb"])
        #expect(control.status == 1 && control.stderr.contains("control character"))
    }

    @Test(
        "open --deliver hands the callback to the opener; it counts only if the opener succeeded, else exit 5 and again next time"
    )
    func deliver() throws {
        let desktop = try TestDesktop(fleet: generatedFleet(.bp5, 30))
        let recorder = try desktop.opener("record.sh")
        let sync = request(.sync, .bp5)
        func open(_ options: [String], environment: [String: String] = [:]) throws -> ProcessOutput {
            try runProgram(
                vitalbridgePath.path, ["open", "--home", desktop.hub.path, "--deliver"] + options + [sync],
                environment: desktop.environment.merging(environment) { $1 })
        }
        // the opener refuses: nothing counts, and it says why
        let refused = try open(["--opener", "false"])
        #expect(refused.status == 5 && refused.stdout.isEmpty)
        #expect(refused.stderr.contains("the opener 'false' exited with status 1 opening a vitalbridge-demo:// URL"))
        #expect(!refused.stderr.contains("systolic"))
        let missing = try open(["--opener", desktop.root + "/no-such-opener"])
        #expect(missing.status == 5 && missing.stderr.contains("cannot run the opener"))
        // the next request delivers the readings, through the opener the environment names
        let delivered = try open([], environment: ["VITALBRIDGE_OPENER": recorder])
        #expect(delivered.status == 0 && delivered.stdout.isEmpty, "\(delivered.stderr)")
        let callbacks = desktop.received()
        #expect(callbacks.count == 1)
        let response = try LayeredResponse(parsing: try #require(callbacks.first))
        #expect(response.succeeded && response.readings.count == 30 && response.remaining == 0)
        // journaled: the next sync has nothing new
        #expect(try open(["--opener", recorder]).status == 0)
        #expect(try LayeredResponse(parsing: try #require(desktop.received().first)).readings.isEmpty)
        // usage: an opener without --deliver, or one that is not a program
        let usage = try vitalbridge(["open", "--home", desktop.hub.path, "--opener", recorder, sync])
        #expect(usage.status == 2 && usage.stderr.contains("--opener is for --deliver"))
        #expect(try open(["--opener", " "]).status == 2)
        let badVariable = try open([], environment: ["VITALBRIDGE_OPENER": "--help"])
        #expect(badVariable.status == 1 && badVariable.stderr.contains("VITALBRIDGE_OPENER"))
    }

    @Test(
        "a hub killed after its opener took the callback, before the journal: the readings come again, none lost"
    )
    func killedAfterHandOff() throws {
        let desktop = try TestDesktop(fleet: generatedFleet(.bp5, 30))
        let sync = request(.sync, .bp5)
        // the opener takes the callback, then the hub (its parent) is killed before it can journal it
        let killed = desktop.deliverer(sync, opener: try desktop.opener("kill.sh", then: "kill -KILL $PPID"))
        try killed.run()
        killed.waitUntilExit()
        #expect(killed.terminationReason == .uncaughtSignal && killed.terminationStatus == SIGKILL)
        let first = try desktop.received().map { try LayeredResponse(parsing: $0) }
        #expect(first.count == 1 && first.first?.readings.count == 30)
        let again = desktop.deliverer(sync, opener: try desktop.opener("record.sh"))
        try again.run()
        again.waitUntilExit()
        #expect(again.terminationStatus == 0)
        let second = try desktop.received().map { try LayeredResponse(parsing: $0) }
        #expect(second.first?.readings == first.first?.readings)
        let store = try desktop.hub.store()
        #expect(try store.integrityCheck() == "ok" && store.readings.all().count == 30)
    }

    @Test("two hubs delivering at once through slow openers: every reading once, none twice, none lost")
    func concurrentDeliveries() throws {
        let desktop = try TestDesktop(fleet: generatedFleet(.bp5, 900))
        let sync = request(.sync, .bp5)
        let slow = try desktop.opener("slow.sh", then: "sleep 1")
        // both hand over while the other holds its readings: nothing is locked, and nothing is taken twice
        let hubs = [desktop.deliverer(sync, opener: slow), desktop.deliverer(sync, opener: slow)]
        for hub in hubs { try hub.run() }
        for hub in hubs { hub.waitUntilExit() }
        #expect(hubs.allSatisfy { $0.terminationStatus == 0 })
        var callbacks = desktop.received()
        #expect(callbacks.count == 2)
        for _ in 0..<20 {
            let drain = desktop.deliverer(sync, opener: try desktop.opener("record.sh"))
            try drain.run()
            drain.waitUntilExit()
            let received = desktop.received()
            callbacks += received
            if received.allSatisfy({ !$0.contains("&remaining=") }) { break }
        }
        let readings = try callbacks.flatMap { try LayeredResponse(parsing: $0).readings.map(\.object.json) }
        #expect(readings.count == 900 && Set(readings).count == 900, "\(readings.count) readings")
    }

    @Test(
        "a caller app and the hub, both registered with xdg-mime, round trip through xdg-open: measure, sync with remaining from inside the hand-off, cancel, an unknown caller, ShareVitalSigns"
    )
    func roundTrip() throws {
        let desktop = try TestDesktop(
            fleet: fleet(.bp5, user: UserScript(cancelAt: .add)) { device in
                device.records = RecordsScript(
                    generate: GeneratedRecords(
                        count: 900, seed: 3, from: "2026-01-01 00:00:00", to: "2026-11-01 00:00:00"))
            }, whitelist: ["org.example.caller": "vbcaller://"])
        #expect(try desktop.vitalbridge(["install-handler", "--home", desktop.hub.path]).status == 0)
        try desktop.registerCaller(["vbcaller", "stranger", "org.example.caller"])
        let client = LayeredClient(callback: .scheme("vbcaller"))
        var inbox = LayeredInbox()
        let mac = MACAddress(macOf(.bp5))!

        // measure: the live reading first
        #expect(
            try desktop.send(inbox.send(LayeredIntent(.measure, .bp5, mac: mac, unit: .kPa), with: client)).status == 0)
        var callbacks = desktop.received()
        #expect(callbacks.count == 1)
        let measured = try inbox.receive(try #require(callbacks.first))
        #expect(measured.match == .answer && measured.response.succeeded)
        #expect(measured.newReadings.first?.origin == .measured)
        guard case .bloodPressure(let systolic, _, _, _)? = measured.newReadings.first?.value else {
            Issue.record("no blood pressure in \(callbacks)")
            return
        }
        #expect(systolic?.unit == .kPa)

        // sync: each callback that says readings remain makes the caller's handler ask again, from inside the
        // hand-off of the hub that is still waiting for it
        let sync = try inbox.send(LayeredIntent(.sync, .bp5, mac: mac), with: client)
        try sync.write(toFile: desktop.root + "/again", atomically: true, encoding: .utf8)
        #expect(try desktop.send(sync).status == 0)
        callbacks = desktop.received()
        #expect(callbacks.count >= 3, "\(callbacks.count) callbacks")
        var synced = 0
        for (index, url) in callbacks.enumerated() {
            let delivery = try inbox.receive(url)
            #expect(delivery.match == (index == 0 ? .answer : .duplicate))
            #expect(delivery.repeatedReadings == 0 && delivery.response.succeeded)
            #expect((delivery.response.remaining == 0) == (index == callbacks.count - 1))
            synced += delivery.newReadings.count
        }
        // the 900 records, and the live reading the measure's callback carried
        #expect(synced + measured.newReadings.count == 901)

        // cancel: the user closes the add
        #expect(try desktop.send(inbox.send(LayeredIntent(.add, .bp5), with: client)).status == 0)
        let cancelled = try inbox.receive(try #require(desktop.received().first))
        #expect(cancelled.response.cancelled && cancelled.response.reason == .cancel && cancelled.match == .answer)

        // an unknown caller gets nothing, though its scheme has a handler
        let stranger = try LayeredClient(callback: .scheme("stranger")).url(
            for: LayeredIntent(.sync, .bp5, mac: mac), requestID: "r-stranger")
        #expect(try desktop.send(stranger).status != 0)
        #expect(desktop.received().isEmpty)
        #expect(inbox.outstanding.isEmpty)

        // ShareVitalSigns: the hub answers svs-bp:// and opens the requester's own scheme
        let providerURL = try desktop.vitalbridge([
            "svs", "request", "--home", desktop.hub.path, "--sign", "BP", "--requester", "org.example.caller",
            "--plain",
        ]).stdout.trimmingCharacters(in: .newlines)
        #expect(try desktop.send(providerURL).status == 0)
        #expect(desktop.received() == ["org.example.caller://"])
        let retrieved = try desktop.vitalbridge([
            "svs", "retrieve", "--home", desktop.hub.path, "--sign", "BPSYS", "--requester", "org.example.caller",
        ])
        #expect(retrieved.status == 0, "\(retrieved.stderr)")
    }
}
