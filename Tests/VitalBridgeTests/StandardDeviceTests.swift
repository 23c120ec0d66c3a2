import Foundation
import HealthGATT
import LayeredProtocol
import Testing
import VitalBridge
import VitalCore
import VitalDevices
import VitalSimulation
import VitalStore

/// VitalBridge's generic SIG devices (900–904) in process: only their Bluetooth SIG profile, the user measuring on
/// the device, and the ends of sessions a profile without an end-of-transfer has.
@Suite("Generic SIG devices: any maker's, through their profile alone")
struct StandardDeviceTests {
    static let bps = "004D3208D314"
    static let gls = "004D3208D315"
    static let wss = "004D3208D316"
    static let plxs = "004D3208D318"

    static func device(_ model: String, _ mac: String, failures: FailureScript? = nil, records: Int = 5)
        -> FleetDevice
    {
        FleetDevice(
            model: model, mac: mac,
            records: RecordsScript(
                generate: GeneratedRecords(count: records, from: "2026-11-19 07:00:00", to: "2026-11-19 21:00:00")),
            failures: failures)
    }

    static func times(_ callback: LayeredCallback) -> [String] {
        guard case .list(let objects)? = callback.result else { return [] }
        return objects.compactMap { $0.string(.measuredAt) }
    }

    @Test("a measurement is the user's new reading, after the backlog: everything is stored, the device is emptied")
    func pushMeasurement() async throws {
        let engine = try Engine([Self.device("BPS", Self.bps)])
        let callback = try await engine.callback(request(.measure, .bloodPressureMonitor, Self.bps))
        #expect(callback.status == ActionStatus(action: .measure, ran: [.success]))
        // the live reading first, measured while the hub waited (30 s and the cuff's 40 s), then the backlog
        let times = Self.times(callback)
        #expect(times.count == 6 && times.first?.hasPrefix("2026-11-20 08:01") == true, "\(times)")
        #expect(times.dropFirst().allSatisfy { $0.hasPrefix("2026-11-19") })
        #expect(try engine.store.readings.all(device: MACAddress(Self.bps)!).count == 6)
        #expect(await engine.world.storedReadings(of: MACAddress(Self.bps)!).isEmpty)
    }

    @Test("a sync ends when the device goes quiet; a hang-up ends it with what arrived, the rest comes next time")
    func pushSync() async throws {
        let mac = MACAddress(Self.bps)!
        let engine = try Engine([Self.device("BPS", Self.bps, failures: FailureScript(disconnectAfter: 2))])
        let first = try await engine.callback(request(.sync, .bloodPressureMonitor, Self.bps))
        #expect(first.status == ActionStatus(action: .sync, ran: [.success]))
        #expect(Self.times(first).count == 2)
        #expect(await engine.world.storedReadings(of: mac).count == 3)
        let second = try await engine.callback(request(.sync, .bloodPressureMonitor, Self.bps))
        #expect(Self.times(second).count == 3)
        #expect(await engine.world.storedReadings(of: mac).isEmpty)
        #expect(try engine.store.readings.all(device: mac).count == 5)
        // quiet for 5 s of the world's time, not the minutes a user would take to measure
        #expect(engine.world.clock.elapsedTime < .seconds(30))
    }

