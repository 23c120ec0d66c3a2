import Foundation
import LayeredProtocol
import Locking
import Testing
import VitalBridge
import VitalCore
import VitalDevices
import VitalSimulation
import VitalStore
import VitalTestSupport

/// The user, scripted: cancels at a stage, answers the connect prompt, shows a QR code, chooses a device; a
/// question it has no answer for is one nobody can answer.
struct ScriptedUser: HubUser {
    var cancelAt: Stage?
    /// The answer to the connect prompt: `true` accepts, `false` declines, `nil` nobody answers.
    var connects: Bool? = true
    var qrCode: String?
    var chooses: MACAddress?
    /// The candidates it was shown, each time it was asked to choose.
    let shown = Locked<[[DeviceCandidate]]>([])

    func cancels(_ stage: Stage) async -> Bool { stage == cancelAt }

    func confirmConnect(to device: MACAddress) async -> PromptAnswer<Void> {
        connects.map { $0 ? .answered(()) : .declined } ?? .unavailable
    }

    func scanQRCode() async -> PromptAnswer<String> { qrCode.map { .answered($0) } ?? .unavailable }

    func chooseDevice(among candidates: [DeviceCandidate]) async -> PromptAnswer<MACAddress> {
        shown.withLock { $0.append(candidates) }
        return chooses.map { .answered($0) } ?? .unavailable
    }
}

/// Device leases within one process: a second request for a held device is busy at once.
final class LocalLeases: DeviceLeases {
    let held = Locked<Set<String>>([])

    func withLease<T: Sendable>(_ mac: MACAddress, _ body: @Sendable () async throws -> T) async throws -> T {
        guard held.withLock({ $0.insert(mac.description).inserted }) else {
            throw DeviceError(.busy, message: "\(mac) is in use")
        }
        defer { _ = held.withLock { $0.remove(mac.description) } }
        return try await body()
    }
}

/// Leases that are never free.
struct BusyLeases: DeviceLeases {
    func withLease<T: Sendable>(_ mac: MACAddress, _ body: @Sendable () async throws -> T) async throws -> T {
        throw DeviceError(.busy, message: "\(mac) is in use")
    }
}

/// A hand-off that keeps what it was given, or fails while `failing` is set.
final class RecordingHandOff: CallbackHandOff {
    let urls = Locked<[String]>([])
    let failing = Locked(false)

    struct Refused: Error {}

    func handOver(_ url: String) async throws {
        if failing.withLock({ $0 }) { throw Refused() }
        urls.withLock { $0.append(url) }
    }
}

/// The engine in process: a simulated world, an in-memory store, scripted user and leases, and a recording hand-off.
struct Engine {
    let world: SimulatedWorld
    let store: VitalStore
    let handOff = RecordingHandOff()
    let bridge: Bridge

    static let start = Timestamp(parsing: "2026-11-20 08:00:00")!

    init(
        _ devices: [FleetDevice], user: ScriptedUser = ScriptedUser(), leases: any DeviceLeases = LocalLeases(),
        store: VitalStore? = nil, budget: Int? = nil, deviceUser: UserScript = UserScript(),
        providers: ProviderSettings = ProviderSettings()
    ) throws {
        world = try SimulatedWorld(fleet: Fleet(user: deviceUser, devices: devices), start: Self.start)
        self.store = try store ?? VitalStore()
        bridge = Self.bridge(
            world: world, store: self.store, user: user, leases: leases, handOff: handOff, providers: providers,
            owner: "engine-test", budget: budget)
    }

    /// An engine on `world` and `store`, for tests that run two at once.
    static func bridge(
        world: SimulatedWorld, store: VitalStore, user: any HubUser, leases: any DeviceLeases,
        handOff: any CallbackHandOff, providers: ProviderSettings = ProviderSettings(), owner: String,
        budget: Int? = nil
    ) -> Bridge {
        let clock = world.clock
        return Bridge(
            store: store, central: world, user: user, leases: leases, whitelist: .default, handOff: handOff,
            reservation: ReservationOwner(owner: owner), providers: providers, logger: testLogger,
            now: { clock.wallTime }, callbackBudget: budget)
    }

