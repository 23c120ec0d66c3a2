import Foundation
import LayeredProtocol
import Locking
import ShareVitalSigns
import Testing
import VitalBridge
import VitalCore
import VitalDevices
import VitalSimulation
import VitalStore
import WelltoryDDS

/// The ShareVitalSigns board in memory.
final class MemoryBoard: SharedBoard {
    let board: Locked<Board?>
    var location: String { "memory" }

    init(_ board: Board?) { self.board = Locked(board) }

    func read() throws -> Board? { board.withLock { $0 } }
    func write(_ board: Board) throws { self.board.withLock { $0 = board } }
}

/// DDS sources in memory.
struct MemorySources: DDSRegistry {
    var entries: [String: String]
    func callback(for source: String) throws -> String? { entries[source] }
}

@Suite("The engine answers ShareVitalSigns and Welltory DDS with devices of the home")
struct ProviderTests {
    static let requester = "org.vitalbridge.demo"
    static let bp5 = "004D3208D2F4"
    static let sensor = "004D3208D313"
    static let secondSensor = "004D3208D31A"
    static let ddsCallback = "https://www.demoapp.com/dds/"

    /// A plain request for `sign` on a board in memory.
    static func board(_ sign: VitalSign) throws -> MemoryBoard {
        MemoryBoard(try SVSRequest(sign: sign, state: .new, requester: requester, key: nil, requestID: nil).board)
    }

    static func providers(board: MemoryBoard? = nil) -> ProviderSettings {
        ProviderSettings(board: board, ddsSources: MemorySources(entries: ["DemoApp": ddsCallback]))
    }

    /// Makes the device `mac` of `model` one of the home's, as a layered add would.
    static func add(_ model: DeviceModel, _ mac: String, to store: VitalStore) throws {
        try store.saveDevice(StoredDevice(mac: MACAddress(mac)!, model: model, addedAt: Engine.start))
    }

    static func ddsLink(_ extra: String = "") -> String {
        "vitalbridge://dds/measurement?source=DemoApp&callback=https%3A%2F%2Fwww.demoapp.com%2Fdds%2F&duration=120"
            + extra
    }

    @Test("SVS: blood pressure from the home's monitor, stored, answered on the board, journaled for the requester")
    func bloodPressure() async throws {
        let board = try Self.board(.bp)
        let engine = try Engine([FleetDevice(model: "BP5", mac: Self.bp5)], providers: Self.providers(board: board))
        try Self.add(.bp5, Self.bp5, to: engine.store)
        let outcome = await engine.bridge.handle(url: "svs-bp://?requester=\(Self.requester)", platform: .ios)
        guard case .callback(let url, let report) = outcome else {
            Issue.record("no answer: \(outcome)")
            return
        }
        #expect(url == "\(Self.requester)://" && report.note == nil)
        let stored = try engine.store.readings.all()
        guard stored.count == 1, case .bloodPressure(let bp) = stored[0].reading else {
            Issue.record("not one blood pressure reading stored: \(stored)")
            return
        }
        let answer = try #require(board.board.withLock { $0 }?.answer)
        #expect(answer.success && answer.values[4]?.value == .number(Int(bp.systolic.rounded())))
        #expect(answer.values[5]?.value == .number(Int(bp.diastolic.rounded())) && answer.values.count == 2)
        let journal = try engine.store.journal.deliveries()
        #expect(journal.count == 1 && journal[0].caller == Self.requester && journal[0].readingIDs == [stored[0].id])
        #expect(journal[0].action == .provider(code: ProviderProtocol.shareVitalSigns.rawValue))
        #expect(try engine.store.journal.reservations().isEmpty)
        // the requester is a layered caller too: a sync does not send the reading again
        #expect(try engine.store.journal.undelivered(device: MACAddress(Self.bp5)!, caller: Self.requester).isEmpty)
    }

    static func sensors(_ macs: [String]) -> [FleetDevice] {
        macs.map { FleetDevice(model: DeviceModel.heartRateSensor.name, mac: $0) }
    }

