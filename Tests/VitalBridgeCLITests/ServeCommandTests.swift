import Foundation
import LayeredProtocol
import TestRequirements
import Testing
import VitalCore
import VitalDevices
import VitalSimulation
import VitalStore
import VitalTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The built-in fleet, starting at `start`, with the BP5 in range one minute each morning from 07:00, and `pace`.
private func morningFleet(start: String, pace: Double? = nil) -> Fleet {
    var fleet = fleet(.bp5) { $0.presence = [PresenceScript(at: "07:00", seconds: 60)] }
    fleet.start = start
    fleet.pace = pace
    return fleet
}

/// `vitalbridge serve` started on `home`, its output read as it comes.
private final class Serving: @unchecked Sendable {
    let process = Process()
    let output = Pipe()
    /// Its standard error, when the test reads it (else discarded: unread, a pipe would fill and stop serve).
    let errors: Pipe?

    convenience init(_ home: TestHome, _ arguments: [String] = []) throws {
        try self.init(["--home", home.path] + arguments)
    }

    /// `serve` with `arguments`, this process's environment and `environment`; its standard error in ``errors``
    /// when `readingErrors`.
    init(_ arguments: [String], environment: [String: String] = [:], readingErrors: Bool = false) throws {
        errors = readingErrors ? Pipe() : nil
        process.executableURL = vitalbridgePath
        process.arguments = ["serve"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        process.standardError = errors ?? FileHandle.nullDevice
        try process.run()
    }

    /// Reads `pipe` until what it gave contains `text` or the pipe ends; returns what it read.
    static func read(_ pipe: Pipe, until text: String) -> String {
        var read = ""
        while !read.contains(text) {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            read += String(decoding: chunk, as: UTF8.self)
        }
        return read
    }

    /// Signals `signal`, then waits for the exit: its status, what it printed, and how long it took.
    func stop(with signal: Int32 = SIGTERM) -> (status: Int32, stdout: String, took: Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        kill(process.processIdentifier, signal)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text, clock.now - start)
    }
}

/// Whether a job holds the home's `jobs.lock` (a follower shared, a serve exclusively) within 10 s.
private func claimed(_ home: TestHome) throws -> Bool {
    for _ in 0..<1_000 {
        let descriptor = open(home.path + "/locks/jobs.lock", O_RDWR | O_CLOEXEC)
        if descriptor >= 0 {
            defer { close(descriptor) }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return true }
            flock(descriptor, LOCK_UN)
        }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return false
}