    /// Handles `url` from iOS and returns the callback it handed over, parsed; records an issue if there is none.
    func callback(_ url: String) async throws -> LayeredCallback {
        let outcome = await bridge.handle(url: url, platform: .ios)
        guard case .callback(let text, _) = outcome else {
            Issue.record("no callback for \(url): \(outcome)")
            throw RecordingHandOff.Refused()
        }
        return try LayeredCallback(parsing: text)
    }
}

/// The request for `action` on device `mac` of `model`, from the default whitelist's demo caller.
func request(_ action: LayeredAction, _ model: DeviceModel, _ mac: String, unit: Int? = nil, extra: String = "")
    -> String
{
    var url = "ihealth-layer://?cmd=\(action.rawValue)&devicemodel=\(model.rawValue)"
    url += action.requiresMAC ? "&mac=\(mac)" : "&addtype=0"
    if let unit { url += "&unit=\(unit)" }
    if model.hasUserProfile { url += "&userid=1111&age=30&sex=1&height=180&weight=80&swim=1&unit=10" }
    return url + "&ver=100&scheme=vitalbridge-demo" + extra
}

@Suite("The engine in process")
struct EngineTests {
    static let bp5 = "004D3208D2F4"

    static func generated(_ model: String, _ mac: String, count: Int) -> FleetDevice {
        FleetDevice(
            model: model, mac: mac,
            records: RecordsScript(
                generate: GeneratedRecords(count: count, from: "2026-10-01 00:00:00", to: "2026-11-19 00:00:00")))
    }

    @Test("a measurement is stored, delivered first in its callback, journaled, and leaves no reservation")
    func measurement() async throws {
        let engine = try Engine([FleetDevice(model: "BP5", mac: Self.bp5)])
        let callback = try await engine.callback(request(.measure, .bp5, Self.bp5, unit: 2))
        #expect(callback.status == ActionStatus(action: .measure, ran: [.success]))
        let stored = try engine.store.readings.all()
        #expect(stored.count == 1 && (callback.result?.objects.count ?? 0) == 1)
        let journal = try engine.store.journal.deliveries()
        #expect(
            journal.count == 1 && journal[0].readingIDs == [stored[0].id] && journal[0].caller == "org.vitalbridge.demo"
        )
        #expect(try engine.store.journal.reservations().isEmpty)
    }

    @Test("syncs within a small budget deliver every reading exactly once, each callback within the budget")
    func syncInParts() async throws {
        let engine = try Engine([Self.generated("BG5", "004D3208D308", count: 40)], budget: 900)
        var delivered: [Int64] = []
        var rounds = 0
        while true {
            let callback = try await engine.callback(request(.sync, .bg5, "004D3208D308", unit: 1))
            rounds += 1
            #expect(callback.status == ActionStatus(action: .sync, ran: [.success]))
            delivered += try engine.store.journal.deliveries().last!.readingIDs
            if (callback.remaining ?? 0) == 0 || rounds > 40 { break }
        }
        #expect(rounds > 3)
        #expect(Set(delivered).count == delivered.count)
        #expect(Set(delivered) == Set(try engine.store.readings.all().map(\.id)) && delivered.count == 40)
        #expect(engine.handOff.urls.withLock { $0 }.allSatisfy { $0.utf8.count <= 900 })
        #expect(await engine.world.storedReadings(of: MACAddress("004D3208D308")!).isEmpty)
    }

    @Test("a failed hand-off journals nothing and releases the readings: the next sync delivers them")
    func failedHandOff() async throws {
        let engine = try Engine([Self.generated("BP5", Self.bp5, count: 5)])
        engine.handOff.failing.withLock { $0 = true }
        let outcome = await engine.bridge.handle(url: request(.sync, .bp5, Self.bp5, unit: 2), platform: .ios)
        guard case .handOffFailed = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(try engine.store.journal.deliveries().isEmpty && engine.store.journal.reservations().isEmpty)
        #expect(try engine.store.readings.all().count == 5)
        engine.handOff.failing.withLock { $0 = false }
        let callback = try await engine.callback(request(.sync, .bp5, Self.bp5, unit: 2))
        #expect((callback.result?.objects.count ?? 0) == 5 && callback.remaining == nil)
    }

    @Test("a cancelled sync answers ERROR_CANCEL at that stage and the device keeps its records")
    func cancelledSync() async throws {
        let engine = try Engine([Self.generated("BP5", Self.bp5, count: 3)], user: ScriptedUser(cancelAt: .sync))
        let callback = try await engine.callback(request(.sync, .bp5, Self.bp5, unit: 2))
        #expect(callback.status == ActionStatus(action: .sync, ran: [.cancel]) && callback.reason == .cancel)
        #expect(await engine.world.storedReadings(of: MACAddress(Self.bp5)!).count == 3)
        #expect(try engine.store.readings.all().isEmpty)
    }

    @Test("drivers are readied for the caller: a PO3 refusing the user answers ERROR-300-111, an AM4 is bound")
    func preparedDrivers() async throws {
        var po3 = FleetDevice(model: "PO3", mac: "004D3208D307")
        po3.authenticationResult = 7
        let engine = try Engine([po3, FleetDevice(model: "AM4", mac: "004D3208D306")])
        let refused = try await engine.callback(request(.sync, .po3, "004D3208D307"))
        #expect(refused.reason == .device(.po3, code: 111))
        let bound = try await engine.callback(request(.sync, .am4, "004D3208D306"))
        #expect(bound.status == ActionStatus(action: .sync, ran: [.success]))
        #expect(await engine.world.deviceState(of: MACAddress("004D3208D306")!)?.boundUserID == 1111)
    }

    @Test("a device another request holds answers ERROR_DEVICE_BUSY; an unknown caller gets no callback at all")
    func busyAndUnknown() async throws {
        let busy = try Engine([Self.generated("BP5", Self.bp5, count: 2)], leases: BusyLeases())
        let callback = try await busy.callback(request(.sync, .bp5, Self.bp5, unit: 2))
        #expect(callback.reason == .deviceBusy && callback.status == ActionStatus(action: .sync, ran: [.fail]))
        let stranger = request(.sync, .bp5, Self.bp5, unit: 2).replacingOccurrences(
            of: "scheme=vitalbridge-demo", with: "scheme=stranger")
        guard case .noCallback = await busy.bridge.handle(url: stranger, platform: .ios) else {
            Issue.record("a stranger was answered")
            return
        }
        #expect(busy.handOff.urls.withLock { $0.count } == 1)
    }

    @Test("a store that refuses writes answers ERROR_STORE and the device forgets nothing")
    func storeRefuses() async throws {
        let directory = try TemporaryDirectory("engine")
        defer { directory.remove() }
        let path = directory.file("vitalbridge.sqlite")
        _ = try VitalStore(path: path)
        let engine = try Engine(
            [Self.generated("BG5", "004D3208D308", count: 4)], store: try VitalStore(path: path, readOnly: true))
        let callback = try await engine.callback(request(.sync, .bg5, "004D3208D308", unit: 1))
        #expect(callback.reason == .store, "\(callback)")
        #expect(await engine.world.storedReadings(of: MACAddress("004D3208D308")!).count == 4)
    }
}

