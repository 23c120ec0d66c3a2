import Foundation
import LayeredProtocol
import Testing
import VitalCore
import VitalSimulation
import VitalStore
import VitalTestSupport

#if canImport(Glibc)
    import Glibc
#endif

extension TestHome {
    /// Runs `vitalbridge device ARGUMENTS --home … --mac <model's MAC>`.
    func device(_ arguments: [String], _ model: DeviceModel) throws -> ProcessOutput {
        try run(["device"] + arguments + ["--home", path, "--mac", macOf(model)])
    }

    /// A home of the built-in fleet to which `models` were added by layered requests.
    static func with(_ models: DeviceModel...) throws -> TestHome {
        let home = try TestHome(fleet: fleet())
        for model in models {
            let added = try home.callback(request(.add, model, mac: macOf(model)))
            #expect(added.status == .success, "\(model): \(added.reason?.rawValue ?? "")")
        }
        return home
    }
}

extension FleetDevice {
    /// The device without `items` (`serial`, `firmware`, `battery`): it serves no such characteristic.
    mutating func omit(_ items: [String]) {
        omits = items
        if items.contains("serial") { serial = nil }
        if items.contains("firmware") { firmware = nil }
        if items.contains("battery") { battery = nil }
    }
}

/// The JSON objects of a live stream's lines.
func liveLines(_ stdout: String) throws -> [[String: Any]] {
    try stdout.split(separator: "\n").map {
        try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
    }
}