    @Test("SVS and DDS with no device of the home that can measure: the protocol's failure, nothing stored")
    func noDevice() async throws {
        let board = try Self.board(.temp)
        // the world has the devices, but the home added none of them
        let engine = try Engine(
            [FleetDevice(model: "THV3", mac: "004D3208D30D")] + Self.sensors([Self.sensor]),
            providers: Self.providers(board: board))
        let svs = await engine.bridge.handle(url: "svs-temp://?requester=\(Self.requester)", platform: .ios)
        guard case .callback(_, let report) = svs else {
            Issue.record("no answer: \(svs)")
            return
        }
        #expect(report.note?.contains("no thermometer of the home can measure") == true)
        #expect(board.board.withLock { $0 }?.answer?.success == false)
        let dds = await engine.bridge.handle(url: Self.ddsLink("&visit=7"), platform: .ios)
        guard case .callback(let url, let ddsReport) = dds else {
            Issue.record("no DDS answer: \(dds)")
            return
        }
        #expect(url == Self.ddsCallback + "?error=no_device&visit=7")
        #expect(ddsReport.note?.contains("no heart-rate sensor of the home") == true)
        #expect(try engine.store.readings.all().isEmpty && engine.store.devices().isEmpty)
        // both failures are journaled, with no reading
        #expect(try engine.store.journal.deliveries().map(\.readingIDs) == [[], []])
    }

    @Test("DDS: RR intervals of the home's sensor give RMSSD, SDNN and power; the series is stored and journaled")
    func hrv() async throws {
        let engine = try Engine(Self.sensors([Self.sensor]), providers: Self.providers())
        try Self.add(.heartRateSensor, Self.sensor, to: engine.store)
        let outcome = await engine.bridge.handle(url: Self.ddsLink("&visit=7"), platform: .ios)
        guard case .callback(let url, _) = outcome else {
            Issue.record("no answer: \(outcome)")
            return
        }
        let result = try DDSResult(callback: url)
        guard case .heartRate(let reading)? = try engine.store.readings.all().first?.reading else {
            Issue.record("no RR series stored")
            return
        }
        let figures = HRVFigures(rr: reading.rrIntervals)
        #expect(result.rmssd == ((figures.rmssd ?? -1) * 10).rounded() / 10 && result.failure == nil)
        #expect(result.extra.map(\.name) == ["visit"])
        #expect(reading.rrIntervals.reduce(0, +) >= 120_000)
        let journal = try engine.store.journal.deliveries()
        #expect(journal.count == 1 && journal[0].caller == "dds:DemoApp" && journal[0].readingIDs.count == 1)
        #expect(journal[0].action == .provider(code: ProviderProtocol.welltoryDDS.rawValue))
    }

    @Test("DDS with two sensors: nobody to ask fails by name; the user's choice, or the request's mac, is measured")
    func choosingASensor() async throws {
        let sensors = [Self.sensor, Self.secondSensor]
        let unasked = try Engine(Self.sensors(sensors), user: ScriptedUser(chooses: nil), providers: Self.providers())
        for mac in sensors { try Self.add(.heartRateSensor, mac, to: unasked.store) }
        guard case .callback(let url, _) = await unasked.bridge.handle(url: Self.ddsLink(), platform: .ios) else {
            Issue.record("no answer")
            return
        }
        #expect(url == Self.ddsCallback + "?error=several_devices")
        #expect(try unasked.store.readings.all().isEmpty)

        let user = ScriptedUser(chooses: MACAddress(Self.secondSensor))
        let chosen = try Engine(Self.sensors(sensors), user: user, providers: Self.providers())
        for mac in sensors { try Self.add(.heartRateSensor, mac, to: chosen.store) }
        _ = await chosen.bridge.handle(url: Self.ddsLink(), platform: .ios)
        #expect(try chosen.store.readings.all().map(\.device.description) == [Self.secondSensor])
        #expect(user.shown.withLock { $0 }.first?.map(\.mac.description).sorted() == sensors.sorted())
        // named by the request: nobody is asked
        _ = await chosen.bridge.handle(url: Self.ddsLink("&mac=\(Self.sensor)"), platform: .ios)
        #expect(try chosen.store.readings.all().map(\.device.description) == [Self.secondSensor, Self.sensor])
        #expect(user.shown.withLock { $0 }.count == 1)
    }