@Suite("The engine in process: a busy store")
struct BusyStoreTests {
    @Test("a store another request holds longer than the hub waits answers ERROR_STORE_BUSY; nothing is lost")
    func busyStore() async throws {
        let directory = try TemporaryDirectory("busy")
        defer { directory.remove() }
        let path = directory.file("vitalbridge.sqlite")
        let holder = try VitalStore(path: path)
        let engine = try Engine(
            [EngineTests.generated("BG5", "004D3208D308", count: 3)],
            store: try VitalStore(path: path, busyTimeout: 0.2))
        // another process's write transaction, held on a thread of its own until the engine has answered
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let thread = Thread {
            _ = try? holder.journal.reservePending(
                device: MACAddress("004D3208D2F4")!, caller: "other", for: ReservationOwner(owner: "holder")
            ) { _ in
                holding.signal()
                release.wait()
                return ((), readingIDs: [])
            }
        }
        thread.start()
        holding.wait()
        let callback = try await engine.callback(request(.sync, .bg5, "004D3208D308", unit: 1))
        release.signal()
        #expect(callback.reason == .storeBusy, "\(callback)")
        #expect(await engine.world.storedReadings(of: MACAddress("004D3208D308")!).count == 3)
        // once the store is free, the same request succeeds
        try await Task.sleep(for: .milliseconds(100))
        let again = try await engine.callback(request(.sync, .bg5, "004D3208D308", unit: 1))
        #expect(again.status == ActionStatus(action: .sync, ran: [.success]) && (again.result?.objects.count ?? 0) == 3)
    }
}
