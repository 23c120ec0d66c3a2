import Foundation
import LayeredProtocol
import TestRequirements
import Testing
import VitalCore
import VitalDevices
import VitalSimulation
import VitalStore
import VitalTestSupport
import WelltoryDDS

/// `vitalbridge simulate --bus` serving the fleet as org.bluez on a private bus, and the hub reaching it with
/// `--transport bluez`: two real processes, a real dbus-daemon, nothing in between.
final class SimulatedBus: @unchecked Sendable {
    let bus: PrivateBus
    private(set) var server: Process
    let home: TemporaryDirectory
    private let arguments: [String]
    /// The bus and the home; an add scans 0.3 s, not 5: the simulated BlueZ reports every device the moment a scan
    /// starts and again every 100 ms, so a longer window would only wait.
    var environment: [String: String] {
        ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "VITALBRIDGE_HOME": home.path, "VITALBRIDGE_SCAN_SECONDS": "0.3"]
    }

    /// Serves the built-in fleet, or `fleet`, with the world's time running `1 / pace` times as fast as the
    /// real one.
    init(fleet: Fleet? = nil, pace: Double = 0.001) throws {
        bus = try PrivateBus()
        home = try TemporaryDirectory("vitalbridge-bluez-home")
        var arguments = ["simulate", "--bus", bus.address, "--pace", String(pace)]
        if let fleet {
            let file = home.path + "/served-fleet.json"
            try Data(fleet.json).write(to: URL(fileURLWithPath: file))
            arguments += ["--fleet", file]
        }
        self.arguments = arguments
        server = try Self.serve(arguments)
    }

    /// Starts `vitalbridge simulate` with `arguments`; returns once it serves.
    private static func serve(_ arguments: [String]) throws -> Process {
        let server = Process()
        server.executableURL = vitalbridgePath
        server.arguments = arguments
        let output = Pipe()
        server.standardOutput = output
        server.standardError = FileHandle.nullDevice
        try server.run()
        // it prints one line once it serves
        _ = output.fileHandleForReading.availableData
        return server
    }

    /// Kills the simulated BlueZ and starts it again on the same bus, with the fleet as it began: what a restart
    /// of bluetoothd looks like to its clients (org.bluez lost, then owned again).
    func restart() throws {
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
        server = try Self.serve(arguments)
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

@Suite(
    "The hub over BlueZ on D-Bus (vitalbridge simulate --bus, open --transport bluez)", .serialized,
    .needs(Requirement.bus))
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

    @Test("a band's clock on a BlueZ home is never the simulator's: band info is refused, nothing stored or set")
    func bandClock() throws {
        let bench = try SimulatedBus()
        defer { bench.stop() }
        let added = try bench.open(
            "ihealth-layer://?cmd=1&addtype=1&devicemodel=700&scheme=vitalbridge-demo", "--scan-qr", "004D3208D310")
        #expect(added.stdout.contains("reason=ERROR_UNSUPPORTED_TRANSPORT"), "\(added.stdout)")
        for arguments in [["info"], ["today"], ["options", "--units", "imperial"]] {
            let output = try vitalbridge(
                ["band"] + arguments + ["--transport", "bluez", "--mac", "004D3208D310"], environment: bench.environment
            )
            #expect(output.status == 1 && output.stdout.isEmpty && !output.stderr.contains("clock"), "\(output.stderr)")
        }
        let records = try vitalbridge(["records", "--format", "json"], environment: bench.environment)
        #expect(records.status == 0 && records.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
    }

    @Test("an iHealth model or a smartband through BlueZ fails with ERROR_UNSUPPORTED_TRANSPORT, touching nothing")
    func vendorModels() throws {
        let bench = try SimulatedBus()
        defer { bench.stop() }
        for (url, mac) in [
            ("ihealth-layer://?cmd=0&devicemodel=100&mac=004D3208D2F4&scheme=vitalbridge-demo", "004D3208D2F4"),
            ("ihealth-layer://?cmd=2&devicemodel=400&mac=004D3208D308&scheme=vitalbridge-demo", "004D3208D308"),
            ("ihealth-layer://?cmd=4&addtype=0&devicemodel=700&scheme=vitalbridge-demo", nil),
        ] {
            let output = try bench.open(url)
            #expect(output.status == 0)
            let callback = try LayeredCallback(parsing: output.stdout.trimmingCharacters(in: .newlines))
            #expect(callback.status != .success && callback.reason == .unsupportedTransport, "\(url)")
            // the device the request named, as URLScheme.md shows; an add names none
            #expect(callback.mac?.description == mac, "\(url)")
        }
        // URLScheme.md's example, to the byte
        let example = try bench.open("ihealth-layer://?cmd=0&devicemodel=100&mac=004D3208D2F4&scheme=vitalbridge-demo")
        #expect(
            example.stdout.trimmingCharacters(in: .newlines)
                == "vitalbridge-demo://?cmd=0&devicemodel=100&scheme=vitalbridge-demo&status=1&mac=004D3208D2F4"
                + "&reason=ERROR_UNSUPPORTED_TRANSPORT")
        // the glucose meter's memory is untouched: the simulator still holds its records
        let scan = try vitalbridge(["scan", "--transport", "bluez", "--seconds", "1"], environment: bench.environment)
        #expect(scan.status == 0, "\(scan.stderr)")
        #expect(scan.stdout.contains("004D3208D313") && scan.stdout.contains("Heart Rate (0x180D)"))
        #expect(scan.stdout.contains("Blood Pressure (0x1810)"))
    }

    @Test("a device without the Battery Service and a serial number is added through BlueZ; device info says so")
    func partialInfo() throws {
        let bench = try SimulatedBus(fleet: fleet(.bloodPressureMonitor) { $0.omit(["serial", "battery"]) })
        defer { bench.stop() }
        let mac = macOf(.bloodPressureMonitor)
        #expect(try Self.callback(bench, request(.add, .bloodPressureMonitor, mac: mac)).status == .success(.add))
        let info = try vitalbridge(
            ["device", "info", "--transport", "bluez", "--mac", mac], environment: bench.environment)
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout == "BPS (devicemodel 900), serial not reported, firmware 1.0.0, battery not reported\n")
    }

    /// The callback `open --transport bluez` printed for `url`, parsed.
    static func callback(_ bench: SimulatedBus, _ url: String) throws -> LayeredCallback {
        let output = try bench.open(url)
        #expect(output.status == 0, "\(url): \(output.stderr)")
        return try LayeredCallback(parsing: output.stdout.trimmingCharacters(in: .newlines))
    }

    @Test("two hubs syncing one device over BlueZ at once: each reading is stored once and delivered once")
    func concurrentSyncs() throws {
        let bench = try SimulatedBus()
        defer { bench.stop() }
        _ = try vitalbridge(["init", "--home", bench.home.path])
        let hubs = (0..<2).map { _ in
            let hub = Process()
            hub.executableURL = vitalbridgePath
            hub.arguments = ["open", "--transport", "bluez", request(.sync, .bloodPressureMonitor)]
            hub.environment = ProcessInfo.processInfo.environment.merging(bench.environment) { $1 }
            hub.standardOutput = Pipe()
            hub.standardError = FileHandle.nullDevice
            return hub
        }
        for hub in hubs { try hub.run() }
        var delivered: [ResultObject] = []
        for hub in hubs {
            let pipe = hub.standardOutput as! Pipe
            let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            hub.waitUntilExit()
            let callback = try LayeredCallback(parsing: text.trimmingCharacters(in: .newlines))
            // the second waits for the first one's lease, then finds nothing new
            #expect(callback.status == .success(.sync), "\(callback.reason?.rawValue ?? "")")
            if case .list(let objects)? = callback.result { delivered += objects }
        }
        let store = try VitalStore(path: bench.home.path + "/vitalbridge.sqlite")
        let stored = try store.readings.all(device: MACAddress(macOf(.bloodPressureMonitor))!)
        // the five stored, and the simulated user's reading of each session if it came while the hub listened
        #expect((5...7).contains(stored.count))
        // a reading is its time and its values: the bus's device clock runs ahead of the hub's real one by every
        // simulated measurement (virtual time), so the second session's new reading, corrected by the offset that
        // session read, may fall in the same second as the first session's
        #expect(Set(delivered).count == delivered.count)
        #expect(
            delivered.compactMap { $0.string(.measuredAt) }.sorted()
                == stored.map(\.reading.measuredAt.description).sorted())
    }

    @Test("over BlueZ: a drop mid-sync, a drop instead of the measurement, a device out of range")
    func failures() throws {
        // a meter's transfer that drops deletes nothing; a push device that hangs up has ended its session
        for (model, reason, count) in [
            (DeviceModel.glucoseMeter, LayeredReason.deviceDisconnected, 0), (.pulseOximeter, .deviceDisconnected, 0),
            (.bloodPressureMonitor, nil, 2), (.weightScale, nil, 2), (.healthThermometer, nil, 2),
        ] {
            let bench = try SimulatedBus(fleet: fleet(model) { $0.failures = FailureScript(disconnectAfter: 2) })
            defer { bench.stop() }
            let callback = try Self.callback(bench, request(.sync, model))
            #expect(callback.reason == reason, "\(model)")
            if case .list(let objects)? = callback.result { #expect(objects.count == count, "\(model)") }
            #expect((callback.result == nil) == (count == 0), "\(model)")
        }
        for model in DeviceModel.allCases where model.isStandardProfile && model != .heartRateSensor {
            let bench = try SimulatedBus(fleet: fleet(model) { $0.failures = FailureScript(disconnectAfter: 1_000) })
            defer { bench.stop() }
            let callback = try Self.callback(bench, request(.measure, model))
            #expect(callback.status == ActionStatus(action: .measure, ran: [.fail]))
            #expect(callback.reason == .deviceDisconnected, "\(model)")
        }
        let bench = try SimulatedBus(fleet: fleet(.glucoseMeter) { $0.inRange = false })
        defer { bench.stop() }
        let callback = try Self.callback(bench, request(.measure, .glucoseMeter))
        #expect(callback.reason == .deviceNotFound || callback.reason == .deviceConnectionFailed)
    }

    @Test("over BlueZ: a body composition indicated before its weight, an oximeter measured only continuously")
    func profileOptions() throws {
        let scale = try SimulatedBus(fleet: fleet(.weightScale) { $0.bodyComposition = "beforeWeight" })
        defer { scale.stop() }
        let both = try Self.callback(scale, request(.syncMeasure, .weightScale))
        guard case .combined(let measure, let sync)? = both.result else {
            Issue.record("no combined result: \(both.reason?.rawValue ?? "")")
            return
        }
        #expect(measure.count == 1 && (5...6).contains(sync.count))
        // the live measurement's values follow the world's time, which runs in real time here; the stored five do not
        #expect(measure.allSatisfy { $0.number(.bodyFat) != nil })
        #expect(sync.prefix(5).map { $0.number(.bodyFat)?.description } == ["28.6", "28.4", "28.3", "28.3", "28.6"])

        let oximeter = try SimulatedBus(
            fleet: fleet(.pulseOximeter) {
                $0.spotCheck = false
                $0.records = nil
            })
        defer { oximeter.stop() }
        let measured = try Self.callback(oximeter, request(.measure, .pulseOximeter))
        guard case .list(let objects)? = measured.result else {
            Issue.record("no result: \(measured.reason?.rawValue ?? "")")
            return
        }
        #expect(objects.map { $0.number(.oxygenSaturation)?.description } == ["99"])
        #expect(try Self.callback(oximeter, request(.sync, .pulseOximeter)).reason == .deviceUnsupported)
    }

    @Test("bluetoothd going away mid-measurement ends it at once, and what arrived is kept")
    func serviceGone() throws {
        // the world's time at a tenth of the real one: the user's measurement would take 7 s
        let bench = try SimulatedBus(pace: 0.1)
        defer { bench.stop() }
        let hub = Process()
        hub.executableURL = vitalbridgePath
        hub.arguments = ["open", "--transport", "bluez", request(.measure, .bloodPressureMonitor)]
        hub.environment = ProcessInfo.processInfo.environment.merging(bench.environment) { $1 }
        let output = Pipe()
        hub.standardOutput = output
        hub.standardError = FileHandle.nullDevice
        try hub.run()
        Thread.sleep(forTimeInterval: 2)
        kill(bench.server.processIdentifier, SIGKILL)
        let started = Date()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        hub.waitUntilExit()
        #expect(Date().timeIntervalSince(started) < 5)
        let callback = try LayeredCallback(parsing: text.trimmingCharacters(in: .newlines))
        #expect(callback.reason == .deviceDisconnected, "\(text)")
        // the five stored readings the monitor sent before the user measured are in the store
        let records = try vitalbridge(["records"], environment: bench.environment)
        #expect(records.stdout.split(separator: "\n").filter { $0.contains(macOf(.bloodPressureMonitor)) }.count == 5)
    }

    @Test(
        "a SIGKILL at a commit during a sync over BlueZ loses at most the one reading BlueZ confirmed in flight",
        .needs(.strace))
    func killWindow() throws {
        // 20 readings, one indication per 30 ms connection interval in real time, as a monitor's radio sends them
        var monitor = FleetDevice(
            model: "BPS", mac: macOf(.bloodPressureMonitor),
            records: RecordsScript(
                generate: GeneratedRecords(count: 20, from: "2026-11-19 07:00:00", to: "2026-11-19 21:00:00")))
        monitor.radio = RadioTiming(connectionIntervalMilliseconds: 30, notificationsPerEvent: 1)
        let bench = try SimulatedBus(fleet: Fleet(devices: [monitor]), pace: 1)
        defer { bench.stop() }
        _ = try vitalbridge(["init", "--home", bench.home.path])
        let sync = request(.sync, .bloodPressureMonitor)
        // the hub dies at its 60th write to the store's log: a few readings into the sync
        let killed = try runProgram(
            "/usr/bin/strace",
            [
                "-f", "-qq", "-o", "/dev/null", "-P", bench.home.path + "/vitalbridge.sqlite-wal", "-e",
                "trace=pwrite64", "-e", "inject=pwrite64:signal=SIGKILL:when=60", vitalbridgePath.path, "open",
                "--transport", "bluez", sync,
            ], environment: bench.environment)
        #expect(killed.stdout.isEmpty, "the hub was not killed: \(killed.stdout)")
        let store = try VitalStore(path: bench.home.path + "/vitalbridge.sqlite")
        let mac = MACAddress(macOf(.bloodPressureMonitor))!
        let before = try store.readings.all(device: mac).count
        #expect(before > 0 && before < 20, "\(before)")
        #expect(try store.integrityCheck() == "ok")
        // the next sync takes what the monitor still holds: together, every reading but at most the one in flight
        let callback = try Self.callback(bench, sync)
        #expect(callback.status == .success(.sync))
        let after = try store.readings.all(device: mac).count
        #expect((19...20).contains(after), "\(before) before the kill, \(after) after the next sync")
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

@Suite(
    "ShareVitalSigns and DDS on a BlueZ home: real devices only, never the simulator", .serialized,
    .needs(Requirement.bus))
struct BlueZProviderTests {
    static let dds = "https://www.demoapp.com/dds/"
    static let link =
        "vitalbridge://dds/measurement?source=DemoApp&callback=https%3A%2F%2Fwww.demoapp.com%2Fdds%2F&duration=120"

    /// `svs request` then `svs open` for `sign` in `environment`, with a private runtime folder under `home`;
    /// returns what `svs open` and then `svs retrieve --sign retrieved` printed.
    static func svs(_ sign: String, retrieve retrieved: String, home: String, _ environment: [String: String]) throws
        -> (opened: ProcessOutput, retrieved: ProcessOutput)
    {
        let runtime = home + "/run"
        try FileManager.default.createDirectory(
            atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let environment = environment.merging(["XDG_RUNTIME_DIR": runtime]) { $1 }
        let request = try vitalbridge(
            ["svs", "request", "--sign", sign, "--requester", "org.vitalbridge.demo", "--plain"],
            environment: environment)
        #expect(request.status == 0, "\(request.stderr)")
        let opened = try vitalbridge(
            ["svs", "open", request.stdout.trimmingCharacters(in: .newlines)], environment: environment)
        let answer = try vitalbridge(
            ["svs", "retrieve", "--sign", retrieved, "--requester", "org.vitalbridge.demo"], environment: environment)
        return (opened, answer)
    }

    @Test("a BlueZ home whose bus is unreachable answers DDS and SVS with their failure and stores nothing")
    func unreachableBus() throws {
        let home = try TemporaryDirectory("vitalbridge-bluez-home")
        defer { home.remove() }
        var environment = ["VITALBRIDGE_HOME": home.path]
        // the home knows a heart-rate sensor and a monitor (added on the simulator), then reaches devices via BlueZ
        for (model, mac) in [(905, "004D3208D313"), (100, "004D3208D2F4")] {
            let added = try vitalbridge(
                [
                    "open", "--scan-qr", mac,
                    "ihealth-layer://?cmd=1&addtype=1&devicemodel=\(model)&scheme=vitalbridge-demo",
                ], environment: environment)
            #expect(added.status == 0 && added.stdout.contains("status=0"), "\(added.stdout)\(added.stderr)")
        }
        #expect(try vitalbridge(["init", "--adapter", "hci0"], environment: environment).status == 0)
        #expect(try vitalbridge(["dds", "sources", "add", "DemoApp", Self.dds], environment: environment).status == 0)
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=/nonexistent/bus"
        let store = try VitalStore(path: home.path + "/vitalbridge.sqlite")
        let before = try store.readings.all().count

        let dds = try vitalbridge(["open", Self.link], environment: environment)
        #expect(dds.status == 0 && dds.stdout == Self.dds + "?error=device_failed\n", "\(dds.stdout)\(dds.stderr)")
        #expect(dds.stderr.contains("004D3208D313") && !dds.stdout.contains("rmssd"))
        // the BP5 speaks a vendor protocol BlueZ does not: no device of the home can answer blood pressure
        let svs = try Self.svs("BP", retrieve: "BPSYS", home: home.path, environment)
        #expect(svs.opened.status == 0 && svs.opened.stderr.contains("no blood pressure monitor of the home"))
        #expect(svs.retrieved.status == 1 && svs.retrieved.stdout == "invalid\n")
        #expect(try store.readings.all().count == before)
    }

    @Test("on BlueZ with nobody to ask, popflag=1 connects nothing and the fleet's scripted user is not consulted")
    func nobodyToAsk() throws {
        let bench = try SimulatedBus()
        defer { bench.stop() }
        // the home's fleet file would accept the prompt: a BlueZ home never reads it
        let accepting = Fleet(user: UserScript(declineConnect: false), devices: Fleet.default.devices)
        try Data(accepting.json).write(to: URL(fileURLWithPath: bench.home.path + "/fleet.json"))
        let output = try bench.open(
            "ihealth-layer://?cmd=1&addtype=0&devicemodel=905&popflag=1&scheme=vitalbridge-demo")
        #expect(output.status == 0, "\(output.stderr)")
        let callback = try LayeredCallback(parsing: output.stdout.trimmingCharacters(in: .newlines))
        #expect(callback.status == .fail && callback.reason?.rawValue == "ERROR_NO_PROMPT:popflag")
        let devices = try vitalbridge(["devices"], environment: bench.environment)
        #expect(devices.stdout.hasPrefix("no devices yet"), "\(devices.stdout)")
    }

    @Test("on BlueZ, a 905 answers DDS with its RR intervals and a 900 answers SVS blood pressure")
    func realDevices() throws {
        let bench = try SimulatedBus()
        defer { bench.stop() }
        for model in [905, 900] {
            let added = try bench.open("ihealth-layer://?cmd=1&addtype=0&devicemodel=\(model)&scheme=vitalbridge-demo")
            #expect(added.status == 0 && added.stdout.contains("status=0"), "\(added.stdout)\(added.stderr)")
        }
        let environment = bench.environment
        #expect(try vitalbridge(["dds", "sources", "add", "DemoApp", Self.dds], environment: environment).status == 0)
        let dds = try bench.open(Self.link)
        #expect(dds.status == 0, "\(dds.stderr)")
        let result = try DDSResult(callback: dds.stdout.trimmingCharacters(in: .newlines))
        #expect(result.failure == nil)
        let store = try VitalStore(path: bench.home.path + "/vitalbridge.sqlite")
        guard case .heartRate(let reading)? = try store.readings.all(device: MACAddress("004D3208D313")!).last?.reading
        else {
            Issue.record("no RR series of the 905 stored")
            return
        }
        let figures = HRVFigures(rr: reading.rrIntervals)
        // each figure of the stored series, to a tenth, as the callback carries it
        func tenth(_ value: Double?) -> Double { ((value ?? -1) * 10).rounded() / 10 }
        #expect(result.rmssd == tenth(figures.rmssd))
        #expect(result.sdnn == tenth(figures.sdnn) && result.power == tenth(figures.power))

        #expect(try vitalbridge(["init", "--adapter", "hci0"], environment: environment).status == 0)
        let svs = try BlueZProviderTests.svs("BP", retrieve: "BPSYS", home: bench.home.path, environment)
        #expect(svs.opened.status == 0, "\(svs.opened.stderr)")
        #expect(svs.retrieved.status == 0, "\(svs.retrieved.stdout)\(svs.retrieved.stderr)")
        let monitor = try store.readings.all(device: MACAddress(macOf(.bloodPressureMonitor))!)
        guard case .bloodPressure(let bp)? = monitor.last?.reading else {
            Issue.record("no blood pressure of the 900 stored")
            return
        }
        #expect(svs.retrieved.stdout == "\(Int(bp.systolic.rounded()))\n")
    }
}

/// Every cmd of every generic SIG model over BlueZ: each case a bench of its own (a bus, a simulated BlueZ, a home),
/// so the cases need not wait for each other, nor for the serialized suite above.
@Suite("Every cmd over BlueZ (vitalbridge simulate --bus, open --transport bluez)", .needs(Requirement.bus))
struct BlueZEveryCommandTests {
    /// Every cmd each generic SIG model supports.
    static let standardMatrix: [(LayeredAction, DeviceModel)] = DeviceModel.allCases.filter(\.isStandardProfile)
        .flatMap { model in LayeredAction.allCases.filter(model.supports).map { ($0, model) } }

    @Test("every cmd of every generic SIG model succeeds over BlueZ, as in process", arguments: standardMatrix)
    func everyCommand(action: LayeredAction, model: DeviceModel) throws {
        let bench = try SimulatedBus()
        defer { bench.stop() }
        let callback = try BlueZTransportTests.callback(bench, request(action, model))
        #expect(callback.status == .success(action), "\(callback.reason?.rawValue ?? "")")
        #expect(callback.mac?.description == macOf(model))
        let pushes = DeviceCatalog.entry(for: model).family.traits.pushesStoredRecords
        switch (action.includes(.measure), action.includes(.sync), callback.result) {
        case (true, true, .combined(let measure, _)?): #expect(measure.count == 1)
        // the live reading first, then the stored ones the device sent before it
        case (true, false, .list(let objects)?): #expect(objects.count == (pushes ? 6 : 1))
        // the five stored records; over real time the simulated user may measure while a sync listens, and the
        // device then sends that reading too
        case (false, true, .list(let objects)?): #expect((5...6).contains(objects.count), "\(objects.count)")
        case (false, false, nil): break
        default: Issue.record("unexpected result shape for cmd \(action.rawValue)")
        }
        let records = try vitalbridge(["records"], environment: bench.environment)
        #expect(action == .add || records.stdout.contains(macOf(model)))
        if model == .weightScale, let result = callback.result {
            // the default scale has the Body Composition Service: every weight comes with its body fat
            let objects = result.objects
            #expect(!objects.isEmpty && objects.allSatisfy { $0.number(.bodyFat) != nil }, "\(objects)")
        }
        // a real device keeps its own memory: the hub saves no simulated state for it
        #expect(!FileManager.default.fileExists(atPath: bench.home.path + "/world/\(macOf(model)).json"))
    }
}