@Suite("vitalbridge serve and sync: the hub on its own, and a person's sync")
struct ServeCommandTests {
    @Test("serve syncs a scale the minute it comes into range; a caller then gets its readings once")
    func servesOnSchedule() throws {
        let home = try TestHome(fleet: morningFleet(start: "2026-11-20 07:00:10"))
        try home.add(.bp5)
        try home.add(.bg5)
        try Data(morningFleet(start: "2026-11-20 06:59:00").json).write(
            to: URL(fileURLWithPath: home.path + "/fleet.json"))
        let served = try home.run(["serve", "--home", home.path, "--seconds", "180"])
        #expect(served.status == 0, "\(served.stderr)")
        #expect(
            served.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("004D3208D") } == [
                "004D3208D308 (BG5): synced, 5 new records", "004D3208D2F4 (BP5): synced, 5 new records",
            ], "\(served.stdout)")
        #expect(served.stdout.hasSuffix("stopped\n"))
        try Data(morningFleet(start: "2026-11-20 07:00:30").json).write(
            to: URL(fileURLWithPath: home.path + "/fleet.json"))
        for expected in [5, 0] {
            let callback = try home.callback(request(.sync, .bp5))
            #expect(callback.status == .success && (callback.result?.objects.count ?? 0) == expected)
        }
    }

    @Test("on a fleet without a pace serve needs --seconds; its options are checked")
    func refusals() throws {
        let home = try TestHome(fleet: morningFleet(start: "2026-11-20 06:59:00"))
        _ = try home.run(["init", "--home", home.path])
        let unpaced = try home.run(["serve", "--home", home.path])
        #expect(unpaced.status == 1 && unpaced.stderr.contains("the fleet sets no pace"), "\(unpaced.stderr)")
        for (arguments, message) in [
            (["--seconds", "0"], "--seconds must be 1 to 31536000"), (["--period", "0"], "--period must be 1 to 1440"),
            (["--connections", "33"], "--connections must be 1 to 32"),
        ] {
            let output = try home.run(["serve", "--home", home.path] + arguments)
            #expect(output.status == 2 && output.stderr.contains(message), "\(output.stderr)")
        }
    }

    @Test("one serve per home, and no band or sink follow beside it; SIGTERM and SIGINT stop it with exit 0 at once")
    func oneOwner() throws {
        for signal in [SIGTERM, SIGINT] {
            let home = try TestHome(fleet: morningFleet(start: "2026-11-20 06:59:00", pace: 1))
            try home.add(.bg5)
            let serving = try Serving(home)
            // it has claimed the home once it synced the meter
            let first = String(decoding: serving.output.fileHandleForReading.availableData, as: UTF8.self)
            #expect(first.contains("004D3208D308 (BG5): synced, 5 new records"), "\(first)")
            let second = try home.run(["serve", "--home", home.path])
            #expect(second.status == 1, "\(second.stderr)")
            #expect(
                second.stderr.contains(
                    "another vitalbridge serve (pid \(serving.process.processIdentifier)) runs on this home"),
                "\(second.stderr)")
            let doctor = try DoctorTests.doctor(home.path).checks["serve"]
            #expect(doctor?.status == "ok", "\(String(describing: doctor))")
            #expect(doctor?.detail.hasPrefix("running (pid \(serving.process.processIdentifier))") == true)
            for follower in [["band", "follow", "--mac", macOf(.fitPro9614N)], ["sink", "follow"]] {
                let refused = try home.run(follower + ["--home", home.path])
                #expect(refused.status == 1, "\(follower): \(refused.stderr)")
                #expect(refused.stderr.contains("follows its bands and sinks itself: stop it"), "\(refused.stderr)")
            }
            let stopped = serving.stop(with: signal)
            #expect(stopped.status == 0 && stopped.stdout.hasSuffix("stopped\n"), "\(stopped.stdout)")
            #expect(stopped.took < .seconds(2))
            // the claim ends with the process
            let again = try home.run(["serve", "--home", home.path, "--seconds", "1"])
            #expect(again.status == 0, "\(again.stderr)")
        }
    }

    @Test("serve refuses to start beside a band follow")
    func refusesBesideFollower() throws {
        var bandFleet = fleet()
        bandFleet.pace = 1
        let home = try TestHome(fleet: bandFleet)
        try home.add(.fitPro9614N)
        let follower = Process()
        follower.executableURL = vitalbridgePath
        follower.arguments = ["band", "follow", "--home", home.path, "--mac", macOf(.fitPro9614N)]
        let output = Pipe()
        follower.standardOutput = output
        follower.standardError = FileHandle.nullDevice
        try follower.run()
        defer {
            kill(follower.processIdentifier, SIGTERM)
            follower.waitUntilExit()
        }
        #expect(try claimed(home), "band follow did not claim the home")
        let refused = try home.run(["serve", "--home", home.path])
        #expect(refused.status == 1 && refused.stderr.contains("a band follow or sink follow runs on this home"))
    }

    @Test("sync --mac stores what one device holds, --all every device; one that keeps no records is skipped")
    func sync() throws {
        let home = try TestHome()
        try home.add(.bg5)
        try home.add(.heartRateSensor)
        let one = try home.run(["sync", "--home", home.path, "--mac", macOf(.bg5)])
        #expect(one.status == 0 && one.stdout == "004D3208D308: synced, 5 new records\n", "\(one.stderr)")
        let all = try home.run(["sync", "--home", home.path, "--all"])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.stdout.contains("004D3208D308: synced, 0 new records\n"))
        #expect(all.stdout.contains("004D3208D313: skipped: "), "\(all.stdout)")
        #expect(try home.store().readings.all(device: MACAddress(macOf(.bg5))!).count == 5)
        let unknown = try home.run(["sync", "--home", home.path, "--mac", macOf(.bp5)])
        #expect(unknown.status == 1 && unknown.stderr.contains("004D3208D2F4 is not a device of this hub"))
        for arguments in [[], ["--all", "--mac", macOf(.bg5)]] {
            let usage = try home.run(["sync", "--home", home.path] + arguments)
            #expect(usage.status == 2 && usage.stderr.contains("give either --mac or --all"), "\(usage.stderr)")
        }
        let bad = try home.run(["sync", "--home", home.path, "--mac", "00:4D"])
        #expect(bad.status == 2 && bad.stderr.contains("--mac must be 12 hexadecimal digits"))
    }

    @Test(
        "serve on a BlueZ home whose bus is unreachable: the vendor devices are not served, nothing simulated is used")
    func bluezHomeUnreachable() throws {
        let home = try TemporaryDirectory("vitalbridge-bluez-home")
        defer { home.remove() }
        _ = try vitalbridge(["init", "--home", home.path])
        let store = try VitalStore(path: home.path + "/vitalbridge.sqlite")
        for model in [DeviceModel.bp5, .bloodPressureMonitor] {
            try store.saveDevice(
                StoredDevice(
                    mac: MACAddress(macOf(model))!, model: model, addedAt: Timestamp(parsing: "2026-11-20 08:00:00")!))
        }
        let served = try vitalbridge(
            ["serve", "--transport", "bluez", "--seconds", "2"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bus", "VITALBRIDGE_HOME": home.path])
        #expect(served.status == 0, "\(served.stderr)")
        #expect(
            served.stdout
                == "004D3208D2F4: not served: a BP5: this home's transport does not speak its protocol\nstopped\n",
            "\(served.stdout)")
        #expect(try store.readings.all().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path + "/world").isEmpty)
    }
}