    @Test("two DDS requests at once for one source never deliver one reading twice")
    func concurrentRequests() async throws {
        let sensors = [Self.sensor, Self.secondSensor]
        let world = try SimulatedWorld(fleet: Fleet(devices: Self.sensors(sensors)), start: Engine.start)
        let store = try VitalStore()
        for mac in sensors { try Self.add(.heartRateSensor, mac, to: store) }
        let handOff = RecordingHandOff()
        let leases = LocalLeases()
        let bridges = sensors.enumerated().map { index, _ in
            Engine.bridge(
                world: world, store: store, user: ScriptedUser(chooses: nil), leases: leases, handOff: handOff,
                providers: Self.providers(), owner: "hub-\(index)")
        }
        await withTaskGroup(of: Void.self) { group in
            for (bridge, mac) in zip(bridges, sensors) {
                group.addTask { _ = await bridge.handle(url: Self.ddsLink("&mac=\(mac)"), platform: .ios) }
            }
        }
        let delivered = try store.journal.deliveries().flatMap(\.readingIDs)
        let stored = try store.readings.all().map(\.id)
        #expect(delivered.count == 2 && Set(delivered) == Set(stored))
        #expect(handOff.urls.withLock { $0 }.allSatisfy { $0.contains("rmssd=") })
        #expect(try store.journal.reservations().isEmpty)
    }

    @Test("an SVS answer that is not handed over leaves its reading pending for the requester")
    func failedHandOff() async throws {
        let board = try Self.board(.bp)
        let engine = try Engine([FleetDevice(model: "BP5", mac: Self.bp5)], providers: Self.providers(board: board))
        try Self.add(.bp5, Self.bp5, to: engine.store)
        engine.handOff.failing.withLock { $0 = true }
        guard
            case .handOffFailed = await engine.bridge.handle(
                url: "svs-bp://?requester=\(Self.requester)", platform: .ios)
        else {
            Issue.record("the hand-off did not fail")
            return
        }
        #expect(try engine.store.journal.deliveries().isEmpty && engine.store.journal.reservations().isEmpty)
        #expect(try engine.store.journal.undelivered(device: MACAddress(Self.bp5)!, caller: Self.requester).count == 1)
    }

    @Test("an add by scan with two paired devices: nobody to ask fails naming 2; the user picks from a sorted list")
    func choosingAScannedDevice() async throws {
        let monitors = [Self.bp5, "004D3208D2F5"].map { FleetDevice(model: "BP5", mac: $0) }
        let unasked = try Engine(monitors, user: ScriptedUser(chooses: nil))
        let failed = try await unasked.callback(request(.add, .bp5, ""))
        #expect(failed.status == .fail && failed.reason?.rawValue == "ERROR_SEVERAL_DEVICES:2")
        #expect(try unasked.store.devices().isEmpty)

        let user = ScriptedUser(chooses: MACAddress("004D3208D2F5"))
        let chosen = try Engine(monitors, user: user)
        let added = try await chosen.callback(request(.add, .bp5, ""))
        #expect(added.status == .success && added.mac?.description == "004D3208D2F5")
        let shown = try #require(user.shown.withLock { $0 }.first)
        #expect(shown.count == 2 && shown.map { $0.rssi ?? 0 } == shown.map { $0.rssi ?? 0 }.sorted(by: >))
        // a choice that is not one of those found is refused
        let stranger = try Engine(monitors, user: ScriptedUser(chooses: MACAddress("AABBCCDDEEFF")))
        #expect(try await stranger.callback(request(.add, .bp5, "")).reason == .deviceNotFound)
    }

    @Test("popflag=1 with nobody to ask fails by name and connects nothing; a decline cancels")
    func connectPrompt() async throws {
        let unasked = try Engine([FleetDevice(model: "BP5", mac: Self.bp5)], user: ScriptedUser(connects: nil))
        let failed = try await unasked.callback(request(.add, .bp5, "", extra: "&popflag=1"))
        #expect(failed.status == .fail && failed.reason?.rawValue == "ERROR_NO_PROMPT:popflag")
        #expect(try unasked.store.devices().isEmpty)
        let declined = try Engine([FleetDevice(model: "BP5", mac: Self.bp5)], user: ScriptedUser(connects: false))
        #expect(try await declined.callback(request(.add, .bp5, "", extra: "&popflag=1")).reason == .cancel)
        let accepted = try Engine([FleetDevice(model: "BP5", mac: Self.bp5)], user: ScriptedUser(connects: true))
        #expect(try await accepted.callback(request(.add, .bp5, "", extra: "&popflag=1")).status == .success)
    }
}