    @Test("stored readings are never passed off as a measurement: nobody measures, or the reading is old")
    func noNewReading() async throws {
        let mac = MACAddress(Self.bps)!
        let walkedAway = try Engine([Self.device("BPS", Self.bps)], deviceUser: UserScript(cancelAt: .measure))
        let callback = try await walkedAway.callback(request(.measure, .bloodPressureMonitor, Self.bps))
        #expect(callback.status == ActionStatus(action: .measure, ran: [.fail]))
        #expect(callback.reason == .deviceDisconnected && callback.result == nil)
        // the backlog that came is kept, and the next sync delivers it
        #expect(try walkedAway.store.readings.all(device: mac).count == 5)
        let sync = try await walkedAway.callback(request(.sync, .bloodPressureMonitor, Self.bps))
        #expect(Self.times(sync).count == 5)

        // a reading dated by a clock far from the host's is not the one the request waits for
        var device = Self.device("BPS", Self.bps, records: 0)
        let old = SimulatedReading(
            measuredAt: "2026-01-01 08:00:00", ["systolic": .number(120), "diastolic": .number(80)])
        device.nextMeasurements = [old]
        let stale = try Engine([device])
        let answer = try await stale.callback(request(.measure, .bloodPressureMonitor, Self.bps))
        #expect(answer.reason == .deviceDisconnected)
        #expect(
            try stale.store.readings.all(device: mac).map(\.reading.measuredAt.description) == ["2026-01-01 08:00:00"])
    }

    @Test(
        "a scale's body composition, indicated after or before its weight, is one reading with it, in the callback too",
        arguments: [BodyCompositionOrder.afterWeight, .beforeWeight])
    func bodyComposition(order: BodyCompositionOrder) async throws {
        let mac = MACAddress(Self.wss)!
        var device = Self.device("WSS", Self.wss)
        device.bodyComposition = order.rawValue
        // a reading whose body fat the scale could not measure: its weight, the body fat sent as 65535
        let failed = SimulatedReading(measuredAt: "2026-11-19 06:00:00", ["weight": .number(81.5)])
        device.records?.list = [failed]
        let engine = try Engine([device])
        let expected = await engine.world.storedReadings(of: mac)
        let callback = try await engine.callback(request(.measure, .weightScale, Self.wss, unit: 5))
        #expect(callback.status == ActionStatus(action: .measure, ran: [.success]))
        let stored = try engine.store.readings.all(device: mac).map(\.reading)
        #expect(stored.count == 7 && expected.allSatisfy(stored.contains))
        let compositions = stored.map { reading -> BodyComposition?? in
            guard case .weight(let weight) = reading else { return .none }
            return .some(weight.bodyComposition)
        }
        // the body fat of that one is unavailable (NaN, measurementUnsuccessful), never a number (issue 35)
        let bodyFat = try #require(ReadingKind.weight.field(named: "fat"))
        #expect(stored.filter { bodyFat.value(in: $0) == nil }.map(\.measuredAt.description) == ["2026-11-19 06:00:00"])
        #expect(stored.filter { $0.annotations.status == .measurementUnsuccessful }.count == 1)
        #expect(compositions.allSatisfy { $0 != .none })
        // each weight in pounds with its body fat; the measurement first
        guard case .list(let objects)? = callback.result else {
            Issue.record("no result")
            return
        }
        #expect(objects.count == 7)
        let measured = try #require(objects.first)
        guard case .weight(let new) = try #require(stored.first(where: { $0.measuredAt == measured.measuredAt })) else {
            Issue.record("the measurement is not a stored weight")
            return
        }
        #expect(measured == Reading.weight(new).resultObject(unit: .pound))
        // the generated person's body fat, as the scale sent it (0.1 %) and as the callback writes it
        let fat = try #require(new.bodyComposition?.bodyFatPercentage)
        #expect((5...50).contains(fat) && measured.number(.bodyFat)?.description == String(format: "%.1f", fat))
        #expect(
            objects.filter { $0.number(.bodyFat) == nil }.map(\.measuredAt) == [
                failed.measuredAt.flatMap(Timestamp.init(parsing:))
            ])
        #expect(await engine.world.storedReadings(of: mac).isEmpty)
    }

    @Test("a weight stored before the link dropped, its composition unsent, is completed by the next sync: one reading")
    func compositionAfterDrop() async throws {
        let mac = MACAddress(Self.wss)!
        var device = Self.device("WSS", Self.wss)
        device.bodyComposition = BodyCompositionOrder.afterWeight.rawValue
        let engine = try Engine([device])
        let expected = await engine.world.storedReadings(of: mac)
        // a hub gets the first weight and stores it; BlueZ confirmed it; the link drops before the composition
        let link = try await engine.world.connect(to: mac)
        try await link.subscribe(GATTCharacteristics.bodyComposition)
        try await link.subscribe(GATTCharacteristics.weightMeasurement)
        guard case .indication(GATTCharacteristics.weightMeasurement, let bytes, let token) = try await link.nextEvent()
        else {
            Issue.record("the scale did not indicate a weight first")
            return
        }
        let weight = try DeviceRecord(decoding: bytes, of: WeightMeasurement.uuid).reading
        let id = try #require(try engine.store.readings.store([weight], device: mac).first)
        try await link.confirm(token)
        await link.disconnect()
        let first = try await engine.callback(request(.sync, .weightScale, Self.wss))
        // the device kept the whole record: it comes again, and completes the stored weight
        #expect(Self.times(first).count == 5)
        #expect(try engine.store.readings.all(device: mac).map(\.reading) == expected)
        #expect(try engine.store.readings.all(device: mac).first?.id == id)
        guard case .list(let objects)? = first.result else { return }
        #expect(objects == expected.map { $0.resultObject(unit: .kilogram) })
        #expect(await engine.world.storedReadings(of: mac).isEmpty)
    }

    @Test("the engine's sink keeps a weight and its composition, sent apart in either order, as one reading")
    func sinkMergesWeightParts() async throws {
        let mac = MACAddress(Self.wss)!
        let store = try VitalStore()
        let sink = StoreSink(store: store, device: mac)
        let plain = WeightReading(kilograms: 70, measuredAt: Engine.start)
        var whole = plain
        whole.bodyComposition = BodyComposition(bodyFatPercentage: 21.4, bodyWaterMass: 40.5)
        // the drivers' rule (RecordMerging) reaches the store through the sink: the store itself knows no weights
        try await sink.store([DeviceRecord(reading: .weight(plain))])
        try await sink.store([DeviceRecord(reading: .weight(whole))])
        try await sink.store([DeviceRecord(reading: .weight(plain))])
        #expect(try store.readings.all(device: mac).map(\.reading) == [.weight(whole)])
        let later = Timestamp(secondsSince1970: Engine.start.secondsSince1970 + 60)
        whole.measuredAt = later
        var alone = plain
        alone.measuredAt = later
        try await sink.store([DeviceRecord(reading: .weight(whole))])
        try await sink.store([DeviceRecord(reading: .weight(alone))])
        #expect(try store.readings.all(device: mac).map(\.reading).last == .weight(whole))
        #expect(try store.readings.all(device: mac).count == 2)
    }

    @Test("an oximeter without spot-checks measures from its settled continuous values; it has nothing to sync")
    func continuousOximeter() async throws {
        let mac = MACAddress(Self.plxs)!
        var device = Self.device("PLXS", Self.plxs, records: 0)
        device.spotCheck = false
        let scripted = SimulatedReading(["spo2": .number(96), "pulse": .number(71), "pi": .number(2.3)])
        device.nextMeasurements = [scripted]
        let engine = try Engine([device])
        let callback = try await engine.callback(request(.measure, .pulseOximeter, Self.plxs))
        #expect(callback.status == ActionStatus(action: .measure, ran: [.success]))
        // the settled value, never the early estimates (92, 95) or the live samples marked ongoing (97)
        guard case .list(let objects)? = callback.result, objects.count == 1 else {
            Issue.record("not one reading: \(String(describing: callback.result))")
            return
        }
        #expect(objects[0].json.hasPrefix(#"{"oxygen_saturation":96,"heart_rate":71,"perfusion_index":2.3,"#))
        #expect(objects[0].measuredAt == Engine.start)
        #expect(try engine.store.readings.all(device: mac).count == 1)
        // no Record Access Control Point: a sync is not something it can do; nor a memory in the fleet
        let sync = try await engine.callback(request(.sync, .pulseOximeter, Self.plxs))
        #expect(sync.reason == .deviceUnsupported)
        device.records = RecordsScript(
            generate: GeneratedRecords(count: 1, from: "2026-11-19 07:00:00", to: "2026-11-19 07:00:00"))
        #expect(throws: FleetError.self) { try SimulatedWorld(fleet: Fleet(devices: [device]), start: Engine.start) }
        // nobody measures: a timeout, after 2 minutes of the world's time
        device.records = nil
        let idle = try Engine([device], deviceUser: UserScript(cancelAt: .measure))
        #expect(try await idle.callback(request(.measure, .pulseOximeter, Self.plxs)).reason == .deviceTimeout)
        #expect(idle.world.clock.elapsedTime >= StandardWaits.measurement)
    }

    @Test("a device without a clock: its undated reading is dated at the request's start, and is the measurement")
    func undated() async throws {
        let mac = MACAddress("004D3208D317")!
        var device = Self.device("HTS", mac.description, records: 0)
        device.clock = false
        let scripted = SimulatedReading(["temperature": .number(37.2)])
        device.nextMeasurements = [scripted]
        let engine = try Engine([device])
        let callback = try await engine.callback(request(.measure, .healthThermometer, mac.description))
        #expect(callback.status == ActionStatus(action: .measure, ran: [.success]))
        guard case .list(let objects)? = callback.result else {
            Issue.record("no result: \(callback.reason?.rawValue ?? "")")
            return
        }
        #expect(objects.map(\.json) == [#"{"temperature":37.2,"measured_at":"2026-11-20 08:00:00"}"#])
        // without a clock it keeps no records: a fleet that gives it some is refused
        device.records = RecordsScript(list: [scripted])
        device.records?.list?[0].measuredAt = "2026-11-19 07:00:00"
        #expect(throws: FleetError.self) { try SimulatedWorld(fleet: Fleet(devices: [device]), start: Engine.start) }
        var meter = Self.device("GLS", Self.gls)
        meter.clock = false
        #expect(throws: FleetError.self) { try SimulatedWorld(fleet: Fleet(devices: [meter]), start: Engine.start) }
    }

    @Test("a meter's measurement is the next record it notifies; nobody measuring is a timeout after 2 minutes")
    func glucose() async throws {
        let mac = MACAddress(Self.gls)!
        let engine = try Engine([Self.device("GLS", Self.gls)])
        let callback = try await engine.callback(request(.measure, .glucoseMeter, Self.gls))
        #expect(callback.status == ActionStatus(action: .measure, ran: [.success]))
        // the meter keeps the new record too: a sync brings it with the others, stored once
        #expect(await engine.world.storedReadings(of: mac).count == 6)
        let sync = try await engine.callback(request(.sync, .glucoseMeter, Self.gls))
        #expect(Self.times(sync).count == 5)
        #expect(try engine.store.readings.all(device: mac).count == 6)
        #expect(await engine.world.storedReadings(of: mac).isEmpty)

        let idle = try Engine([Self.device("GLS", Self.gls)], deviceUser: UserScript(cancelAt: .measure))
        let timedOut = try await idle.callback(request(.measure, .glucoseMeter, Self.gls))
        #expect(timedOut.reason == .deviceTimeout)
        #expect(idle.world.clock.elapsedTime >= StandardWaits.measurement)
        #expect(await idle.world.storedReadings(of: mac).count == 5)
    }

    @Test("an oximeter without the PO3's vendor service: no authentication, RACP sync, spot-check, no PO3 codes")
    func oximeter() async throws {
        let mac = MACAddress(Self.plxs)!
        let engine = try Engine([Self.device("PLXS", Self.plxs)])
        let measured = try await engine.callback(request(.addSyncMeasure, .pulseOximeter, Self.plxs))
        #expect(measured.status == ActionStatus(action: .addSyncMeasure, ran: [.success, .success, .success]))
        #expect(try engine.store.readings.all(device: mac).count == 6)
        // it keeps the new spot-check until a sync has stored it, which stores it once
        #expect(await engine.world.storedReadings(of: mac).count == 1)
        _ = try await engine.callback(request(.sync, .pulseOximeter, Self.plxs))
        #expect(await engine.world.storedReadings(of: mac).isEmpty)
        #expect(try engine.store.readings.all(device: mac).count == 6)

        let dropping = try Engine([Self.device("PLXS", Self.plxs, failures: FailureScript(disconnectAfter: 2))])
        let failed = try await dropping.callback(request(.sync, .pulseOximeter, Self.plxs))
        // a dropped RACP transfer deletes nothing: the oximeter keeps all five
        #expect(failed.reason == .deviceDisconnected)
        #expect(await dropping.world.storedReadings(of: mac).count == 5)
    }

    @Test("an advertiser is a generic device by its service, whatever its name, unless it names a vendor model")
    func advertisements() {
        func ad(_ name: String, _ service: UInt16) -> Advertisement {
            Advertisement(
                mac: MACAddress("004D3208D399")!, localName: name, services: [service], isPaired: true, rssi: -50)
        }
        #expect(ad("Omron M7 1234", 0x1810).isDevice(of: .bloodPressureMonitor))
        #expect(ad("BPS 1234", 0x1810).isDevice(of: .bloodPressureMonitor))
        #expect(!ad("BPS 1234", 0x1810).isDevice(of: .bp5))
        #expect(!ad("BP5 1234", 0x1810).isDevice(of: .bloodPressureMonitor))
        #expect(ad("BP5 1234", 0x1810).isDevice(of: .bp5))
        #expect(!ad("Omron M7 1234", 0x1808).isDevice(of: .bloodPressureMonitor))
        #expect(ad("Contour 7", 0x1808).isDevice(of: .glucoseMeter))
    }

    @Test("a generic device reports no device errors: a fleet that scripts one is refused, naming the path")
    func fleetFailures() {
        for failures in [
            FailureScript(duringMeasurement: 3), FailureScript(duringSync: SyncFailure(afterRecords: 1, code: 4)),
        ] {
            #expect(throws: FleetError.self) {
                _ = try SimulatedWorld(
                    fleet: Fleet(devices: [Self.device("WSS", "004D3208D316", failures: failures)]), start: Engine.start
                )
            }
        }
        do {
            _ = try SimulatedWorld(
                fleet: Fleet(devices: [
                    Self.device("HTS", "004D3208D317", failures: FailureScript(duringMeasurement: 1))
                ]),
                start: Engine.start)
        } catch {
            #expect(
                error.description
                    == "devices[0].failures of a standard SIG device (903) are atConnect and disconnectAfter: it reports no device errors"
            )
        }
        // a body composition service on a scale that has none, or in an order nobody sends, or an impossible body fat
        var hs4s = Self.device("HS4S", "004D3208D30B")
        hs4s.bodyComposition = "afterWeight"
        var sideways = Self.device("WSS", Self.wss)
        sideways.bodyComposition = "during"
        let fat = SimulatedReading(measuredAt: "2026-11-19 07:00:00", ["weight": .number(70), "bodyFat": .number(80)])
        var obese = Self.device("WSS", Self.wss, records: 0)
        obese.records?.list = [fat]
        for (device, expected) in [
            (
                hs4s,
                "devices[0].bodyComposition is for the generic weight scale (WSS) only: the HS4S sends its weight within it"
            ),
            (sideways, "devices[0].bodyComposition must be afterWeight or beforeWeight"),
            (obese, "devices[0].records.list[0].bodyFat must be from 3.0 to 75.0"),
        ] {
            #expect(throws: FleetError.self) {
                try SimulatedWorld(fleet: Fleet(devices: [device]), start: Engine.start)
            }
            do {
                _ = try SimulatedWorld(fleet: Fleet(devices: [device]), start: Engine.start)
            } catch {
                #expect(error.description == expected)
            }
        }
    }
}
