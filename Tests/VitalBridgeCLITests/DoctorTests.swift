import Foundation
import LayeredProtocol
import TestRequirements
import Testing
import VitalCore
import VitalSimulation
import VitalTestSupport

/// `vitalbridge doctor` on homes that are sound, broken and missing, and on BlueZ homes with and without a bus.
@Suite("vitalbridge doctor")
struct DoctorTests {
    /// A desktop of the test's own (its `mimeapps.list` and applications folder in `home`), so that the handler
    /// lines do not depend on the machine's.
    static func desktop(_ home: String) -> [String: String] {
        ["XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data", "HOME": home]
    }

    /// `doctor --json` on `home`: its exit status, and each check's status and detail by check name.
    static func doctor(_ home: String, environment: [String: String] = [:]) throws -> (
        status: Int32, ready: Bool, checks: [String: (status: String, detail: String, fix: String?)]
    ) {
        let output = try vitalbridge(
            ["doctor", "--home", home, "--json"], environment: desktop(home).merging(environment) { $1 })
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any], "\(output.stderr)")
        var checks: [String: (String, String, String?)] = [:]
        for check in document["checks"] as? [[String: String]] ?? [] {
            checks[check["check"] ?? ""] = (check["status"] ?? "", check["detail"] ?? "", check["fix"])
        }
        return (output.status, document["ready"] as? Bool ?? false, checks)
    }

    @Test("a sound simulated home: every check ok but the handler, exit 0; the text form has one line a check")
    func soundHome() throws {
        let home = try TestHome()
        _ = try home.callback(request(.addMeasure, .bp5))
        let report = try Self.doctor(home.path)
        #expect(report.status == 0 && report.ready)
        #expect(report.checks["home"]?.status == "ok")
        #expect(report.checks["store"]?.status == "ok" && report.checks["store"]?.detail.contains("1 devices") == true)
        #expect(report.checks["whitelist"]?.status == "ok")
        #expect(report.checks["transport"]?.detail.hasPrefix("simulated: ") == true)
        // no serve runs: a warning naming the user unit
        #expect(
            report.checks["serve"]?.status == "warning"
                && report.checks["serve"]?.detail.hasPrefix("not running") == true)
        #expect(report.checks["serve"]?.fix?.hasPrefix("systemctl --user enable --now vitalbridge.service") == true)
        // no handler installed on this desktop: a warning naming the command, which does not fail the home; on a
        // machine without xdg-utils, one warning saying that xdg-mime cannot be run
        let handler = try #require(report.checks.first { $0.key == "handler" || $0.key.hasPrefix("handler ") })
        #expect(handler.value.status == "warning")
        if handler.key == "handler" {
            #expect(handler.value.detail.contains("xdg-mime cannot be run"))
            #expect(handler.value.fix == "sudo apt-get install xdg-utils")
        } else {
            #expect(handler.key.contains("ihealth-layer"))
            #expect(handler.value.fix == "vitalbridge install-handler" || handler.value.detail.contains("xdg-mime"))
        }
        let text = try vitalbridge(["doctor", "--home", home.path], environment: Self.desktop(home.path))
        #expect(text.status == 0)
        let lines = text.stdout.split(separator: "\n")
        #expect(lines.count == report.checks.count)
        #expect(lines.allSatisfy { $0.hasPrefix("ok      ") || $0.hasPrefix("warning ") })
    }

    @Test("with the handler installed, its schemes are ok", .needs(Requirement.xdgUtils + [.desktopFileUtils]))
    func handlerInstalled() throws {
        let home = try TestHome()
        _ = try home.callback(request(.add, .bp5))
        let installed = try vitalbridge(
            ["install-handler", "--home", home.path], environment: Self.desktop(home.path))
        #expect(installed.status == 0, "\(installed.stderr)")
        let report = try Self.doctor(home.path)
        let handler = try #require(report.checks.first { $0.key.hasPrefix("handler ") })
        #expect(report.checks.filter { $0.key.hasPrefix("handler ") }.count == 1)
        #expect(handler.value.status == "ok" && handler.value.detail == "opened by vitalbridge.desktop")
    }

    @Test("a store that is not a database: a fail line naming it, exit 1, and the file left as it was")
    func brokenStore() throws {
        let home = try TestHome()
        _ = try home.callback(request(.add, .bp5))
        let store = home.path + "/vitalbridge.sqlite"
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
        let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) })
        try garbage.write(to: URL(fileURLWithPath: store))
        let report = try Self.doctor(home.path)
        #expect(report.status == 1 && !report.ready)
        let line = try #require(report.checks["store"])
        #expect(line.status == "fail" && line.detail.contains("not a database"), "\(line)")
        #expect(line.fix?.contains("backup") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == garbage)
        let text = try vitalbridge(["doctor", "--home", home.path], environment: Self.desktop(home.path))
        #expect(text.status == 1 && text.stdout.contains("\nfail    store: "))
    }

    @Test("no home, a whitelist or fleet that cannot be read, a home others may read: each said, nothing changed")
    func homeProblems() throws {
        let missing = try TemporaryDirectory("vitalbridge-doctor")
        defer { missing.remove() }
        let none = try Self.doctor(missing.path + "/nowhere")
        #expect(none.status == 1 && none.checks["home"]?.status == "fail")
        #expect(none.checks["home"]?.fix == "vitalbridge init --home '\(missing.path)/nowhere'")
        #expect(!FileManager.default.fileExists(atPath: missing.path + "/nowhere"))

        let home = try TestHome()
        _ = try home.callback(request(.add, .bp5))
        chmod(home.path, 0o755)
        let open = try Self.doctor(home.path)
        #expect(open.status == 0 && open.checks["home"]?.status == "warning")
        #expect(open.checks["home"]?.fix?.hasPrefix("chmod -R go= ") == true)
        var status = stat()
        stat(home.path, &status)
        #expect(status.st_mode & 0o777 == 0o755, "doctor changes nothing")

        try Data("<plist>not one".utf8).write(to: URL(fileURLWithPath: home.path + "/AppWhiteList.plist"))
        let whitelist = try Self.doctor(home.path)
        #expect(whitelist.status == 1 && whitelist.checks["whitelist"]?.status == "fail")
        #expect(whitelist.checks["whitelist"]?.detail.contains("AppWhiteList.plist") == true)

        let other = try TestHome()
        _ = try other.callback(request(.add, .bp5))
        try Data(#"{"devices": 3}"#.utf8).write(to: URL(fileURLWithPath: other.path + "/fleet.json"))
        let fleet = try Self.doctor(other.path)
        #expect(fleet.status == 1 && fleet.checks["transport"]?.status == "fail")
        #expect(
            fleet.checks["transport"]?.fix
                == "correct \(other.path)/fleet.json, or move it away to use the built-in fleet")
    }

    @Test("a BlueZ home whose bus is unreachable: a fail line naming what to start, exit 1")
    func noBus() throws {
        let home = try TestHome()
        #expect(try vitalbridge(["init", "--home", home.path, "--adapter", "hci0"]).status == 0)
        let report = try Self.doctor(home.path, environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bus"])
        #expect(report.status == 1 && !report.ready)
        #expect(report.checks["transport"]?.detail == "BlueZ, adapter hci0")
        #expect(report.checks["libsystemd"]?.status == "ok")
        let bus = try #require(report.checks["system bus"])
        #expect(bus.status == "fail" && bus.detail.hasPrefix("unreachable: "))
        #expect(bus.fix == "start the bus at $DBUS_SYSTEM_BUS_ADDRESS, or unset it")
    }

    @Test(
        "without libsystemd a BlueZ home's doctor and requests name libsystemd0 in one line; the simulator works",
        .needs(.rootNamespaces))
    func noLibsystemd() throws {
        let home = try TestHome()
        #expect(try vitalbridge(["init", "--home", home.path, "--adapter", "hci0"]).status == 0)
        let simulated = try TestHome()
        // libsystemd covered by /dev/null in a mount namespace of the commands' own
        func hidden(_ arguments: [String]) throws -> ProcessOutput {
            let command = ([vitalbridgePath.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
            return try runProgram(
                "/usr/bin/unshare",
                [
                    "-m", "sh", "-c",
                    "for l in /usr/lib/*/libsystemd.so.0 /lib/*/libsystemd.so.0; do [ -e \"$l\" ] && "
                        + "mount --bind /dev/null \"$(readlink -f \"$l\")\"; done; exec \(command)",
                ], environment: Self.desktop(home.path))
        }
        let doctor = try hidden(["doctor", "--home", home.path])
        #expect(doctor.status == 1, "\(doctor.stderr)")
        #expect(
            doctor.stdout.contains(
                "fail    libsystemd: libsystemd.so.0 (sd-bus) cannot be loaded: install the package libsystemd0"),
            "\(doctor.stdout)")
        #expect(doctor.stdout.contains("(fix: sudo apt-get install libsystemd0)"))
        let scan = try hidden(["scan", "--home", home.path])
        #expect(scan.status == 1)
        #expect(scan.stderr.split(separator: "\n").count == 1 && scan.stderr.contains("libsystemd0"), "\(scan.stderr)")
        let demo = try hidden(["open", "--home", simulated.path, request(.addMeasure, .bp5)])
        #expect(demo.status == 0, "\(demo.stdout) \(demo.stderr)")
        let callback = try LayeredCallback(parsing: demo.stdout.trimmingCharacters(in: .newlines))
        #expect(callback.status == .success(.addMeasure), "\(demo.stdout) \(demo.stderr)")
    }
}

@Suite("vitalbridge doctor on a simulated BlueZ", .serialized, .needs(Requirement.bus))
struct DoctorBlueZTests {
    @Test(
        "adapter on; a heart-rate sensor known to BlueZ but not trusted warns until paired; a glucose meter known but not bonded fails, naming pair"
    )
    func devices() throws {
        let unbonded = fleet(.glucoseMeter) { $0.paired = false }
        let bench = try SimulatedBus(fleet: unbonded)
        defer { bench.stop() }
        let home = bench.home.path
        #expect(try vitalbridge(["init", "--home", home, "--adapter", "hci0"]).status == 0)
        for model in [DeviceModel.heartRateSensor, .glucoseMeter] {
            // by its QR code: a scan adds only a paired device
            let added = try bench.open(
                request(.add, model).replacingOccurrences(of: "addtype=0", with: "addtype=1"), "--scan-qr",
                macOf(model))
            #expect(added.status == 0, "\(added.stderr)")
            let callback = try LayeredCallback(parsing: added.stdout.trimmingCharacters(in: .newlines))
            #expect(callback.status == .success, "\(added.stdout) \(added.stderr)")
        }
        let report = try DoctorTests.doctor(home, environment: bench.environment)
        #expect(report.status == 1 && !report.ready)
        for check in ["libsystemd", "system bus", "bluetoothd", "adapter"] {
            #expect(report.checks[check]?.status == "ok", "\(check): \(String(describing: report.checks[check]))")
        }
        #expect(report.checks["adapter"]?.detail.hasPrefix("hci0 (") == true)
        let sensor = try #require(report.checks["device \(macOf(.heartRateSensor))"])
        #expect(sensor.status == "warning" && sensor.detail.contains("but not trusted: serve hears it"), "\(sensor)")
        #expect(sensor.fix == "vitalbridge pair --home '\(home)' --mac \(macOf(.heartRateSensor))")
        let meter = try #require(report.checks["device \(macOf(.glucoseMeter))"])
        #expect(meter.status == "fail" && meter.detail.contains("needs a bond"), "\(meter)")
        #expect(meter.fix == "vitalbridge pair --home '\(home)' --mac \(macOf(.glucoseMeter))")
        // pairing trusts it: then it is ok
        let paired = try vitalbridge(
            ["pair", "--home", home, "--mac", macOf(.heartRateSensor)], environment: bench.environment)
        #expect(paired.status == 0, "\(paired.stderr)")
        let trusted = try #require(
            try DoctorTests.doctor(home, environment: bench.environment).checks["device \(macOf(.heartRateSensor))"])
        #expect(trusted.status == "ok" && trusted.detail.contains("trusted"), "\(trusted)")
        // a home that names an adapter BlueZ does not have
        #expect(try vitalbridge(["init", "--home", home, "--adapter", "hci7"]).status == 0)
        let other = try DoctorTests.doctor(home, environment: bench.environment)
        #expect(other.checks["adapter"]?.status == "fail" && other.checks["adapter"]?.detail.contains("hci7") == true)
        #expect(other.checks["adapter"]?.fix == "vitalbridge init --home '\(home)' --adapter hci0")
    }
}
