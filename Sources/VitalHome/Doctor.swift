import BlueZ
import DBus
import Foundation
import LayeredProtocol
import VitalBridge
import VitalCore
import VitalDevices
import VitalSimulation
import VitalStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One thing `doctor` looked at.
public struct Finding: Equatable {
    public enum Level: String {
        /// Nothing to do.
        case ok
        /// The hub serves requests, but something is not as it should be.
        case warning
        /// A request would fail.
        case fail
    }

    public var level: Level
    /// What was checked: `home`, `store`, `handler x-scheme-handler/svs-bp`, `adapter`, `device 004D3208D310`…
    public var check: String
    public var detail: String
    /// The command that fixes it, for a warning or a failure.
    public var fix: String?

    /// What `check` found, at `level`, with the command that fixes it.
    public init(level: Level, check: String, detail: String, fix: String? = nil) {
        self.level = level
        self.check = check
        self.detail = detail
        self.fix = fix
    }

    /// `ok       store: …`, with `(fix: …)` after a warning or a failure.
    public var line: String {
        let status = level.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
        return status + check + ": " + detail + (fix.map { " (fix: \($0))" } ?? "")
    }
}

/// The checks of `vitalbridge doctor`, in the order a request meets what they check. Reads only: the home's files are
/// looked at, never tightened or migrated as the other commands do.
public struct Doctor {
    /// The home folder examined.
    public let directory: String

    /// The checks of the home at `directory`.
    public init(directory: String) { self.directory = directory }
    private var home: Home { Home(unchecked: directory) }
    private var quoted: String { "'\(directory)'" }

    /// Whether a home with `findings` can serve requests with its transport: none of them failed (warnings allowed).
    public static func isReady(_ findings: [Finding]) -> Bool { !findings.contains { $0.level == .fail } }

    /// What `doctor --json` prints: one JSON object, pretty-printed, without a last line end: the home, whether it
    /// is ready (``isReady(_:)``), and every check with its status, detail and fix (when it has one).
    public func json(_ findings: [Finding]) -> String {
        let checks = findings.map { finding in
            JSON.object(
                [
                    ("check", .string(finding.check)), ("status", .string(finding.level.rawValue)),
                    ("detail", .string(finding.detail)),
                ] + (finding.fix.map { [("fix", JSON.string($0))] } ?? []))
        }
        let document = JSON.object([
            ("home", .string(directory)), ("ready", .bool(Self.isReady(findings))), ("checks", .array(checks)),
        ])
        let text = String(decoding: document.serialized(pretty: true), as: UTF8.self)
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }

    public func examine() async -> [Finding] {
        var findings = homeFindings()
        let usable = !findings.contains { $0.level == .fail }
        var devices: [StoredDevice] = []
        if usable {
            let store: Finding
            (store, devices) = storeFinding()
            findings += [store] + whitelistFindings() + [serveFinding()]
        }
        findings += handlerFindings()
        guard usable else { return findings }
        let adapter: String?
        do {
            adapter = try home.adapter()
        } catch {
            return findings + [
                Finding(
                    level: .fail, check: "transport", detail: "\(error)",
                    fix: "vitalbridge init --home \(quoted) --adapter hci0 (or --adapter none for the simulator)")
            ]
        }
        if let adapter {
            findings.append(Finding(level: .ok, check: "transport", detail: "BlueZ, adapter \(adapter)"))
            findings += await bluezFindings(adapter: adapter, devices: devices)
        } else {
            do {
                let fleet = try home.fleet()
                findings.append(
                    Finding(
                        level: .ok, check: "transport",
                        detail: "simulated: \(fleet.devices.count) devices in \(home.fleetPath)"))
            } catch {
                findings.append(
                    Finding(
                        level: .fail, check: "transport", detail: "\(error)",
                        fix: "correct \(home.fleetPath), or move it away to use the built-in fleet"))
            }
        }
        return findings
    }

