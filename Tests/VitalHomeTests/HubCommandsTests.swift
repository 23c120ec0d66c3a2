import Foundation
import LayeredProtocol
import Locking
import ShareVitalSigns
import Testing
import VitalBridge
import VitalCore
import VitalHome
import VitalStore
import VitalTestSupport

/// The ShareVitalSigns board in memory: a request is shared without the user's runtime folder.
private final class MemoryBoard: SharedBoard {
    let board = Locked<Board?>(nil)
    var location: String { "memory" }
    func read() throws -> Board? { board.withLock { $0 } }
    func write(_ board: Board) throws { self.board.withLock { $0 = board } }
}

/// What the commands ask of the hub beyond a request, in process: the callers it answers, the doctor's report, the
/// scans and the fleet, the sinks' status, a ShareVitalSigns request, the adapter, the pairing dialogue.
@Suite("VitalHome: what the commands show and change")
struct HubCommandsTests {
    /// A hub on a new simulated home in `folder`.
    static func hub(in folder: TemporaryDirectory) throws -> Hub {
        let home = try Home(folder.file("home"), create: true)
        return try Hub(home: home, whitelist: try home.whitelist(), logger: testLogger, report: { _ in })
    }

    @Test("a caller is whitelisted with its person, then removed; refusals name the caller and change nothing")
    func callers() throws {
        let folder = try TemporaryDirectory("commands")
        defer { folder.remove() }
        let hub = try Self.hub(in: folder)
        try hub.store.people.add("Mum")
        let added = try hub.whitelist("com.example.mum", callback: "mumsapp://", person: "Mum")
        #expect(added.entries["com.example.mum"] == "mumsapp://")
        #expect(try hub.home.whitelist() == added)
        #expect(try hub.store.people.callers() == ["com.example.mum": "Mum"])
        #expect { try hub.whitelist("com.example.web", callback: "https://example.com", person: nil) } throws: {
            "\($0)".hasPrefix("cannot whitelist com.example.web: ")
        }
        #expect { try hub.whitelist("com.example.dad", callback: "dadsapp://", person: "Dad") } throws: {
            "\($0)".hasPrefix("cannot whitelist com.example.dad: ")
        }
        #expect(try hub.home.whitelist() == added)
        // the hub's whitelist is the one it was opened with: removing reads the file again
        let reopened = try Hub(home: hub.home, whitelist: try hub.home.whitelist(), logger: testLogger) { _ in }
        let removed = try reopened.removeFromWhitelist("com.example.mum")
        #expect(removed == Whitelist.default)
        #expect(try hub.home.whitelist() == Whitelist.default)
        #expect(try hub.store.people.callers().isEmpty)
        let again = try Hub(home: hub.home, whitelist: try hub.home.whitelist(), logger: testLogger) { _ in }
        #expect { try again.removeFromWhitelist("com.example.mum") } throws: {
            "\($0)" == "com.example.mum is not whitelisted"
        }
    }

    @Test("doctor's JSON names the home, says whether it is ready, and has every check with its fix")
    func doctorJSON() throws {
        let findings = [
            Finding(level: .ok, check: "home", detail: "private"),
            Finding(level: .warning, check: "handler", detail: "none", fix: "vitalbridge install-handler"),
        ]
        let doctor = Doctor(directory: "/tmp/hub")
        #expect(Doctor.isReady(findings))
        #expect(!Doctor.isReady(findings + [Finding(level: .fail, check: "store", detail: "unreadable")]))
        let text = doctor.json(findings)
        #expect(!text.hasSuffix("\n"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(json["home"] as? String == "/tmp/hub" && json["ready"] as? Bool == true)
        let checks = try #require(json["checks"] as? [[String: String]])
        #expect(checks.map { $0["check"] } == ["home", "handler"] && checks.map { $0["status"] } == ["ok", "warning"])
        #expect(checks[0]["fix"] == nil && checks[1]["fix"] == "vitalbridge install-handler")
    }

    @Test("a sealed ShareVitalSigns request keeps its key in the home and shares its board; a plain one keeps none")
    func svsRequest() throws {
        let folder = try TemporaryDirectory("commands")
        defer { folder.remove() }
        let home = try Home(folder.file("home"), create: true)
        let board = MemoryBoard()
        let sealed = try SVSFiles.request(
            VitalSign(parsing: "BP")!, state: .new, requester: "org.vitalbridge.demo", plain: false, in: home,
            on: board)
        #expect(sealed.providerURL.hasPrefix("svs-bp://?requester=org.vitalbridge.demo&svskey="))
        #expect(try board.read() == sealed.board)
        let saved = try #require(try SVSFiles.savedRequest("org.vitalbridge.demo", in: home))
        #expect(saved.key == sealed.key && saved.requestID == sealed.board.requestID)
        let plain = try SVSFiles.request(
            VitalSign(parsing: "TEMP")!, state: .new, requester: "org.vitalbridge.demo", plain: true, in: home,
            on: board)
        #expect(plain.key == nil && plain.providerURL == "svs-temp://?requester=org.vitalbridge.demo")
        #expect(try SVSFiles.savedRequest("org.vitalbridge.demo", in: home) == nil)
        #expect(throws: SVSError.self) {
            try SVSFiles.request(
                VitalSign(parsing: "BP")!, state: .new, requester: "not a scheme", plain: false, in: home, on: board)
        }
        #expect(try board.read() == plain.board)
    }

    @Test("the scans list what the simulated world hears; the fleet shows each device; an adapter is set and unset")
    func scansAndFleet() async throws {
        let folder = try TemporaryDirectory("commands")
        defer { folder.remove() }
        let hub = try Self.hub(in: folder)
        let health = try await hub.healthDeviceTable().rows
        let bp5 = try #require(health.first { $0[0] == "004D3208D2F4" })
        #expect(bp5[2] == "Blood Pressure (0x1810)" && bp5[5] == "100")
        #expect(Set(health.map { $0[0] }).count == health.count)
        let bands = try await hub.bandTable().rows
        let band = try #require(bands.first { $0[0] == "004D3208D310" })
        #expect(band[2].hasSuffix(" dBm") && band[4] == "no")
        let fleet = try await hub.fleetTable().rows
        let monitor = try #require(fleet.first { $0[0] == "004D3208D2F4" })
        #expect(monitor[1] == "BP5" && monitor.count == 8 && monitor[6] == "none" && Int(monitor[7])! > 0)
        // the generic scale keeps two users of its User Data Service's four slots
        let scale = try #require(fleet.first { $0[0] == "004D3208D316" })
        #expect(scale[1] == "WSS" && scale[6] == "2/4" && scale[7] == "9")
        try hub.home.setAdapter("hci0")
        #expect(try hub.home.adapter() == "hci0")
        let bluez = try Hub(home: hub.home, whitelist: Whitelist.default, logger: testLogger) { _ in }
        await #expect(throws: HomeError.self) { try await bluez.fleetTable() }
        try hub.home.setAdapter(nil)
        #expect(try hub.home.adapter() == nil)
    }

    @Test("the lists of devices, people and callers: a row each, the person column only where callers name people")
    func lists() async throws {
        let folder = try TemporaryDirectory("commands")
        defer { folder.remove() }
        var hub = try Self.hub(in: folder)
        #expect(try hub.deviceTable() == nil)
        #expect(try hub.whitelistTable().header == ["caller", "callback"])
        let added = await hub.bridge(handOff: ShownHandOff()).handle(
            url: "ihealth-layer://?cmd=1&addtype=0&devicemodel=100&popflag=0&scheme=vitalbridge-demo", platform: .ios)
        guard case .callback = added else {
            Issue.record("no callback: \(added)")
            return
        }
        let devices = try #require(try hub.deviceTable())
        #expect(devices.rows.count == 1 && devices.rows[0][0] == "004D3208D2F4" && devices.rows[0][1] == "BP5")
        try hub.store.people.add(
            "Ann",
            profile: PersonProfile(born: CalendarDate(parsing: "1980-05-17"), heightCentimetres: 168, sex: .female))
        try hub.store.people.assign(device: MACAddress("004D3208D2F4")!, userIndex: 1, to: "Ann")
        try hub.whitelist("com.example.ann", callback: "annsapp://", person: "Ann")
        hub = try Self.hub(in: folder)
        #expect(
            try hub.peopleTable().rows == [
                ["Ann", "1980-05-17", "168 cm", "female", "004D3208D2F4#1", "com.example.ann"]
            ])
        let callers = try hub.whitelistTable()
        #expect(callers.header == ["caller", "callback", "person"])
        #expect(callers.rows.contains(["com.example.ann", "annsapp://", "Ann"]))
        #expect(callers.rows.contains(["org.vitalbridge.demo", "vitalbridge-demo://", ""]))
    }

    @Test("the demo tells each step's request, callback and status, its readings, then what the store holds")
    func demo() async throws {
        let folder = try TemporaryDirectory("demo")
        defer { folder.remove() }
        var paragraphs: [String] = []
        try await Hub.demo(
            in: folder.file("home"), logger: testLogger, report: { _ in }, say: { paragraphs.append($0) })
        // a step and its request before it runs, then what it answered
        #expect(paragraphs.count == 2 * Hub.demoSteps.count + 2)
        for (index, step) in Hub.demoSteps.enumerated() {
            #expect(paragraphs[1 + 2 * index] == "\(index + 1). \(step.title)\n   request:  \(step.url)")
            #expect(paragraphs[2 + 2 * index].hasPrefix("   callback: "), "\(paragraphs[2 + 2 * index])")
        }
        #expect(paragraphs[8].contains("status 61455"))
        #expect(paragraphs[14].contains("reason ERROR_UNIT_MISMATCH:unit"))
        #expect(paragraphs.last?.hasPrefix("The store now holds ") == true)
        // a folder that cannot be a home is refused, naming it
        try Data().write(to: URL(fileURLWithPath: folder.file("file")))
        await #expect(throws: HomeError.self) {
            try await Hub.demo(in: folder.file("file"), logger: testLogger, report: { _ in }, say: { _ in })
        }
    }

    @Test("a sink's status row: its queue, position, last success and last error")
    func sinkStatus() throws {
        let folder = try TemporaryDirectory("commands")
        defer { folder.remove() }
        let hub = try Self.hub(in: folder)
        _ = try hub.addSink(named: "local", url: "postgresql://me@localhost/health", passwordFile: nil)
        #expect(try hub.sinkStatusTable(named: nil).rows == [["local", "0", "0", "never", ""]])
        #expect(throws: StoreError.self) { try hub.sinkStatusTable(named: "clinic") }
    }

    @Test("the pairing dialogue: a passkey shown once, typed ones asked again until valid, a comparison confirmed")
    func pairingDialogue() async {
        let device = MACAddress("004D3208D313")!
        let answers = Locked(["12345678", "042", "", "y", String(repeating: "9", count: 17), "1234"])
        let told = Locked<[String]>([])
        let user = TerminalPairingUser(
            acceptsComparison: false,
            ask: { _ in answers.withLock { $0.isEmpty ? nil : $0.removeFirst() } },
            tell: { line in told.withLock { $0.append(line) } })
        await user.show(passkey: 42, entered: 0, for: device)
        await user.show(passkey: 42, entered: 1, for: device)
        #expect(await user.passkey(for: device) == 42)
        #expect(await user.passkey(for: device) == nil, "an empty answer cancels")
        #expect(await user.confirm(passkey: 42, for: device))
        #expect(await user.pinCode(for: device) == "1234")
        #expect(await user.pinCode(for: device) == nil, "the end of input cancels")
        #expect(
            told.withLock { $0 } == [
                "Enter 000042 on the device 00:4D:32:08:D3:13, then Enter there",
                "'12345678' is not a passkey: type the 6 digits the device shows",
                "a PIN code has 1 to 16 characters",
            ])
        let accepting = TerminalPairingUser(acceptsComparison: true, ask: { _ in nil }, tell: { _ in })
        #expect(await accepting.confirm(passkey: 1, for: device))
    }
}
