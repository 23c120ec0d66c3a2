import LayeredProtocol
import Testing
import VitalCore
import VitalDevices
import VitalSimulation
import VitalStore

/// A simulated PO3's history reaches the store with the pulse wave of each record that has one; a wave the hub
/// cannot read fails the sync and loses nothing.
@Suite("Engine: a PO3 history's pulse waves")
struct PO3WaveEngineTests {
    static let po3 = "004D3208D307"

    static func po3(count: Int, waveSamples: Int? = nil, mtu: Int? = nil) -> FleetDevice {
        var device = EngineTests.generated("PO3", po3, count: count)
        device.waveSamples = waveSamples
        if let mtu {
            device.radio = RadioTiming(connectionIntervalMilliseconds: 30, notificationsPerEvent: 4, mtu: mtu)
        }
        return device
    }

    static func waves(_ readings: [Reading]) -> [[Int]?] {
        readings.map { reading in
            guard case .oximetry(let oximetry) = reading else { return nil }
            return oximetry.wave
        }
    }

    @Test("a synced history keeps each record's wave: two of every three records, 18 samples each, 0–100")
    func syncedWaves() async throws {
        let engine = try Engine([Self.po3(count: 6)])
        let callback = try await engine.callback(request(.sync, .po3, Self.po3))
        #expect(callback.status == ActionStatus(action: .sync, ran: [.success]))
        let stored = try engine.store.readings.all().map(\.reading)
        #expect(stored.count == 6)
        let waves = Self.waves(stored)
        // sequence numbers 1…6: 3 and 6 have none
        #expect(waves.map { $0 != nil } == [true, true, false, true, true, false])
        for wave in waves.compactMap({ $0 }) {
            #expect(wave.count == 18 && wave.allSatisfy { (0...100).contains($0) })
        }
        // the callback's result leaves the wave out (the URL budget), and says nothing about it
        guard case .list(let objects) = callback.result else {
            Issue.record("no result list")
            return
        }
        #expect(objects.count == 6 && objects.allSatisfy { !$0.json.contains("wave") })
        #expect(await engine.world.storedReadings(of: MACAddress(Self.po3)!).isEmpty)
    }

    @Test("the same seed gives the same waves; a resync of the same records stores nothing twice")
    func deterministic() async throws {
        let first = try Engine([Self.po3(count: 4, waveSamples: 40, mtu: 64)])
        _ = try await first.callback(request(.sync, .po3, Self.po3))
        let second = try Engine([Self.po3(count: 4, waveSamples: 40, mtu: 64)])
        _ = try await second.callback(request(.sync, .po3, Self.po3))
        let readings = try first.store.readings.all().map(\.reading)
        #expect(readings == (try second.store.readings.all().map(\.reading)))
        #expect(Self.waves(readings).compactMap { $0?.count } == [40, 40, 40])
        // the same records again (as a PO3 that kept them would send them): recognized, not stored twice
        try second.store.readings.store(readings, device: MACAddress(Self.po3)!)
        #expect(try second.store.readings.all().count == 4)
    }

    @Test("a record stored without its wave (an upgraded home) is completed by the PO3's resend, not stored twice")
    func completedByResend() async throws {
        let store = try VitalStore()
        // the store as an earlier release left it: the PO3's records, synced without waves
        let before = try Engine([Self.po3(count: 3, waveSamples: 0)], store: store)
        _ = try await before.callback(request(.sync, .po3, Self.po3))
        let kept = try store.readings.all()
        #expect(Self.waves(kept.map(\.reading)) == [nil, nil, nil])
        // the same PO3 (same seed, so the same records) sends them again, with their waves
        let engine = try Engine([Self.po3(count: 3)], store: store)
        let callback = try await engine.callback(request(.sync, .po3, Self.po3))
        #expect(callback.status == ActionStatus(action: .sync, ran: [.success]))
        let stored = try store.readings.all()
        #expect(stored.map(\.id) == kept.map(\.id))
        #expect(Self.waves(stored.map(\.reading)).map { $0?.count } == [18, 18, nil])
    }

    @Test("a wave the radio cut is refused as truncated: the sync fails, the stored readings stay, the PO3 keeps all")
    func truncatedWave() async throws {
        let store = try VitalStore()
        // a first sync without waves stores two readings
        let before = try Engine([Self.po3(count: 2, waveSamples: 0)], store: store)
        _ = try await before.callback(request(.sync, .po3, Self.po3))
        let kept = try store.readings.all()
        #expect(kept.count == 2)
        // then a PO3 whose 40-sample waves do not fit its MTU of 23
        let engine = try Engine([Self.po3(count: 3, waveSamples: 40)], store: store)
        let callback = try await engine.callback(request(.sync, .po3, Self.po3))
        #expect(callback.status == ActionStatus(action: .sync, ran: [.fail]))
        #expect(try store.readings.all() == kept)
        #expect(await engine.world.storedReadings(of: MACAddress(Self.po3)!).count == 3)
    }
}
