import Foundation
import LayeredProtocol
import Testing
import VitalTestSupport

/// `vitalbridge simulate --bus` serving the fleet as org.bluez on a private bus, and the hub reaching it with
/// `--transport bluez`: two real processes, a real dbus-daemon, nothing in between.
final class SimulatedBus: @unchecked Sendable {
    let bus: PrivateBus
    let server: Process
    let home: TemporaryDirectory
    var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "VITALBRIDGE_HOME": home.path] }

    init(fleet: String? = nil) throws {
        bus = try PrivateBus()
        home = try TemporaryDirectory("vitalbridge-bluez-home")
        server = Process()
        server.executableURL = vitalbridgePath
        server.arguments =
            ["simulate", "--bus", bus.address, "--pace", "0.001"] + (fleet.map { ["--fleet", $0] } ?? [])
        let output = Pipe()
        server.standardOutput = output
        server.standardError = FileHandle.nullDevice
        try server.run()
        // it prints one line once it serves
        _ = output.fileHandleForReading.availableData
    }

    func open(_ url: String, _ options: String...) throws -> ProcessOutput {
        try vitalbridge(["open", "--transport", "bluez"] + options + [url], environment: environment)
    }

    func stop() {
        server.terminate()
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
        bus.stop()
        home.remove()
    }
}

@Suite("The hub over BlueZ on D-Bus (vitalbridge simulate --bus, open --transport bluez)", .serialized)
struct BlueZTransportTests {
    @Test("a heart-rate sensor is added by its service and measured through BlueZ, and stored")
    func heartRate() throws {
        let bench = try SimulatedBus()
        defer { bench.stop() }
        let added = try bench.open("ihealth-layer://?cmd=1&addtype=0&devicemodel=905&scheme=vitalbridge-demo")
        #expect(added.status == 0, "\(added.stderr)")
        let callback = try LayeredCallback(parsing: added.stdout.trimmingCharacters(in: .newlines))
        #expect(callback.status == .success && callback.mac?.description == "004D3208D313")
        let measured = try bench.open("ihealth-layer://?cmd=0&devicemodel=905&mac=004D3208D313&scheme=vitalbridge-demo")
        #expect(measured.status == 0, "\(measured.stderr)")
        let answer = try LayeredCallback(parsing: measured.stdout.trimmingCharacters(in: .newlines))
        #expect(answer.status == .success, "\(answer.reason?.rawValue ?? "")")
        guard case .list(let objects)? = answer.result, let rate = objects.first?.number(.heartRate) else {
            Issue.record("no heart rate: \(measured.stdout)")
            return
        }
        #expect((40...120).contains(Int(rate.description) ?? 0))
        let records = try vitalbridge(["records"], environment: bench.environment)
        #expect(records.stdout.contains("004D3208D313"))
    }

    @Test("an iHealth model or a smartband through BlueZ fails with ERROR_UNSUPPORTED_TRANSPORT, touching nothing")
    func vendorModels() throws {
        let bench = try SimulatedBus()
        defer { bench.stop() }
        for url in [
            "ihealth-layer://?cmd=0&devicemodel=100&mac=004D3208D2F4&scheme=vitalbridge-demo",
            "ihealth-layer://?cmd=2&devicemodel=400&mac=004D3208D308&scheme=vitalbridge-demo",
            "ihealth-layer://?cmd=4&addtype=0&devicemodel=700&scheme=vitalbridge-demo",
        ] {
            let output = try bench.open(url)
            #expect(output.status == 0)
            let callback = try LayeredCallback(parsing: output.stdout.trimmingCharacters(in: .newlines))
            #expect(callback.status != .success && callback.reason == .unsupportedTransport, "\(url)")
        }
        // the glucose meter's memory is untouched: the simulator still holds its records
        let scan = try vitalbridge(["scan", "--transport", "bluez", "--seconds", "1"], environment: bench.environment)
        #expect(scan.status == 0, "\(scan.stderr)")
        #expect(scan.stdout.contains("004D3208D313") && scan.stdout.contains("Heart Rate (0x180D)"))
        #expect(scan.stdout.contains("Blood Pressure (0x1810)"))
    }

    @Test("without a bus, or with a bad adapter, the answer says why")
    func noBus() throws {
        let home = try TemporaryDirectory("vitalbridge-bluez-home")
        defer { home.remove() }
        let output = try vitalbridge(
            [
                "open", "--transport", "bluez",
                "ihealth-layer://?cmd=0&devicemodel=905&mac=004D3208D313&scheme=vitalbridge-demo",
            ],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bus", "VITALBRIDGE_HOME": home.path])
        #expect(output.status == 0)
        let callback = try LayeredCallback(parsing: output.stdout.trimmingCharacters(in: .newlines))
        #expect(callback.reason == .deviceConnectionFailed)
        let bad = try vitalbridge(["scan", "--adapter", "eth0"], environment: ["VITALBRIDGE_HOME": home.path])
        #expect(bad.status == 2 && bad.stderr.contains("--adapter must be an adapter name such as hci0"))
    }
}
