import Foundation
import ShareVitalSigns
import TestRequirements
import Testing
import VitalCore
import VitalSimulation
import VitalStore
import VitalTestSupport

/// A hub home and a private runtime folder for the shared board: VitalBridge as requester and as provider, in
/// separate processes, as two apps would be.
struct SVSWorld {
    let home: TestHome
    let runtime: String
    static let requester = "org.vitalbridge.demo"

    /// A home whose blood pressure monitor, pulse oximeter and thermometer are added (`devices`), of `fleet` when
    /// given (else the built-in one).
    init(devices: [DeviceModel] = [.bp5, .po3, .thv3], fleet: Fleet? = nil) throws {
        home = try TestHome(fleet: fleet)
        for model in devices { try home.add(model) }
        runtime = home.path + "/run"
        try FileManager.default.createDirectory(
            atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    var boardPath: String { runtime + "/vitalbridge/svsPasteboard" }
    var board: String { (try? String(contentsOfFile: boardPath, encoding: .utf8)) ?? "" }

    func svs(_ arguments: [String]) throws -> ProcessOutput {
        try vitalbridge(["svs"] + arguments + ["--home", home.path], environment: ["XDG_RUNTIME_DIR": runtime])
    }

    /// `svs request`; returns the provider URL.
    func request(_ sign: String, plain: Bool = false) throws -> String {
        let output = try svs(["request", "--sign", sign, "--requester", Self.requester] + (plain ? ["--plain"] : []))
        #expect(output.status == 0, "\(output.stderr)")
        return output.stdout.trimmingCharacters(in: .newlines)
    }

    /// `svs open` with the URL on standard input, as the article advises for sealed requests.
    func open(_ url: String, caller: String? = nil) throws -> ProcessOutput {
        let callerOption = caller.map { " --caller '\($0)'" } ?? ""
        return try runProgram(
            "/bin/sh",
            [
                "-c",
                "printf '%s\\n' '\(url)' | '\(vitalbridgePath.path)' svs open --home '\(home.path)'\(callerOption) -",
            ], environment: ["XDG_RUNTIME_DIR": runtime])
    }

    func retrieve(_ sign: String) throws -> ProcessOutput {
        try svs(["retrieve", "--sign", sign, "--requester", Self.requester])
    }
}

@Suite("vitalbridge svs: ShareVitalSigns as requester and provider")
struct SVSTests {
    @Test("BP: request 48, answered by the fleet's monitor, then BPSYS and BPDIA retrieved one by one")
    func bloodPressure() throws {
        let world = try SVSWorld()
        let url = try world.request("BP")
        #expect(url.hasPrefix("svs-bp://?requester=org.vitalbridge.demo&svskey="))
        let before = try world.retrieve("BPSYS")
        #expect(before.status == 4 && before.stdout == "in progress\n")
        let opened = try world.open(url)
        #expect(opened.status == 0 && opened.stdout == "org.vitalbridge.demo://\n", "\(opened.stderr)")
        let systolic = try world.retrieve("16")
        let diastolic = try world.retrieve("BPDIA")
        #expect(systolic.status == 0 && diastolic.status == 0)
        // the values are the stored reading's
        let stored = try world.home.store().readings.all().compactMap { stored -> BloodPressureReading? in
            if case .bloodPressure(let bp) = stored.reading { bp } else { nil }
        }
        let live = try #require(stored.max { $0.measuredAt < $1.measuredAt })
        #expect(systolic.stdout == "\(Int(live.systolic))\n" && diastolic.stdout == "\(Int(live.diastolic))\n")
        // the quality is what the monitor reported with it: 100 unless it flagged something
        let quality = try #require(Quality(of: .bloodPressure(live)))
        #expect(quality.value == (live.annotations.status.isEmpty && live.arrhythmia != true ? 100 : 90))
        #expect(systolic.stderr == "quality \(quality)\n" && diastolic.stderr == systolic.stderr)
        // BP itself answers its highest sign; a sign not asked for is invalid
        #expect(try world.retrieve("BP").stdout == diastolic.stdout)
        let temp = try world.retrieve("TEMP")
        #expect(temp.status == 1 && temp.stdout == "invalid\n")
    }

    @Test(
        "PO (5), TEMP (8) and HR (1) round trips through the real processes",
        arguments: [("PO", ["SPO2", "HR"]), ("TEMP", ["TEMP"]), ("HR", ["HR"])])
    func roundTrips(sign: String, retrieved: [String]) throws {
        let world = try SVSWorld()
        #expect(try world.open(try world.request(sign)).status == 0)
        for name in retrieved {
            let output = try world.retrieve(name)
            #expect(output.status == 0, "\(name): \(output.stdout) \(output.stderr)")
            let value = output.stdout.trimmingCharacters(in: .newlines)
            switch name {
            case "SPO2": #expect((80...100).contains(Int(value) ?? 0))
            case "HR": #expect((30...220).contains(Int(value) ?? 0))
            default: #expect(value.contains(".") && (34...43).contains(Double(value) ?? 0))
            }
        }
    }

    @Test(
        "the quality is what the device reported: a BP5's body movement and loose cuff, a PO3's questionable pulse and low PI"
    )
    func quality() throws {
        var fleet = Fleet.default
        for index in fleet.devices.indices {
            switch DeviceModel(modelString: fleet.devices[index].model) {
            case .bp5:
                var reading = SimulatedReading([
                    "systolic": .number(128), "diastolic": .number(84), "pulse": .number(70),
                ])
                reading.status = [.bodyMovement, .cuffTooLoose]
                fleet.devices[index].nextMeasurements = [reading]
            case .po3:
                var reading = SimulatedReading(["spo2": .number(96), "pulse": .number(66), "pi": .number(0.3)])
                reading.status = try #require(ReadingStatus(names: ["questionablePulse", "validatedData"]))
                fleet.devices[index].nextMeasurements = [reading]
            default:
                break
            }
        }
        let world = try SVSWorld(fleet: fleet)
        #expect(try world.open(try world.request("BP")).status == 0)
        for sign in ["BPSYS", "BPDIA"] {
            let output = try world.retrieve(sign)
            // 100 − 30 (body movement) − 30 (cuff too loose)
            #expect(output.status == 0 && output.stderr == "quality 40\n", "\(sign): \(output.stderr)")
        }
        #expect(try world.retrieve("BPSYS").stdout == "128\n")
        #expect(try world.open(try world.request("PO")).status == 0)
        for sign in ["SPO2", "HR"] {
            let output = try world.retrieve(sign)
            // 100 − 30 (questionable pulse) − 30 (PI 0.3 %: low perfusion); validated data says nothing against it
            #expect(output.status == 0 && output.stderr == "quality 40\n", "\(sign): \(output.stderr)")
        }
        #expect(try world.retrieve("SPO2").stdout == "96\n")
        // the thermometer reports nothing against its value
        #expect(try world.open(try world.request("TEMP")).status == 0)
        #expect(try world.retrieve("TEMP").stderr == "quality 100\n")
    }

    @Test("sealed: the board shows the sign asked for and nothing of the answer; plain mode shows it, and says so")
    func sealedVersusPlain() throws {
        let world = try SVSWorld()
        _ = try world.open(try world.request("BP"))
        let value = try world.retrieve("BPSYS").stdout.trimmingCharacters(in: .newlines)
        let sealed = try #require(try JSONSerialization.jsonObject(with: Data(world.board.utf8)) as? [String: Any])
        #expect(Set(sealed.keys) == ["sign", "state", "request", "sealed"])
        #expect(!world.board.contains("\"4\"") && !world.board.contains(":\(value),"))
        let plainRequest = try world.svs(["request", "--sign", "BP", "--requester", SVSWorld.requester, "--plain"])
        #expect(plainRequest.stderr.contains("plain mode: any process of this user can read the answer"))
        #expect(try world.open(plainRequest.stdout.trimmingCharacters(in: .newlines)).status == 0)
        let stored: [Reading] = try world.home.store().readings.all().map(\.reading)
        let latest = try #require(stored.filter { $0.kind == .bloodPressure }.max { $0.measuredAt < $1.measuredAt })
        let quality = try #require(Quality(of: latest))
        #expect(world.board.contains("\"success\":1") && world.board.contains("\"4-qual\":\(quality),"))
        #expect(try world.retrieve("BPSYS").status == 0)
        // the shared folder and board are private
        var status = stat()
        #expect(lstat(world.runtime + "/vitalbridge", &status) == 0 && status.st_mode & 0o777 == 0o700)
        #expect(lstat(world.boardPath, &status) == 0 && status.st_mode & 0o777 == 0o600)
    }

    @Test("a tampered, replayed or wrongly keyed answer is invalid, never a value")
    func forged() throws {
        let world = try SVSWorld()
        _ = try world.open(try world.request("BP"))
        let answered = world.board
        #expect(try world.retrieve("BPSYS").status == 0)
        // one character of the sealed answer changed
        var board = try #require(try JSONSerialization.jsonObject(with: Data(answered.utf8)) as? [String: Any])
        var sealed = Array((board["sealed"] as! String).utf8)
        sealed[20] = sealed[20] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        board["sealed"] = String(decoding: sealed, as: UTF8.self)
        try JSONSerialization.data(withJSONObject: board).write(to: URL(fileURLWithPath: world.boardPath))
        let tampered = try world.retrieve("BPSYS")
        #expect(tampered.status == 1 && tampered.stdout == "invalid\n")
        // replayed: the earlier answer put back after a new request
        _ = try world.request("BP")
        try Data(answered.utf8).write(to: URL(fileURLWithPath: world.boardPath))
        #expect(try world.retrieve("BPSYS").stdout == "invalid\n")
        // the earlier answer under the new request's identifier: it does not open with the new key
        _ = try world.request("BP")
        let fresh = try #require(try JSONSerialization.jsonObject(with: Data(world.board.utf8)) as? [String: Any])
        var replayed = try #require(try JSONSerialization.jsonObject(with: Data(answered.utf8)) as? [String: Any])
        replayed["request"] = fresh["request"]
        try JSONSerialization.data(withJSONObject: replayed).write(to: URL(fileURLWithPath: world.boardPath))
        #expect(try world.retrieve("BPSYS").stdout == "invalid\n")
        // a provider that writes a plain answer over a sealed request is not believed either
        var plain = fresh
        plain["success"] = 1
        plain["4"] = 120
        plain["4-qual"] = 100
        try JSONSerialization.data(withJSONObject: plain).write(to: URL(fileURLWithPath: world.boardPath))
        #expect(try world.retrieve("BPSYS").status == 1)
    }

    @Test("only whitelisted requesters are answered; unsupplied signs get a failure answer; bad requests are refused")
    func refusals() throws {
        let world = try SVSWorld()
        let url = try world.request("BP")
        let stranger = try world.open(
            url.replacingOccurrences(of: "requester=org.vitalbridge.demo", with: "requester=com.example.stranger"))
        #expect(stranger.status == 3 && stranger.stdout.isEmpty && stranger.stderr.contains("not a whitelisted caller"))
        #expect(try world.retrieve("BPSYS").status == 4)
        let mismatch = try world.open(url, caller: "org.example.other")
        #expect(mismatch.status == 3 && mismatch.stderr.contains("names the requester org.vitalbridge.demo"))
        let traversal = try world.svs(["retrieve", "--sign", "BP", "--requester", "../../etc"])
        #expect(traversal.status == 2 && traversal.stderr.contains("--requester must be a URL scheme"))
        // RR cannot be supplied: a failure answer, which the requester polls as invalid
        let rr = try world.open(try world.request("RR"))
        #expect(rr.status == 0 && rr.stderr.contains("cannot supply RR (2): a failure answer"))
        #expect(try world.retrieve("RR").stdout == "invalid\n")
        // POWITHFILES has no scheme of its own; a URL for another sign than the board's is refused
        let combined = try world.svs(["request", "--sign", "133", "--requester", SVSWorld.requester])
        #expect(combined.status == 1 && combined.stderr.contains("has no URL scheme of its own"))
        _ = try world.request("TEMP")
        let other = try world.open(
            "svs-bp://?requester=org.vitalbridge.demo&svskey=" + String(repeating: "A", count: 43))
        #expect(other.status == 1 && other.stderr.contains("the board asks for TEMP (8), the URL for BP (48)"))
        let keyless = try world.open("svs-temp://?requester=org.vitalbridge.demo")
        #expect(keyless.status == 1 && keyless.stderr.contains("a sealed request needs its svskey"))
        for bad in ["https://evil.example", "svs-bp://?requester=x&svskey=short", "svs-bp://?x=1"] {
            let output = try world.open(bad)
            #expect(output.status == 1 && output.stderr.hasPrefix("not a ShareVitalSigns request"), "\(bad)")
        }
        let badSign = try world.svs(["request", "--sign", "BPX", "--requester", SVSWorld.requester])
        #expect(badSign.status == 2 && badSign.stderr.contains("--sign must be a vital-sign name"))
        // a link where the board should be is refused, never followed
        unlink(world.boardPath)
        symlink(world.home.path + "/vitalbridge.sqlite", world.boardPath)
        let linked = try world.retrieve("BPSYS")
        #expect(linked.status == 1 && linked.stderr.contains("symbolic link"))
    }

    @Test(
        "killed as it writes the answer, the provider leaves the reading stored and the request open: asked again, it answers",
        .needs(.strace))
    func killedAtAnswer() throws {
        let world = try SVSWorld()
        let url = try world.request("BP")
        let request = world.board
        // SIGKILL at the rename that puts the answer in place, the process's second (the first saves the monitor's
        // state when its lease ends; strace's -P does not match a rename's target): the reading was stored before
        let command =
            "printf '%s\\n' '\(url)' | exec strace -f -o /dev/null -e trace=rename "
            + "-e inject=rename:signal=SIGKILL:when=2 '\(vitalbridgePath.path)' svs open --home '\(world.home.path)' -"
        let killed = try runProgram("/bin/sh", ["-c", command], environment: ["XDG_RUNTIME_DIR": world.runtime])
        #expect(killed.status != 0 && killed.stdout.isEmpty)
        #expect(world.board == request)
        #expect(try world.retrieve("BPSYS").status == 4)
        let stored = try world.home.store().readings.all()
        // the monitor's five records and the new reading
        #expect(stored.count == 6)
        // the requester's URL still works: the answer comes with a new reading, and the first one is not lost
        #expect(try world.open(url).status == 0)
        #expect(try world.retrieve("BPSYS").status == 0)
        #expect(try world.home.store().readings.all().count > stored.count)
    }
}