@Suite("vitalbridge serve over BlueZ on D-Bus (vitalbridge simulate --bus)", .serialized, .needs(Requirement.bus))
struct ServeOverBlueZTests {
    @Test("serve hears a SIG monitor through BlueZ and syncs it; a caller then gets its readings once")
    func syncsOverBus() throws {
        let bench = try SimulatedBus()
        defer { bench.stop() }
        let added = try bench.open(request(.add, .bloodPressureMonitor))
        #expect(added.status == 0, "\(added.stderr)")
        let served = try vitalbridge(
            ["serve", "--transport", "bluez", "--seconds", "5"], environment: bench.environment)
        #expect(served.status == 0, "\(served.stderr)")
        #expect(served.stdout.hasPrefix("\(macOf(.bloodPressureMonitor)) (BPS): synced, "), "\(served.stdout)")
        // once: serve's own connection is not the monitor connecting by itself (which would be synced again at once)
        #expect(served.stdout.components(separatedBy: "synced").count == 2, "\(served.stdout)")
        let store = try VitalStore(path: bench.home.path + "/vitalbridge.sqlite")
        let mac = MACAddress(macOf(.bloodPressureMonitor))!
        #expect(try !store.readings.all(device: mac).isEmpty)
        // the caller gets what serve stored and what its own sync read (the monitor sends one on connecting), once
        let callback = try BlueZTransportTests.callback(bench, request(.sync, .bloodPressureMonitor))
        let stored = try store.readings.all(device: mac).count
        #expect(
            callback.status == .success && (callback.result?.objects.count ?? 0) == stored,
            "\(stored) stored: \(served.stdout)")
        let again = try BlueZTransportTests.callback(bench, request(.sync, .bloodPressureMonitor))
        #expect((again.result?.objects.count ?? 0) == (try store.readings.all(device: mac).count) - stored)
    }

    @Test(
        "a monitor that connects to the host by itself (Device1.Connected) is synced by serve though it never advertises"
    )
    func connectedByItself() throws {
        let (bench, store, mac) = try monitorOnBus(monitorConnecting)
        defer { bench.stop() }
        let scan = try vitalbridge(["scan", "--transport", "bluez", "--seconds", "1"], environment: bench.environment)
        // BlueZ knows it (paired) but does not hear it: no signal strength
        let row = scan.stdout.split(separator: "\n").first { $0.hasPrefix(mac.description) }
        #expect(row?.contains(" -127 ") == true, "\(scan.stdout)")
        let served = try vitalbridge(
            ["serve", "--transport", "bluez", "--seconds", "3"], environment: bench.environment)
        #expect(served.status == 0, "\(served.stderr)")
        // its records, and the measurement it connected to send
        #expect(served.stdout.hasPrefix("\(mac) (BPS): synced, 6 new records\n"), "\(served.stdout)")
        #expect(try store.readings.all(device: mac).count == 6)
    }
}