    /// Whether `vitalbridge serve` runs on the home: without it, devices are synced only when an app asks.
    private func serveFinding() -> Finding {
        let serve = home.runningServe()
        guard serve.running else {
            return Finding(
                level: .warning, check: "serve",
                detail: "not running: devices are synced only when an app asks, not as they appear",
                fix: "systemctl --user enable --now vitalbridge.service (or: vitalbridge serve --home \(quoted))")
        }
        return Finding(
            level: .ok, check: "serve",
            detail: "running\(serve.pid.map { " (pid \($0))" } ?? ""): devices are synced as they appear")
    }

    // MARK: The home

    private func homeFindings() -> [Finding] {
        var status = stat()
        guard stat(directory, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, Home.exists(home.storePath) else {
            return [
                Finding(
                    level: .fail, check: "home", detail: "no VitalBridge home at \(directory)",
                    fix: "vitalbridge init --home \(quoted)")
            ]
        }
        guard status.st_uid == geteuid() else {
            return [
                Finding(
                    level: .fail, check: "home", detail: "\(directory) belongs to another user",
                    fix: "use a home of your own: vitalbridge init --home ~/vitalbridge-home")
            ]
        }
        var findings: [Finding] = []
        var open: [String] = []
        if status.st_mode & 0o077 != 0 { open.append(directory) }
        for folder in [home.worldDirectory, home.locksDirectory] where Home.exists(folder) {
            var inner = stat()
            guard lstat(folder, &inner) == 0, inner.st_mode & S_IFMT == S_IFDIR else {
                findings.append(
                    Finding(
                        level: .fail, check: "home", detail: "\(folder) is not a folder; the hub does not follow links",
                        fix: "move \(folder) away"))
                continue
            }
            if inner.st_mode & 0o077 != 0 { open.append(folder) }
        }
        for folder in [directory, home.worldDirectory] {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
                var file = stat()
                let path = folder + "/" + name
                guard lstat(path, &file) == 0 else { continue }
                let kind = file.st_mode & S_IFMT
                if kind == S_IFLNK {
                    findings.append(
                        Finding(
                            level: .fail, check: "home", detail: "\(path) is a link; the hub does not follow links",
                            fix: "replace it with the file itself"))
                } else if kind == S_IFREG, file.st_mode & 0o077 != 0 {
                    open.append(path)
                }
            }
        }
        if open.isEmpty {
            findings.append(Finding(level: .ok, check: "home", detail: "\(directory) is yours and private"))
        } else {
            findings.append(
                Finding(
                    level: .warning, check: "home",
                    detail: "others may read \(open.count == 1 ? open[0] : "\(open.count) of its files and folders")",
                    fix: "chmod -R go= \(quoted) (the next request tightens it too)"))
        }
        return findings
    }

    /// The store's line, and its devices when it could be read.
    private func storeFinding() -> (Finding, [StoredDevice]) {
        do {
            let store = try VitalStore(path: home.storePath, readOnly: true)
            let integrity = try store.integrityCheck()
            guard integrity == "ok" else {
                return (
                    Finding(
                        level: .fail, check: "store", detail: "damaged: \(integrity.prefix(200))",
                        fix: "restore \(home.storePath) from a backup"), []
                )
            }
            let devices = try store.devices()
            return (
                Finding(
                    level: .ok, check: "store",
                    detail: "sound, schema \(VitalStore.schemaVersion), \(devices.count) devices, \(home.storePath)"),
                devices
            )
        } catch let error where error.code == .upgradeRefused {
            return (
                Finding(
                    level: .warning, check: "store", detail: "\(error)",
                    fix: "vitalbridge init --home \(quoted), run by the home's owner (upgrades it)"), []
            )
        } catch let error where error.code == .schema {
            return (
                Finding(
                    level: .fail, check: "store", detail: "\(error)",
                    fix: "use the newer VitalBridge that wrote it, or restore \(home.storePath) from a backup"), []
            )
        } catch {
            return (
                Finding(
                    level: .fail, check: "store", detail: "\(error)",
                    fix: error.code == .busy
                        ? "wait for the other vitalbridge process, then ask again"
                        : "move \(home.storePath) away and restore it from a backup"), []
            )
        }
    }

