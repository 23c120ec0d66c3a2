import Foundation
import LayeredProtocol
import Testing
import VitalBridge
import VitalCore
import VitalDevices
import VitalSimulation
import VitalStore
import VitalTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A fresh home folder, with an optional fleet and extra whitelist entries; removed when the test is done with it.
final class TestHome: Sendable {
    let path: String

    init(fleet: Fleet? = nil, whitelist: [String: String] = [:]) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vitalbridge-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
        if let fleet { try Data(fleet.json).write(to: url.appendingPathComponent("fleet.json")) }
        for (caller, callback) in whitelist {
            let output = try vitalbridge("whitelist", "add", "--home", path, caller, callback)
            #expect(output.status == 0, "\(output.stderr)")
        }
    }

    /// Runs `vitalbridge open` on this home.
    func open(_ url: String, _ options: String...) throws -> ProcessOutput {
        try run(["open", "--home", path] + options + [url])
    }

    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessOutput {
        try vitalbridge(arguments, environment: environment)
    }

    /// The callback `open` printed, parsed; records an issue if there is none.
    func callback(_ url: String, _ options: String...) throws -> LayeredCallback {
        let output = try run(["open", "--home", path] + options + [url])
        #expect(output.status == 0, "\(url): \(output.stderr)")
        #expect(output.stdout.hasSuffix("\n") && output.stdout.filter { $0 == "\n" }.count == 1)
        return try LayeredCallback(parsing: String(output.stdout.dropLast()))
    }

    func store() throws -> VitalStore { try VitalStore(path: path + "/vitalbridge.sqlite") }

    /// Adds the built-in fleet's `model` to the home by QR code, as a caller would, so that providers may use it.
    func add(_ model: DeviceModel) throws {
        let added = try callback(
            request(.add, model).replacingOccurrences(of: "addtype=0", with: "addtype=1"), "--scan-qr", macOf(model))
        #expect(added.status == .success, "\(added.reason?.rawValue ?? "")")
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// The request for `action` on `model` with everything the protocol requires.
func request(_ action: LayeredAction, _ model: DeviceModel, mac: String? = nil, extra: String = "") -> String {
    var url = "ihealth-layer://?cmd=\(action.rawValue)&devicemodel=\(model.rawValue)"
    if action.requiresMAC { url += "&mac=\(mac ?? macOf(model))" } else { url += "&addtype=0" }
    if model.hasUserProfile { url += "&userid=1111&age=30&sex=1&height=180&weight=80&swim=1&unit=10" }
    if model.requiresStripCode, action.includes(.measure) { url += "&codetype=0&code=QR-1234" }
    return url + "&ver=100&scheme=vitalbridge-demo" + extra
}

/// The MAC of `model` in the built-in fleet.
func macOf(_ model: DeviceModel) -> String {
    Fleet.default.devices.first { DeviceModel(modelString: $0.model) == model }!.mac
}

/// The built-in fleet with a change to one model's device, or to the user.
func fleet(
    _ model: DeviceModel? = nil, user: UserScript = UserScript(), _ change: (inout FleetDevice) -> Void = { _ in }
)
    -> Fleet
{
    var fleet = Fleet.default
    fleet.user = user
    if let model, let index = fleet.devices.firstIndex(where: { DeviceModel(modelString: $0.model) == model }) {
        change(&fleet.devices[index])
    }
    return fleet
}

@Suite("vitalbridge open: the spec's examples")
struct SpecExampleTests {
    /// One caller with the spec's scheme: iOS requests find it by `scheme=callerapp`, Android ones by `appid=AppID`.
    static let whitelist = ["AppID": "callerapp://", "org.example.dynamic": "*"]

    @Test(
        "every example URL of the spec gets its callback",
        arguments: [
            ("ihealth-layer://?cmd=0&devicemodel=100&mac=004D3208D2F4&unit=2&ver=100&scheme=callerapp", "ios", 0),
            (
                "ihealth-layer://?appid=AppID&cmd=1&addtype=0&devicemodel=100&ver=100&popflag=0&scheme=callerapp",
                "android", 0
            ),
            ("ihealth-layer://?cmd=1&addtype=0&devicemodel=100&ver=100&popflag=0&scheme=callerapp", "ios", 0),
            (
                "ihealth-layer://?cmd=1&devicemodel=200&addtype=0&userid=1111&age=1&sex=0&height=11&weight=11&swim=0&unit=9&ver=100&scheme=callerapp",
                "ios", 0
            ),
            (
                "ihealth-layer://?appid=AppID&cmd=0&devicemodel=100&mac=004D3208D2F4&unit=0&ver=100&scheme=callerapp",
                "android", 1
            ),
            (
                "ihealth-layer://?appid=AppID&cmd=2&devicemodel=100&mac=004D3208D2F4&unit=2&ver=100&scheme=callerapp",
                "android", 0
            ),
            ("ihealth-layer://?cmd=1&devicemodel=100&mac=004D3208D2F4&unit=2&ver=100&scheme=callerapp", "ios", 1),
            (
                "ihealth-layer://?cmd=2&devicemodel=201&mac=004D3208D306&userid=1111&age=1&sex=0&height=11&weight=11&swim=1&unit=10&ver=100&scheme=callerapp",
                "ios", 0
            ),
            (
                "ihealth-layer://?appid=AppID&cmd=3&devicemodel=100&unit=2&addtype=0&ver=100&scheme=callerapp",
                "android", 3855
            ),
            ("ihealth-layer://?cmd=4&devicemodel=100&unit=2&addtype=0&ver=100&scheme=callerapp", "ios", 61455),
            ("ihealth-layer://?cmd=5&devicemodel=100&unit=2&addtype=0&ver=100&scheme=callerapp", "ios", 15),
            (
                "ihealth-layer://?appid=AppID&cmd=6&devicemodel=100&unit=2&mac=004D3208D2F4&ver=100&scheme=callerapp",
                "android", 255
            ),
        ])
    func example(url: String, platform: String, status: Int) throws {
        let home = try TestHome(whitelist: Self.whitelist)
        let callback = try home.callback(url, "--platform", platform)
        #expect(callback.destination == "callerapp://")
        #expect(callback.status.rawValue == status, "\(url) → \(callback.reason?.rawValue ?? "")")
    }

    @Test("the dynamic callback URL is honoured for a * caller")
    func dynamic() throws {
        let home = try TestHome(whitelist: Self.whitelist)
        let callback = try home.callback(
            "ihealth-layer://?cmd=0&devicemodel=100&mac=004D3208D2F4&unit=2&ver=100&callerurl=my-dynamic-url-0x7765://",
            "--caller", "org.example.dynamic")
        #expect(callback.destination == "my-dynamic-url-0x7765://" && callback.status == .success)
        guard case .list(let objects) = callback.result else {
            Issue.record("no result")
            return
        }
        // the live reading (the newest stored) first, then the BP5's records that were pending for the caller
        let stored = try home.store().readings.all(device: MACAddress("004D3208D2F4")!).map(\.reading)
        let systolic = stored.compactMap { if case .bloodPressure(let p) = $0 { String(Int(p.systolic)) } else { nil } }
        #expect(systolic.count == 6)
        #expect(objects.map { $0.number(.systolic)?.description } == [systolic.last] + systolic.dropLast())
    }
}

@Suite("vitalbridge open: every cmd × model of the capability matrix")
struct MatrixTests {
    static let supported: [(LayeredAction, DeviceModel)] = LayeredAction.allCases.flatMap { action in
        DeviceModel.allCases.filter { $0.supports(action) }.map { (action, $0) }
    }

    @Test("success", arguments: supported)
    func success(action: LayeredAction, model: DeviceModel) throws {
        let home = try TestHome()
        let callback = try home.callback(request(action, model))
        #expect(callback.status == .success(action), "\(callback.reason?.rawValue ?? "")")
        #expect(callback.mac?.description == macOf(model))
        switch (action.includes(.measure), action.includes(.sync), callback.result) {
        case (true, true, .combined(let measure, _)?): #expect(measure.count == 1)
        case (true, false, .list(let objects)?):
            // the live reading first, then every reading of the device still pending for the caller: on a new home,
            // the records a push device sent before its measurement
            let stored = try home.store().readings.all(device: MACAddress(macOf(model))!)
            #expect(objects.count == stored.count && objects.count >= 1)
        // five stored records, or a band's days: the week before the world starts, and today
        case (false, true, .list(let objects)?): #expect(objects.count == (model.isSmartband ? 8 : 5))
        case (false, false, nil): break
        default: Issue.record("unexpected result shape for cmd \(action.rawValue)")
        }
    }

    @Test("a device failure fails its stage and skips the rest", arguments: supported)
    func deviceFailure(action: LayeredAction, model: DeviceModel) throws {
        let failingStage: Stage = action.includes(.measure) ? .measure : action.includes(.sync) ? .sync : .add
        let standard = model.isStandardProfile
        // a generic push device ends its session by hanging up: a drop ends a sync with what arrived (its own test)
        if standard, failingStage == .sync, DeviceCatalog.entry(for: model).family.traits.pushesStoredRecords { return }
        let home = try TestHome(
            fleet: fleet(model) { device in
                switch failingStage {
                // a heart-rate sensor reports no device errors: its link drops
                case .measure where model == .heartRateSensor: device.failures = FailureScript(disconnectAfter: 5)
                // nor does a generic SIG device: its link drops instead of the user's measurement
                case .measure where standard: device.failures = FailureScript(disconnectAfter: 1_000)
                case .measure: device.failures = FailureScript(duringMeasurement: 3)
                // a smartband or a generic SIG device reports no device errors: its link drops
                case .sync where model.isSmartband || standard: device.failures = FailureScript(disconnectAfter: 1)
                case .sync: device.failures = FailureScript(duringSync: SyncFailure(afterRecords: 1, code: 4))
                case .add: device.failures = FailureScript(atConnect: true)
                }
            })
        let callback = try home.callback(request(action, model))
        let index = action.stages.firstIndex(of: failingStage)!
        let expected = ActionStatus(action: action, ran: Array(repeating: .success, count: index) + [.fail])!
        #expect(callback.status == expected, "cmd \(action.rawValue) \(model)")
        if model.isSmartband || standard, failingStage != .add {
            #expect(callback.reason == .deviceDisconnected, "cmd \(action.rawValue) \(model)")
        } else if failingStage != .add {
            #expect(callback.reason?.deviceError?.model == model, "\(callback.reason?.rawValue ?? "")")
        }
        #expect(callback.result == nil)
    }

    @Test("a user cancel at each stage", arguments: supported)
    func cancel(action: LayeredAction, model: DeviceModel) throws {
        for (index, stage) in action.stages.enumerated() {
            let home = try TestHome(fleet: fleet(user: UserScript(cancelAt: stage)))
            let callback = try home.callback(request(action, model))
            // a measurement is cancelled on the device, and a heart-rate sensor has no way to stop one: it runs out
            if model == .heartRateSensor, stage == .measure {
                #expect(callback.status == .success(action) && callback.reason == nil)
                continue
            }
            // nor can the hub tell that the user of a generic SIG device walked away: a push device hangs up
            // without a new reading, a meter or oximeter sends none within the wait
            if model.isStandardProfile, stage == .measure {
                let failed = ActionStatus(action: action, ran: Array(repeating: .success, count: index) + [.fail])!
                let pushes = DeviceCatalog.entry(for: model).family.traits.pushesStoredRecords
                #expect(callback.status == failed, "cmd \(action.rawValue) \(model)")
                #expect(callback.reason == (pushes ? .deviceDisconnected : .deviceTimeout), "\(model)")
                continue
            }
            let expected = ActionStatus(action: action, ran: Array(repeating: .success, count: index) + [.cancel])!
            #expect(callback.status == expected, "cmd \(action.rawValue) \(model) cancel at \(stage)")
            #expect(callback.reason == .cancel)
        }
    }

    @Test("unsupported combinations fail with ERROR_UNSUPPORTED_ACTION")
    func unsupported() throws {
        let home = try TestHome()
        for action in LayeredAction.allCases {
            for model in DeviceModel.allCases where !model.supports(action) {
                let callback = try home.callback(request(action, model))
                #expect(callback.status == ActionStatus(action: action, ran: [.fail]))
                #expect(callback.reason == .unsupportedAction)
            }
        }
    }
}

@Suite("vitalbridge open: callers, QR codes, delivery")
struct DeliveryTests {
    @Test("no callback for an unknown caller, a mismatched scheme or another scheme: exit 3, stdout empty")
    func noCallback() throws {
        let home = try TestHome()
        for (url, options) in [
            ("ihealth-layer://?cmd=0&devicemodel=100&mac=004D3208D2F4&scheme=strangerapp", [String]()),
            ("ihealth-layer://?cmd=0&devicemodel=100&mac=004D3208D2F4&appid=com.stranger", []),
            (
                "ihealth-layer://?cmd=0&devicemodel=100&mac=004D3208D2F4&scheme=otherapp",
                ["--caller", "org.vitalbridge.demo"]
            ),
            ("https://example.com/?cmd=0&devicemodel=100&mac=004D3208D2F4&scheme=vitalbridge-demo", []),
            ("ihealth-layer://?cmd=0&devicemodel=100&mac=004D3208D2F4", []),
        ] {
            let output = try home.run(["open", "--home", home.path] + options + [url])
            #expect(output.status == 3, "\(url)")
            #expect(output.stdout.isEmpty)
            #expect(output.stderr.hasPrefix("no callback: ") && output.stderr.filter { $0 == "\n" }.count == 1)
        }
        let usage = try home.run(["open", "--home", home.path])
        #expect(usage.status == 2)
        // options after the URL go through the full parser and mean the same
        let url = request(.measure, .thv3)
        let late = try home.run(["open", url, "--home", home.path, "--platform", "ios"])
        #expect(late.status == 0 && late.stdout.hasPrefix("vitalbridge-demo://?cmd=0&devicemodel=600"))
        // a repeated option is a usage error, on the fast path as in the full parser
        #expect(try home.run(["open", "--home", home.path, "--home", home.path, url]).status == 2)
        #expect(try home.run(["open", url, "--home", home.path, "--home", home.path]).status == 2)
        #expect(try home.run(["open", "--home", home.path, "--platform", "windows", url]).status == 2)
    }

    @Test("callerurl from a caller with a fixed callback is refused at the whitelisted URL")
    func callerURLNotAllowed() throws {
        let home = try TestHome()
        let callback = try home.callback(request(.measure, .bp5, extra: "&callerurl=evil://steal"))
        #expect(callback.destination == "vitalbridge-demo://")
        #expect(callback.reason?.rawValue == "ERROR_DYNAMIC_CALLBACK_NOT_ALLOWED" && callback.result == nil)
    }

    @Test("QR codes: the named device is added; a wrong model or MAC fails")
    func qrCodes() throws {
        let home = try TestHome()
        let url = "ihealth-layer://?cmd=1&addtype=1&devicemodel=100&scheme=vitalbridge-demo"
        #expect(try home.callback(url, "--scan-qr", "BP5:004d3208d2f4").mac?.description == "004D3208D2F4")
        #expect(try home.callback(url, "--scan-qr", "SN42:004D3208D2F4").status == .success)
        #expect(try home.callback(url, "--scan-qr", "PO3:004D3208D2F4").reason == .qrModelMismatch)
        #expect(try home.callback(url, "--scan-qr", "BP5:004D3208D2").reason == .qrInvalidMAC)
        #expect(try home.callback(url, "--scan-qr", "BP5:AABBCCDDEEFF").reason == .deviceNotFound)
        // no --scan-qr, no QR in the fleet and nobody to ask: refused by name, never a guess
        let unasked = try home.callback(url)
        #expect(unasked.status == .fail && unasked.reason?.rawValue == "ERROR_NO_PROMPT:addtype")
    }

    @Test("popflag=1 asks before connecting; a declined prompt is a cancel, and without popflag nobody is asked")
    func connectPrompt() throws {
        let home = try TestHome(fleet: fleet(user: UserScript(declineConnect: true)))
        let asked = try home.callback(request(.addMeasure, .po3, extra: "&popflag=1"))
        #expect(asked.status == .addCancelMeasureNP && asked.reason == .cancel)
        #expect(try home.callback(request(.addMeasure, .po3, extra: "&popflag=0")).status == .addSuccessMeasureSuccess)
    }

    @Test("past 20,000 characters the callback says how many remain, and the next syncs deliver them all once")
    func overflow() throws {
        let home = try TestHome(
            fleet: fleet(.bp5) { device in
                device.records = RecordsScript(
                    generate: GeneratedRecords(count: 400, from: "2026-01-01 00:00:00", to: "2026-11-01 00:00:00"))
            })
        var delivered: [ResultObject] = []
        var remaining: [Int] = []
        for _ in 0..<5 {
            let output = try home.open(request(.sync, .bp5))
            #expect(output.stdout.utf8.count <= 20_001)
            let callback = try LayeredCallback(parsing: String(output.stdout.dropLast()))
            guard case .list(let objects) = callback.result else {
                Issue.record("no result")
                return
            }
            delivered += objects
            remaining.append(callback.remaining ?? 0)
            if callback.remaining == nil { break }
        }
        #expect(remaining.first! > 0 && remaining.last == 0)
        #expect(remaining == remaining.sorted(by: >))
        #expect(delivered.count == 400)
        #expect(Set(delivered.map { $0.json }).count == 400)
        let times = delivered.compactMap(\.measuredAt)
        #expect(times == times.sorted())
        // a caller that lost a callback asks again from a time
        let again = try home.callback(request(.sync, .bp5, extra: "&since=2026-10-01%2000:00:00"))
        guard case .list(let recent) = again.result else {
            Issue.record("no result")
            return
        }
        #expect(
            recent.allSatisfy { $0.measuredAt! >= Timestamp(parsing: "2026-10-01 00:00:00")! }
        )
        // 400 records evenly from January to November: 41 from October on
        #expect(recent.count == 41)
        // every delivery is journaled
        let journal = try home.store().journal.deliveries()
        #expect(journal.count == remaining.count + 1)
        #expect(journal.map(\.readingIDs.count).reduce(0, +) >= 400)
    }

    @Test("a sync interrupted by a dropped link, then repeated, stores nothing twice")
    func resync() throws {
        let home = try TestHome(
            fleet: fleet(.hs4) { device in
                device.records = RecordsScript(
                    generate: GeneratedRecords(count: 8, from: "2026-11-01 00:00:00", to: "2026-11-10 00:00:00"))
                device.failures = FailureScript(disconnectAfter: 3)
            })
        let first = try home.callback(request(.sync, .hs4))
        #expect(first.status == .fail && first.reason?.rawValue == "ERROR_DEVICE_DISCONNECTED")
        #expect(try home.store().readings.all().count == 3)
        let second = try home.callback(request(.sync, .hs4))
        #expect(second.status == .success)
        guard case .list(let objects) = second.result else {
            Issue.record("no result")
            return
        }
        #expect(objects.count == 8)
        #expect(try home.store().readings.all().count == 8)
        // a glucose meter keeps a live reading in memory: the next sync reads it again, and it is stored once
        _ = try home.callback(request(.measure, .bg5))
        _ = try home.callback(request(.sync, .bg5))
        #expect(try home.store().readings.all(device: MACAddress(macOf(.bg5))!).count == 6)
    }

    @Test("two processes on one home at once both complete")
    func concurrent() async throws {
        let home = try TestHome()
        async let first = Task.detached { try home.open(request(.sync, .bp7)) }.value
        async let second = Task.detached { try home.open(request(.syncMeasure, .bp7)) }.value
        async let third = Task.detached { try home.open(request(.sync, .bg5)) }.value
        let outputs = try await [first, second, third]
        for output in outputs { #expect(output.status == 0, "\(output.stderr)") }
        #expect(try home.store().readings.all(device: MACAddress(macOf(.bp7))!).count == 6)
    }

    @Test("each open leaves its readings committed for the next process, and the store's WAL file stays bounded")
    func storeLeftOpen() throws {
        let home = try TestHome()
        let walPath = home.path + "/vitalbridge.sqlite-wal"
        var largest = 0
        var measuredTimes: [Timestamp?] = []
        for _ in 1...40 {
            let callback = try home.callback(request(.measure, .thv3))
            #expect(callback.status == .success)
            if case .list(let objects) = callback.result { measuredTimes.append(objects.first?.measuredAt) }
            let size = try FileManager.default.attributesOfItem(atPath: walPath)[.size] as? Int ?? 0
            largest = max(largest, size)
        }
        // each request writes about ten pages; the log is checkpointed past 100 (frames of 24 + 4096 bytes)
        #expect(largest > 0 && largest < 200 * 4120, "the WAL file reached \(largest) bytes")
        // all 40 requests are journaled, and every reading they delivered is stored (a repeated reading once)
        let store = try home.store()
        let deliveries = try store.journal.deliveries()
        // the first callback carries the live reading and the five records the thermometer sent before it, the
        // others the live one alone
        #expect(deliveries.count == 40 && deliveries.map(\.readingIDs.count) == [6] + Array(repeating: 1, count: 39))
        #expect(Set(deliveries.flatMap(\.readingIDs)).isSubset(of: try store.readings.all().map(\.id)))
        // each journal entry names the live reading its callback carried first
        let stored = try store.readings.all()
        let journaled = deliveries.map { delivery in
            Set(delivery.readingIDs.compactMap { id in stored.first { $0.id == id }?.reading.measuredAt })
        }
        #expect(measuredTimes.count == 40)
        #expect(zip(measuredTimes, journaled).allSatisfy { time, times in time.map(times.contains) == true })
    }

    @Test("a device another process holds answers ERROR_DEVICE_BUSY after the wait")
    func busy() throws {
        let home = try TestHome()
        _ = try home.callback(request(.measure, .bp5))  // creates the home and the lock file
        let lock = open(home.path + "/locks/\(macOf(.bp5)).lock", O_RDWR)
        #expect(lock >= 0)
        defer { close(lock) }
        #expect(flock(lock, LOCK_EX) == 0)
        let output = try home.run(
            ["open", "--home", home.path, request(.measure, .bp5)],
            environment: ["VITALBRIDGE_DEVICE_WAIT_SECONDS": "0.2"])
        #expect(output.status == 0)
        let callback = try LayeredCallback(parsing: String(output.stdout.dropLast()))
        #expect(callback.status == .fail && callback.reason == .deviceBusy)
        // another device is not held
        #expect(try home.callback(request(.measure, .thv3)).status == .success)
    }

    @Test("on a terminal, a sync draws a progress bar on stderr that ends its line; piped, it draws nothing")
    func progressBar() throws {
        let home = try TestHome()
        let command = "'\(vitalbridgePath.path)' open --home '\(home.path)' '\(request(.sync, .bg5))'"
        let terminal = try runProgram("/usr/bin/script", ["-qec", command, "/dev/null"])
        #expect(terminal.status == 0)
        #expect(terminal.stdout.contains("sync [") && terminal.stdout.contains("100% (5/5)\r\n"))
        #expect(terminal.stdout.contains("vitalbridge-demo://?cmd=2"))
        let piped = try home.open(request(.sync, .bg5))
        #expect(piped.stderr.isEmpty)
    }

    @Test(
        "without --home the home is $VITALBRIDGE_HOME, else $XDG_DATA_HOME/vitalbridge, else ~/.local/share/vitalbridge"
    )
    func defaultHome() throws {
        let scratch = try TestHome()
        let (explicit, xdg, user) = (scratch.path + "/explicit", scratch.path + "/xdg", scratch.path + "/user")
        func storeExists(in folder: String) -> Bool {
            FileManager.default.fileExists(atPath: folder + "/vitalbridge.sqlite")
        }
        func open(_ environment: [String: String]) throws {
            let output = try vitalbridge(["open", request(.measure, .bp5)], environment: environment)
            #expect(output.status == 0, "\(environment): \(output.stderr)")
        }
        // an empty variable counts as unset
        try open(["VITALBRIDGE_HOME": explicit, "XDG_DATA_HOME": xdg, "HOME": user])
        #expect(storeExists(in: explicit) && !storeExists(in: xdg + "/vitalbridge"))
        try open(["VITALBRIDGE_HOME": "", "XDG_DATA_HOME": xdg, "HOME": user])
        #expect(storeExists(in: xdg + "/vitalbridge") && !storeExists(in: user + "/.local/share/vitalbridge"))
        try open(["VITALBRIDGE_HOME": "", "XDG_DATA_HOME": "", "HOME": user])
        #expect(storeExists(in: user + "/.local/share/vitalbridge"))
        // each home got its own request
        for home in [explicit, xdg + "/vitalbridge", user + "/.local/share/vitalbridge"] {
            #expect(try VitalStore(path: home + "/vitalbridge.sqlite").journal.deliveries().count == 1)
        }
    }

    @Test(
        "--help on every command explains it with examples",
        arguments: [
            "demo", "open", "devices", "records", "whitelist list", "whitelist add", "whitelist remove", "fleet show",
            "request", "callback", "gatt decode", "device info", "device reset", "device live",
        ])
    func help(command: String) throws {
        let words = command.split(separator: " ").map(String.init)
        let output = try vitalbridge(words + ["--help"])
        #expect(output.status == 0)
        #expect(output.stdout.contains("USAGE: vitalbridge \(command)"))
        #expect(output.stdout.contains("Example"))
        #expect(
            output.stdout.contains("  vitalbridge \(command) ") || output.stdout.contains("  vitalbridge \(command)\n"))
    }

    @Test("the commands list devices, records, the whitelist and the fleet")
    func listings() throws {
        let home = try TestHome()
        _ = try home.callback(request(.addSync, .hs2))
        #expect(try home.run(["devices", "--home", home.path]).stdout.contains(macOf(.hs2)))
        // an added device is stored with its model, serial, firmware and, for an activity monitor, its profile
        let added = try home.callback(request(.add, .am4))
        #expect(added.echo.first { $0.key == "userid" }?.value == "1111")
        let device = try #require(try home.store().device(MACAddress(macOf(.am4))!))
        #expect(device.model == .am4 && device.serialNumber == "AM4-D306" && device.firmwareRevision == "1.0.0")
        #expect(
            device.profile?.userID == 1111 && device.profile?.swim == .on && device.profile?.distanceUnit == .kilometre)
        let csv = try home.run(["records", "--home", home.path, "--format", "csv", "--device", macOf(.hs2)]).stdout
        #expect(csv.split(separator: "\r\n").count == 6)
        let json = try home.run(["records", "--home", home.path, "--format", "json"]).stdout
        #expect((try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Any])?.count == 5)
        #expect(try home.run(["records", "--home", home.path, "--since", "bad"]).status == 2)
        #expect(try home.run(["whitelist", "list", "--home", home.path]).stdout.contains("org.vitalbridge.demo"))
        #expect(try home.run(["whitelist", "add", "--home", home.path, "com.x", "nota url"]).status == 1)
        // a DDS source's name in the journal is no caller's
        let dds = try home.run(["whitelist", "add", "--home", home.path, "dds:DemoApp", "ddsdemo://"])
        #expect(dds.status == 1 && dds.stderr.contains("an app id cannot hold ':'"), "\(dds.stderr)")
        #expect(try home.run(["whitelist", "remove", "--home", home.path, "com.nobody"]).status == 1)
        #expect(try home.run(["fleet", "show", "--home", home.path]).stdout.contains("THV3"))
        // the fleet shows what each device still stores: the synced HS2 nothing, the untouched BG5 its five
        let rows = try home.run(["fleet", "show", "--home", home.path]).stdout.split(separator: "\n")
        #expect(rows.first { $0.hasPrefix(macOf(.hs2)) }?.hasSuffix(" 0") == true)
        #expect(rows.first { $0.hasPrefix(macOf(.bg5)) }?.hasSuffix(" 5") == true)
        // and the users each keeps of its User Data Service's slots: the generic scale's two of four
        #expect(rows.first?.contains(" users ") == true)
        #expect(rows.first { $0.hasPrefix(macOf(.weightScale)) }?.contains(" 2/4 ") == true)
        #expect(rows.first { $0.hasPrefix(macOf(.hs2)) }?.contains(" none ") == true)
        let broken = try TestHome()
        try Data("{".utf8).write(to: URL(fileURLWithPath: broken.path + "/fleet.json"))
        // the whitelist still names the destination: the caller hears ERROR_STORE, and the log says why
        let output = try broken.open(request(.measure, .bp5))
        #expect(output.status == 0 && output.stderr.contains("fleet.json"), "\(output.stderr)")
        #expect(try LayeredCallback(parsing: String(output.stdout.dropLast())).reason == .store)
    }

    @Test("a broken whitelist file stops every command with one line naming the file and the problem")
    func brokenWhitelist() throws {
        let home = try TestHome()
        _ = try home.callback(request(.sync, .bp5))
        let stored = try home.store().readings.all().count
        let file = URL(fileURLWithPath: home.path + "/AppWhiteList.plist")
        for (contents, problem) in [
            ("<dict><key>org.vitalbridge.demo</key><integer>1</integer></dict>", "is not a string"),
            ("<dict><key>org.vitalbridge.demo</key><string>vitalbridge-demo://", "does not end"),
            ("bplist00", "binary property list"),
        ] {
            try Data(contents.utf8).write(to: file)
            let output = try home.open(request(.sync, .bp5))
            #expect(output.status == 1 && output.stdout.isEmpty)
            #expect(output.stderr.contains("AppWhiteList.plist") && output.stderr.contains(problem), "\(output.stderr)")
            #expect(try home.run(["whitelist", "list", "--home", home.path]).status == 1)
        }
        #expect(try home.store().readings.all().count == stored)
        // a whitelist edited through the command is written back as XML the hub reads
        try Data(Whitelist.default.plist).write(to: file)
        #expect(try home.run(["whitelist", "add", "--home", home.path, "com.example.a&b", "ab://x"]).status == 0)
        #expect(try home.run(["whitelist", "list", "--home", home.path]).stdout.contains("com.example.a&b"))
        #expect(try home.callback(request(.sync, .bp5)).status.rawValue == 0)
    }

    @Test("a device's saved state that cannot be read fails the request with ERROR_STORE and keeps the store")
    func brokenDeviceState() throws {
        let home = try TestHome()
        _ = try home.callback(request(.sync, .bg5))
        let stored = try home.store().readings.all().count
        let file = URL(fileURLWithPath: home.path + "/world/\(macOf(.bg5)).json")
        #expect(FileManager.default.fileExists(atPath: file.path))
        try Data("{\"records\":".utf8).write(to: file)
        let output = try home.open(request(.sync, .bg5))
        #expect(output.status == 0, "\(output.stderr)")
        let callback = try LayeredCallback(parsing: String(output.stdout.dropLast()))
        #expect(callback.status.rawValue == 1 && callback.reason?.rawValue == "ERROR_STORE")
        #expect(output.stderr.contains(file.path) && output.stderr.contains("not a saved device state"))
        #expect(try home.store().readings.all().count == stored)
        // the other devices are not affected
        #expect(try home.callback(request(.measure, .bp5)).status.rawValue == 0)
        // nor is the broken file replaced: what the device remembered is not silently reset
        #expect(try Data(contentsOf: file) == Data("{\"records\":".utf8))
    }

    @Test("the demo runs on its own home")
    func demo() throws {
        let output = try TestHome().run(["demo"])
        #expect(output.status == 0)
        #expect(output.stdout.contains("status 61455") && output.stdout.contains("ERROR_UNIT_MISMATCH:unit"))
    }
}