extension ServeOverBlueZTests {
    @Test(
        "a monitor whose window opens in the middle of a scan, advertising or connecting by itself, is synced at once, not after the scan",
        arguments: [false, true])
    func appearsDuringScan(connects: Bool) throws {
        // the world runs twenty times as fast: the monitor appears about 3 s after the simulator starts, inside
        // serve's first 30 s scan
        var later = fleet(.bloodPressureMonitor) { device in
            device.presence = [PresenceScript(at: "07:01", seconds: 600, connects: connects)]
        }
        later.start = "2026-11-20 07:00:00"
        let (bench, store, mac) = try monitorOnBus(later, pace: 0.05)
        defer { bench.stop() }
        var environment = bench.environment
        environment["VITALBRIDGE_SCAN_SECONDS"] = "30"
        let served = try vitalbridge(["serve", "--transport", "bluez", "--seconds", "8"], environment: environment)
        #expect(served.status == 0, "\(served.stderr)")
        // its records as it appeared, not when the scan ended (and the serve with it); the user's measurement may
        // come later than the sync waits
        #expect(served.stdout.hasPrefix("\(mac) (BPS): synced, "), "\(served.stdout) \(served.stderr)")
        #expect(try store.readings.all(device: mac).count >= 5)
    }

    @Test("serve survives BlueZ restarting: a monitor that connects once bluetoothd is back is synced")
    func survivesBlueZRestart() throws {
        let (bench, _, mac) = try monitorOnBus(monitorConnecting)
        defer { bench.stop() }
        let serving = try Serving(["--transport", "bluez", "--seconds", "10"], environment: bench.environment)
        let first = Serving.read(serving.output, until: "synced")
        // a round of serve sees the monitor disconnected after its sync: its next connection is one it notices
        Thread.sleep(forTimeInterval: 1.5)
        // the new bluetoothd connects the monitor again as its window is open: serve hears it and syncs it again
        try bench.restart()
        let output =
            first + String(decoding: serving.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        serving.process.waitUntilExit()
        #expect(serving.process.terminationStatus == 0)
        let synced = output.split(separator: "\n").filter { $0.hasPrefix("\(mac) (BPS): synced, ") }
        #expect(synced.count == 2, "\(output)")
    }

    @Test("SIGTERM stops serve at once while BlueZ still tries to connect a device that does not answer")
    func stopsWhileConnecting() throws {
        let silent = fleet(.bloodPressureMonitor) { $0.failures = FailureScript(connectUnanswered: true) }
        let (bench, _, mac) = try monitorOnBus(silent)
        defer { bench.stop() }
        var environment = bench.environment
        environment["VITALBRIDGE_LOG_LEVEL"] = "debug"
        // at most 30 s: what the test reads below ends then, whatever serve did
        let serving = try Serving(
            ["--transport", "bluez", "--seconds", "30"], environment: environment, readingErrors: true)
        // heard within a scan, then connecting: BlueZ answers that Connect only after 20 s
        let log = Serving.read(serving.errors!, until: "[BlueZ] connecting")
        #expect(log.contains("mac=\(mac) [BlueZ] connecting"), "\(log)")
        Thread.sleep(forTimeInterval: 0.5)
        let stopped = serving.stop()
        #expect(stopped.status == 0 && stopped.stdout.hasSuffix("stopped\n"), "\(stopped.stdout)")
        #expect(stopped.took < .seconds(2), "\(stopped.took)")
    }
}

/// The built-in fleet whose SIG monitor connects to the host by itself from its start, for 20,000 s of the world's
/// time: 20 s at the D-Bus simulator's default pace, a thousand times as fast as the real one.
private var monitorConnecting: Fleet {
    var connecting = fleet(.bloodPressureMonitor) { device in
        device.presence = [PresenceScript(at: "07:00", seconds: 20_000, connects: true)]
    }
    connecting.start = "2026-11-20 07:00:10"
    return connecting
}

/// The D-Bus simulator serving `fleet` (at `pace`), and a BlueZ home beside it with the SIG monitor added: the bench,
/// the home's store, and the monitor's address.
private func monitorOnBus(_ fleet: Fleet, pace: Double = 0.001) throws -> (SimulatedBus, VitalStore, MACAddress) {
    let bench = try SimulatedBus(fleet: fleet, pace: pace)
    _ = try vitalbridge(["init", "--home", bench.home.path])
    let mac = MACAddress(macOf(.bloodPressureMonitor))!
    let store = try VitalStore(path: bench.home.path + "/vitalbridge.sqlite")
    try store.saveDevice(
        StoredDevice(mac: mac, model: .bloodPressureMonitor, addedAt: Timestamp(parsing: "2026-11-20 06:00:00")!))
    return (bench, store, mac)
}

@Suite("Trust: serve killed at a write of the store")
struct ServeKillTests {
    /// A SIG monitor (pushing its 20 records as indications BlueZ confirms on arrival, one per 100 ms connection
    /// interval) and a SIG glucose meter (20 records read by its Record Access Control Point, deleted after the hub
    /// commits), in real time.
    static var sigDevices: Fleet {
        var devices: [FleetDevice] = []
        for model in [DeviceModel.bloodPressureMonitor, .glucoseMeter] {
            var device = FleetDevice(
                model: model.name, mac: macOf(model),
                records: RecordsScript(
                    generate: GeneratedRecords(count: 20, from: "2026-11-19 07:00:00", to: "2026-11-19 21:00:00")))
            // 100 ms, not the fastest 30: serve commits two devices' records at once, on a CI machine busy with
            // other tests, and the window holds one reading only while the hub commits faster than the device sends
            device.radio = RadioTiming(connectionIntervalMilliseconds: 100, notificationsPerEvent: 1)
            devices.append(device)
        }
        return Fleet(devices: devices)
    }