    private func whitelistFindings() -> [Finding] {
        do {
            let callers = try home.whitelist().entries.count
            let source = Home.exists(home.whitelistPath) ? home.whitelistPath : "the built-in default"
            return [
                Finding(
                    level: .ok, check: "whitelist",
                    detail: "\(callers) caller\(callers == 1 ? "" : "s"), from \(source)")
            ]
        } catch {
            return [
                Finding(
                    level: .fail, check: "whitelist", detail: "\(error)",
                    fix: "correct \(home.whitelistPath), or move it away to use the built-in default")
            ]
        }
    }

    // MARK: The desktop

    /// The desktop's handler of each of the hub's schemes, as `xdg-mime` finds it: one line for the schemes
    /// VitalBridge opens, one for each other handler (or none).
    private func handlerFindings() -> [Finding] {
        var handlers: [(scheme: String, handler: String)] = []
        for scheme in DesktopHandler.schemes {
            do {
                let answer = try ChildProcess(["xdg-mime", "query", "default", "x-scheme-handler/" + scheme]).run(
                    capture: .standardOutput)
                handlers.append((scheme, answer.output.trimmingCharacters(in: .whitespacesAndNewlines)))
            } catch {
                return [
                    Finding(
                        level: .warning, check: "handler",
                        detail: "xdg-mime cannot be run, so which application opens the hub's URLs is unknown",
                        fix: "sudo apt-get install xdg-utils")
                ]
            }
        }
        var order: [String] = []
        var schemes: [String: [String]] = [:]
        for (scheme, handler) in handlers {
            if schemes[handler] == nil { order.append(handler) }
            schemes[handler, default: []].append(scheme)
        }
        return order.map { handler in
            let check = "handler " + schemes[handler, default: []].joined(separator: ", ")
            if handler == DesktopHandler.fileName {
                return Finding(level: .ok, check: check, detail: "opened by \(handler)")
            }
            return Finding(
                level: .warning, check: check,
                detail: handler.isEmpty ? "no application opens them" : "opened by \(handler), not VitalBridge",
                fix: "vitalbridge install-handler")
        }
    }

    // MARK: BlueZ

    private func bluezFindings(adapter name: String, devices: [StoredDevice]) async -> [Finding] {
        let adapters: [BlueZAdapter]
        let known: [BlueZKnownDevice]
        switch await BlueZInspection.inspect() {
        case .noLibrary(let problem):
            return [
                Finding(level: .fail, check: "libsystemd", detail: problem, fix: "sudo apt-get install libsystemd0")
            ]
        case .noBus(let problem):
            return [
                Finding(level: .ok, check: "libsystemd", detail: "sd-bus loads"),
                Finding(
                    level: .fail, check: "system bus", detail: "unreachable: \(problem)",
                    fix: environment("DBUS_SYSTEM_BUS_ADDRESS") == nil
                        ? "sudo systemctl start dbus" : "start the bus at $DBUS_SYSTEM_BUS_ADDRESS, or unset it"),
            ]
        case .noBlueZ:
            return [
                Finding(level: .ok, check: "libsystemd", detail: "sd-bus loads"),
                Finding(level: .ok, check: "system bus", detail: "reachable"),
                Finding(
                    level: .fail, check: "bluetoothd", detail: "not running: nothing owns org.bluez on the bus",
                    fix: Self.bluetoothd() == nil ? "sudo apt-get install bluez" : "sudo systemctl start bluetooth"),
            ]
        case .failed(let problem):
            return [
                Finding(level: .ok, check: "libsystemd", detail: "sd-bus loads"),
                Finding(level: .ok, check: "system bus", detail: "reachable"),
                Finding(
                    level: .fail, check: "bluetoothd", detail: "org.bluez does not answer as BlueZ: \(problem)",
                    fix: "sudo systemctl restart bluetooth"),
            ]
        case .reached(let found, let devices):
            (adapters, known) = (found, devices)
        }
        var findings = [
            Finding(level: .ok, check: "libsystemd", detail: "sd-bus loads"),
            Finding(level: .ok, check: "system bus", detail: "reachable"),
            Finding(level: .ok, check: "bluetoothd", detail: "answers on the bus, \(Self.bluetoothdVersion())"),
        ]
        guard let adapter = adapters.first(where: { $0.name == name }) else {
            let others = adapters.map(\.name).joined(separator: ", ")
            findings.append(
                Finding(
                    level: .fail, check: "adapter",
                    detail: "BlueZ has no adapter \(name)" + (others.isEmpty ? "" : " (it has \(others))"),
                    fix: adapters.first.map { "vitalbridge init --home \(quoted) --adapter \($0.name)" }
                        ?? "plug in a Bluetooth adapter, then: rfkill unblock bluetooth"))
            return findings
        }
        if !adapter.powered {
            findings.append(
                Finding(
                    level: .fail, check: "adapter", detail: "\(name) (\(adapter.address)) is off",
                    fix: "bluetoothctl power on"))
        } else if !adapter.central {
            findings.append(
                Finding(
                    level: .fail, check: "adapter", detail: "\(name) (\(adapter.address)) cannot be a central",
                    fix: "use another adapter: vitalbridge init --home \(quoted) --adapter hciN"))
        } else {
            findings.append(Finding(level: .ok, check: "adapter", detail: "\(name) (\(adapter.address)) is on"))
        }
        findings += deviceFindings(devices, adapter: name, known: known)
        return findings
    }