@Suite("vitalbridge device")
struct DeviceCommandTests {
    @Test(
        "device info shows what the PO3, a band and a SIG device with the Battery Service say about themselves",
        arguments: [DeviceModel.po3, .fitPro9614N, .bloodPressureMonitor])
    func info(model: DeviceModel) throws {
        let home = try TestHome.with(model)
        let output = try home.device(["info"], model)
        #expect(output.status == 0, "\(output.stderr)")
        let mac = macOf(model)
        #expect(
            output.stdout
                == "\(model.name) (devicemodel \(model.rawValue)), serial \(model.name)-\(mac.suffix(4)), "
                + "firmware 1.0.0, battery 90%\n")
    }

    @Test(
        "a SIG device without the Battery Service or a serial number is added, and device info says what it lacks",
        arguments: [
            (["battery"], "serial BPS-D314, firmware 1.0.0, battery not reported"),
            (["serial", "firmware", "battery"], "serial not reported, firmware not reported, battery not reported"),
        ])
    func partialInfo(omits: [String], line: String) throws {
        let home = try TestHome(fleet: fleet(.bloodPressureMonitor) { $0.omit(omits) })
        let mac = macOf(.bloodPressureMonitor)
        let added = try home.callback(request(.add, .bloodPressureMonitor, mac: mac))
        #expect(added.status == .success, "\(added.reason?.rawValue ?? "")")
        let output = try home.device(["info"], .bloodPressureMonitor)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout == "BPS (devicemodel 900), \(line)\n")
        // the device is the hub's, and measures
        #expect(try home.callback(request(.measure, .bloodPressureMonitor)).status == .success(.measure))
    }

    @Test("device info refuses an unknown MAC and a malformed one, naming it")
    func infoRefusals() throws {
        let home = try TestHome.with(.bp5)
        let unknown = try home.device(["info"], .po3)
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("\(macOf(.po3)) is not a device of this hub"))
        #expect(unknown.stderr.split(separator: "\n").count == 1, "\(unknown.stderr)")
        let bad = try home.run(["device", "info", "--home", home.path, "--mac", "00:11"])
        #expect(bad.status == 2 && bad.stderr.contains("--mac must be 12 hexadecimal digits"))
    }

    @Test(
        "on a BlueZ home a vendor device is refused before anything connects: nothing simulated answers",
        arguments: [["info"], ["reset", "--yes"], ["live"]])
    func bluezHome(command: [String]) throws {
        let home = try TestHome.with(.po3)
        let output = try home.device(command + ["--transport", "bluez"], .po3)
        #expect(output.status == 1 && output.stdout.isEmpty, "\(output.stdout)")
        #expect(
            output.stderr == "\(macOf(.po3)) is a PO3: this home's transport does not speak its "
                + "protocol\n")
    }

    @Test(
        "band commands go through the same desk: on a BlueZ home a band is refused before anything connects",
        arguments: [["state"], ["info"], ["today"], ["follow", "--hours", "1"], ["reset", "--yes"]])
    func bandOnBluezHome(command: [String]) throws {
        let home = try TestHome.with(.fitPro9614N)
        let mac = macOf(.fitPro9614N)
        let output = try home.run(["band"] + command + ["--home", home.path, "--mac", mac, "--transport", "bluez"])
        #expect(output.status == 1 && output.stdout.isEmpty, "\(output.stdout)")
        #expect(
            output.stderr == "\(mac) is a FitPro9614N: this home's transport does not speak its protocol\n")
    }

    @Test("device reset stores the PO3's history first, then resets it: a sync then delivers the stored records")
    func resetPO3() throws {
        let home = try TestHome.with(.po3)
        let refused = try home.device(["reset"], .po3)
        #expect(refused.status == 2 && refused.stderr.contains("confirm with --yes"))
        let reset = try home.device(["reset", "--yes"], .po3)
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(reset.stdout == "stored 5 record(s), then reset the device\n")
        let synced = try home.callback(request(.sync, .po3))
        guard case .list(let records)? = synced.result else {
            Issue.record("no result: \(synced.reason?.rawValue ?? "")")
            return
        }
        #expect(records.count == 5)
        // the device holds nothing more
        #expect(try home.device(["reset", "--yes"], .po3).stdout == "stored 0 record(s), then reset the device\n")
    }

    @Test("device reset of a band takes the band reset path: everything it holds is stored first")
    func resetBand() throws {
        let home = try TestHome.with(.fitPro9614N)
        let reset = try home.device(["reset", "--yes"], .fitPro9614N)
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(reset.stdout.hasPrefix("stored ") && reset.stdout.hasSuffix(" record(s), then reset the device\n"))
        #expect(!(try home.bandItems()).isEmpty)
    }

    @Test("device reset refuses a device without a factory reset", arguments: [DeviceModel.bg5, .bp5])
    func resetUnsupported(model: DeviceModel) throws {
        let home = try TestHome.with(model)
        let output = try home.device(["reset", "--yes"], model)
        #expect(output.status == 1)
        #expect(output.stderr.contains("has no factory reset"), "\(output.stderr)")
    }

    @Test("device live prints the PO3's samples with the SDK's keys spo2, bpm, pi and wave, then stores the reading")
    func livePO3() throws {
        let home = try TestHome.with(.po3)
        let output = try home.device(["live"], .po3)
        #expect(output.status == 0, "\(output.stderr)")
        let lines = try liveLines(output.stdout)
        #expect(lines.compactMap { $0["wave"] as? Int } == [20, 60, 90, 40])
        let values = lines.filter { $0["spo2"] != nil }
        #expect(values.count == 4)
        #expect(values.allSatisfy { $0["spo2"] as? Double == 97 && $0["bpm"] as? Double == 70 })
        #expect(output.stderr.contains("its reading is stored"))
        let measured = try home.callback(request(.sync, .po3))
        guard case .list(let records)? = measured.result else {
            Issue.record("no result: \(measured.reason?.rawValue ?? "")")
            return
        }
        #expect(records.count == 6, "the 5 synced and the live one")
    }

    @Test("device live prints a blood pressure monitor's Intermediate Cuff Pressure")
    func liveCuff() throws {
        let home = try TestHome.with(.bp5)
        let output = try home.device(["live"], .bp5)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(try liveLines(output.stdout).compactMap { $0["cuffPressure"] as? Double } == [40, 120, 180, 140])
    }

    @Test("device live records a heart-rate sensor's beats and RR intervals for --seconds")
    func liveHeartRate() throws {
        let home = try TestHome.with(.heartRateSensor)
        let output = try home.device(["live", "--seconds", "20"], .heartRateSensor)
        #expect(output.status == 0, "\(output.stderr)")
        let lines = try liveLines(output.stdout)
        #expect(lines.count >= 10)
        #expect(lines.allSatisfy { ($0["bpm"] as? Double ?? 0) > 30 && !(($0["rr"] as? [Double]) ?? []).isEmpty })
        let rr = lines.flatMap { $0["rr"] as? [Double] ?? [] }.reduce(0, +)
        #expect(rr >= 20_000 && rr < 23_000, "\(rr) ms of beats for 20 s")
    }

    @Test("device live stops cleanly at Ctrl-C (SIGINT): exit 0, every line whole")
    func liveInterrupted() throws {
        let home = try TestHome.with(.heartRateSensor)
        let program = try SpawnedProgram(
            vitalbridgePath.path, ["device", "live", "--home", home.path, "--mac", macOf(.heartRateSensor)])
        sleep(3)
        kill(program.pid, SIGINT)
        let output = program.wait()
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.hasSuffix("stopped\n"), "\(output.stderr)")
        let lines = try liveLines(output.stdout)
        #expect(lines.count > 10 && lines.allSatisfy { $0["rr"] != nil })
    }

    @Test("device live refuses a device without live samples, and --seconds out of range")
    func liveRefusals() throws {
        let home = try TestHome.with(.bg5)
        let glucose = try home.device(["live"], .bg5)
        #expect(glucose.status == 1 && glucose.stderr.contains("sends no live samples"), "\(glucose.stderr)")
        for seconds in ["0", "3601", "ten"] {
            let bad = try home.device(["live", "--seconds", seconds], .bg5)
            #expect(bad.status == 2 && bad.stderr.contains("--seconds"), "\(seconds): \(bad.stderr)")
        }
    }
}