    @Test(
        "serve over BlueZ killed at a write of the store: the meter's records all stored once, the monitor's all but at most the one BlueZ confirmed in flight",
        .needs(.strace), .needs(Requirement.bus), arguments: [20, 60])
    func killedOverBlueZ(when: Int) async throws {
        let bench = try SimulatedBus(fleet: Self.sigDevices, pace: 1)
        defer { bench.stop() }
        _ = try vitalbridge(["init", "--home", bench.home.path])
        let store = try VitalStore(path: bench.home.path + "/vitalbridge.sqlite")
        let models = [DeviceModel.bloodPressureMonitor, .glucoseMeter]
        for model in models {
            try store.saveDevice(
                StoredDevice(
                    mac: MACAddress(macOf(model))!, model: model, addedAt: Timestamp(parsing: "2026-11-19 06:00:00")!))
        }
        let environment = bench.environment.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
        let command =
            "exec env \(environment) strace -f -qq -o /dev/null -P '\(bench.home.path)/vitalbridge.sqlite-wal' "
            + "-e trace=pwrite64 -e inject=pwrite64:signal=SIGKILL:when=\(when) "
            + "'\(vitalbridgePath.path)' serve --transport bluez --seconds 60 > /dev/null"
        // the waits for the processes block a thread: not one of the pool the other tests' tasks need
        let killed = try await blockingOffPool { try runProgram("/bin/sh", ["-c", command]) }
        #expect(killed.status != 0, "serve was not killed at write \(when)")
        #expect(try store.integrityCheck() == "ok")
        let before = try models.map { try store.readings.all(device: MACAddress(macOf($0))!).count }
        #expect(before.reduce(0, +) < 40, "\(before)")
        let recovered = try await blockingOffPool {
            try vitalbridge(["serve", "--transport", "bluez", "--seconds", "8"], environment: bench.environment)
        }
        #expect(recovered.status == 0, "\(recovered.stderr)")
        // what each device held, as the simulator generates it (a user's measurement may come on top)
        let world = try SimulatedWorld(fleet: Self.sigDevices, start: Timestamp(parsing: "2026-11-20 08:00:00")!)
        for model in models {
            let mac = MACAddress(macOf(model))!
            let stored = try store.readings.all(device: mac).map(\.reading)
            #expect(Set(stored.map { "\($0)" }).count == stored.count, "\(model): a reading stored twice")
            // as the device dated them: the store has them on the hub's clock
            let held = Set(await world.storedReadings(of: mac).map(\.measuredAt))
            let missing = held.subtracting(stored.map { $0.annotations.deviceTime ?? $0.measuredAt }).count
            #expect(
                missing <= (model == .glucoseMeter ? 0 : 1),
                "\(model): \(missing) of \(held.count) lost; \(before) stored before the kill")
        }
    }