    /// Each added device: reachable through BlueZ, known to it, bonded where its profile needs a bond.
    private func deviceFindings(_ devices: [StoredDevice], adapter: String, known: [BlueZKnownDevice]) -> [Finding] {
        devices.map { device in
            let check = "device \(device.mac)"
            let model = "\(device.model.name) (\(device.model.rawValue))"
            guard device.model.isStandardProfile else {
                return Finding(
                    level: .warning, check: check,
                    detail: "\(model) speaks a vendor protocol BlueZ homes do not reach; requests for it fail",
                    fix: "use a simulated home for it: vitalbridge init --home DIR")
            }
            let needsBond = DeviceCatalog.entry(for: device.model).profile.requiresBonding
            let pair = "vitalbridge pair --home \(quoted) --mac \(device.mac)"
            guard let state = known.first(where: { $0.adapter == adapter && $0.mac == device.mac }) else {
                return needsBond
                    ? Finding(
                        level: .fail, check: check,
                        detail: "\(model) is not known to BlueZ, and its profile needs a bond",
                        fix: pair)
                    : Finding(
                        level: .warning, check: check,
                        detail: "\(model) is not known to BlueZ yet: the hub scans for it when it connects",
                        fix: "turn the device on near the adapter, or: \(pair)")
            }
            let facts =
                [state.paired ? "paired" : "not paired", state.bonded ? "bonded" : "not bonded"]
                + (state.trusted ? ["trusted"] : [])
            if needsBond && !state.bonded {
                return Finding(
                    level: .fail, check: check,
                    detail:
                        "\(model) is known to BlueZ (\(facts.joined(separator: ", "))), and its profile needs a bond",
                    fix: pair)
            }
            guard state.trusted else {
                return Finding(
                    level: .warning, check: check,
                    detail: "\(model) is known to BlueZ (\(facts.joined(separator: ", "))) but not trusted: serve "
                        + "hears it advertising, but BlueZ does not let it connect to the hub by itself",
                    fix: pair)
            }
            return Finding(
                level: .ok, check: check, detail: "\(model) is known to BlueZ (\(facts.joined(separator: ", ")))")
        }
    }

    /// The bluetoothd program where Debian and others install it, if any.
    public static func bluetoothd() -> String? {
        ["/usr/libexec/bluetooth/bluetoothd", "/usr/lib/bluetooth/bluetoothd", "/usr/sbin/bluetoothd"].first {
            access($0, X_OK) == 0
        }
    }

    /// `bluetoothd 5.66`, from the program's `--version`; says so when no program is found (a bus whose org.bluez
    /// is another implementation, such as `vitalbridge simulate --bus`).
    public static func bluetoothdVersion() -> String {
        guard let program = bluetoothd() else { return "version unknown (no bluetoothd program on this machine)" }
        guard let answer = try? ChildProcess([program, "--version"]).run(capture: .standardOutput), answer.status == 0
        else { return "version unknown (\(program) --version failed)" }
        return "bluetoothd " + answer.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