    @Test(
        "serve killed by SIGKILL at a write of the store's log loses nothing and doubles nothing: the next serve stores the rest, and a caller gets every reading once",
        .needs(.strace), arguments: [1, 2, 3, 8, 40])
    func killedAtWrite(when: Int) throws {
        let home = try TestHome(fleet: DeliveryGuaranteeTests.twoDevices)
        try home.add(.bg5)
        try home.add(.bp5)
        let log = home.path + "/vitalbridge.sqlite-wal"
        let command =
            "exec strace -f -o /dev/null -P '\(log)' -e trace=pwrite64 "
            + "-e inject=pwrite64:signal=SIGKILL:when=\(when) "
            + "'\(vitalbridgePath.path)' serve --home '\(home.path)' --seconds 3600 > /dev/null"
        let killed = try runProgram("/bin/sh", ["-c", command])
        #expect(killed.status != 0, "serve was not killed at write \(when)")
        let store = try home.store()
        #expect(try store.integrityCheck() == "ok")
        let afterKill = try store.readings.all()
        #expect(Set(afterKill.map { "\($0.device) \($0.reading)" }).count == afterKill.count)
        #expect(afterKill.count < 2_100)
        let recovered = try home.run(["serve", "--home", home.path, "--seconds", "3600"])
        #expect(recovered.status == 0, "\(recovered.stderr)")
        let stored = try store.readings.all()
        #expect(stored.count == 2_100 && Set(stored.map { "\($0.device) \($0.reading)" }).count == 2_100)
        var delivered: [String] = []
        for model in [DeviceModel.bg5, .bp5] {
            for _ in 0..<100 {
                let output = try home.open(request(.sync, model))
                delivered += deliveredReadings(output.stdout)
                if !output.stdout.contains("remaining=") { break }
            }
        }
        #expect(delivered.count == 2_100 && Set(delivered).count == 2_100)
    }
}
