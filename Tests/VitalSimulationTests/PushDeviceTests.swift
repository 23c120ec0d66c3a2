import HealthGATT
import LayeredProtocol
import Locking
import Testing
import VitalBridge
import VitalCore
import VitalDevices
import VitalSimulation

@Suite("Catalog")
struct CatalogTests {
    @Test("every model has its family, profile, reach and capabilities")
    func entries() {
        #expect(DeviceCatalog.all.count == 23)
        for entry in DeviceCatalog.all {
            #expect(entry.measuresLive == entry.model.supports(.measure))
            #expect(entry.storesRecords == entry.model.supports(.sync))
            #expect(entry.reach == (entry.model == .bg1 ? .wired : .bluetooth))
        }
        #expect(DeviceCatalog.entry(for: .bp7s).profile.serviceUUID == 0x1810)
        #expect(DeviceCatalog.entry(for: .bg5).profile.serviceUUID == 0x1808)
        #expect(DeviceCatalog.entry(for: .hs2).profile.serviceUUID == 0x181D)
        #expect(DeviceCatalog.entry(for: .thv3).profile.serviceUUID == 0x1809)
        #expect(DeviceCatalog.entry(for: .po3).profile.serviceUUID == 0x1822)
        #expect(DeviceCatalog.entry(for: .am4).family == .activityMonitor)
        #expect(DeviceCatalog.entry(for: .fitPulse9615N).family == .smartband)
        #expect(DeviceCatalog.entry(for: .smarteeTraining9616N).profile.serviceUUID == 0xFFD0)
        #expect(DeviceCatalog.entry(for: .heartRateSensor).profile.serviceUUID == 0x180D)
        #expect(DeviceCatalog.entry(for: .heartRateSensor).measuresLive)
        #expect(!DeviceCatalog.entry(for: .heartRateSensor).storesRecords)
        #expect(DeviceCatalog.entry(for: .hs4s).measuresBodyComposition)
        #expect(!DeviceCatalog.entry(for: .bp3l).storesRecords)
    }

    @Test("device errors become the callback reason ERROR-<devicemodel>-<code>")
    func reasons() {
        #expect(DeviceError(.deviceReported, deviceCode: 3, message: "").reason(for: .po3).rawValue == "ERROR-300-3")
        #expect(DeviceError(.cancelled, message: "").reason(for: .bp5) == .cancel)
        #expect(DeviceError(.notFound, message: "").reason(for: .bp5) == .deviceNotFound)
        #expect(DeviceError(.disconnected, message: "").reason(for: .bp5).rawValue == "ERROR_DEVICE_DISCONNECTED")
        #expect(DeviceErrorCodes.codes(for: .pulseOximeter)[111] == "user authentication failed")
        // every kind has a reason of its own, declared once on LayeredReason (and documented: CodesTests)
        let kinds: [(DeviceError.Code, LayeredReason)] = [
            (.busy, .deviceBusy), (.connectionFailed, .deviceConnectionFailed),
            (.protocolViolation, .deviceProtocolViolation), (.authenticationFailed, .deviceAuthenticationFailed),
            (.unsupported, .deviceUnsupported), (.storeFailed, .deviceStoreFailed), (.deviceReported, .deviceFailed),
            (DeviceError.Code(rawValue: "somethingNew"), .deviceFailed),
        ]
        for (code, reason) in kinds { #expect(DeviceError(code, message: "").reason(for: .bp5) == reason) }
    }
}

/// A sink that checks, at every store, that the device still holds what is being stored.
final class WitnessSink: RecordSink, Sendable {
    let world: SimulatedWorld
    let mac: MACAddress
    let inner = MemorySink()
    let violations = Locked(0)

    init(world: SimulatedWorld, mac: MACAddress) {
        self.world = world
        self.mac = mac
    }

    func store(_ records: [DeviceRecord]) async throws {
        let onDevice = await world.storedReadings(of: mac)
        let live = records.count == 1 && !onDevice.contains(records[0].reading)
        if !live {
            for record in records where !onDevice.contains(record.reading) { violations.withLock { $0 += 1 } }
        }
        try await inner.store(records)
    }
}

@Suite("Blood pressure, scale and thermometer drivers")
struct PushDeviceTests {
    static let mac = "004D3208D2F4"

    @Test("sync stores every pushed reading before confirming it; the device forgets them only then")
    func sync() async throws {
        let world = try world(
            FleetDevice(model: "BP5", mac: Self.mac, records: listedRecords(.bloodPressure, count: 6)))
        let expected = await world.storedReadings(of: MACAddress(Self.mac)!)
        let driver = try await driver(world, Self.mac)
        let sink = WitnessSink(world: world, mac: MACAddress(Self.mac)!)
        let progress = Locked<[Int]>([])
        let count = try await driver.sync(into: sink) { update in progress.withLock { $0.append(update.stored) } }
        #expect(count == 6)
        #expect(sink.inner.readings == expected)
        #expect(sink.violations.withLock { $0 } == 0)
        #expect(progress.withLock { $0 } == [1, 2, 3, 4, 5, 6])
        #expect(await world.storedReadings(of: MACAddress(Self.mac)!).isEmpty)
    }

    @Test("a live measurement streams the cuff pressure and stores the reading")
    func measure() async throws {
        let next = SimulatedReading([
            "systolic": .number(128), "diastolic": .number(84), "pulse": .number(71), "arrhythmia": .flag(true),
        ])
        let world = try world(
            FleetDevice(
                model: "BP5", mac: Self.mac, records: listedRecords(.bloodPressure, count: 2), nextMeasurements: [next])
        )
        let driver = try await driver(world, Self.mac)
        let sink = MemorySink()
        let samples = Locked<[LiveSample]>([])
        let record = try await driver.measure(MeasureOptions(), into: sink) { sample in
            samples.withLock { $0.append(sample) }
        }
        guard case .bloodPressure(let reading) = record.reading else {
            Issue.record("not a BP reading")
            return
        }
        #expect(
            reading.systolic == 128 && reading.diastolic == 84 && reading.heartRate == 71 && reading.arrhythmia == true)
        #expect(reading.measuredAt == Timestamp(secondsSince1970: start.secondsSince1970 + 40))
        #expect(
            samples.withLock { $0 } == [.cuffPressure(40), .cuffPressure(120), .cuffPressure(180), .cuffPressure(140)])
        // the two stored readings were kept too, before the live one
        #expect(sink.stored.count == 3 && sink.stored.last == record)
    }

    @Test("a device error during the measurement carries the device's code", arguments: [0, 3, 17])
    func measurementError(code: Int) async throws {
        let world = try world(
            FleetDevice(model: "BP7", mac: Self.mac, failures: FailureScript(duringMeasurement: code)))
        let driver = try await driver(world, Self.mac)
        let error = await #expect(throws: DeviceError.self) {
            try await driver.measure(MeasureOptions(), into: MemorySink()) { _ in }
        }
        #expect(error?.code == .deviceReported && error?.deviceCode == code)
        #expect(error?.reason(for: .bp7).rawValue == "ERROR-104-\(code)")
        // one-shot: the next measurement works
        #expect(try await driver.measure(MeasureOptions(), into: MemorySink()) { _ in }.sequenceNumber == nil)
    }

    @Test(
        "every model that measures live returns a reading of its category",
        arguments: ["BP5", "BP3L", "BP7", "HS4", "HS4S", "HS2", "THV3"])
    func everyModelMeasures(model: String) async throws {
        let world = try world(FleetDevice(model: model, mac: Self.mac))
        let driver = try await driver(world, Self.mac)
        let record = try await driver.measure(MeasureOptions(), into: MemorySink()) { _ in }
        #expect(record.reading.category == DeviceModel(modelString: model)!.category)
    }

    @Test("the user stopping the measurement is a cancel")
    func userCancel() async throws {
        let world = try world(FleetDevice(model: "THV3", mac: Self.mac), user: UserScript(cancelAt: .measure))
        let driver = try await driver(world, Self.mac)
        let error = await #expect(throws: DeviceError.self) {
            try await driver.measure(MeasureOptions(), into: MemorySink()) { _ in }
        }
        #expect(error?.code == .cancelled)
    }

    @Test("a connection failure happens once")
    func connectFailure() async throws {
        let world = try world(FleetDevice(model: "HS2", mac: Self.mac, failures: FailureScript(atConnect: true)))
        let error = await #expect(throws: DeviceError.self) { try await world.connect(to: MACAddress(Self.mac)!) }
        #expect(error?.code == .connectionFailed)
        _ = try await world.connect(to: MACAddress(Self.mac)!)
        let missing = await #expect(throws: DeviceError.self) {
            try await world.connect(to: MACAddress("AABBCCDDEEFF")!)
        }
        #expect(missing?.code == .notFound)
    }

    @Test("a device error after K records keeps the rest on the device")
    func syncError() async throws {
        let world = try world(
            FleetDevice(
                model: "BP7S", mac: Self.mac, records: listedRecords(.bloodPressure, count: 5),
                failures: FailureScript(duringSync: SyncFailure(afterRecords: 2, code: 13))))
        let driver = try await driver(world, Self.mac)
        let sink = MemorySink()
        let error = await #expect(throws: DeviceError.self) { try await driver.sync(into: sink) { _ in } }
        #expect(error?.deviceCode == 13)
        #expect(sink.stored.count == 2)
        #expect(await world.storedReadings(of: MACAddress(Self.mac)!).count == 3)
    }

    @Test("a disconnect mid-transfer, then a reconnect, yields every record exactly once")
    func disconnectAndResume() async throws {
        let world = try world(
            FleetDevice(
                model: "HS4", mac: Self.mac, records: listedRecords(.scale, count: 7),
                failures: FailureScript(disconnectAfter: 3)))
        let expected = await world.storedReadings(of: MACAddress(Self.mac)!)
        let sink = MemorySink()
        let first = try await driver(world, Self.mac)
        let error = await #expect(throws: DeviceError.self) { try await first.sync(into: sink) { _ in } }
        #expect(error?.code == .disconnected)
        #expect(sink.stored.count == 3)
        let second = try await driver(world, Self.mac)
        #expect(try await second.sync(into: sink) { _ in } == 4)
        #expect(sink.readings == expected)
    }

    @Test("when the store fails, the device is not told to forget the record")
    func storeFailure() async throws {
        let world = try world(
            FleetDevice(model: "BP5", mac: Self.mac, records: listedRecords(.bloodPressure, count: 4)))
        let driver = try await driver(world, Self.mac)
        let error = await #expect(throws: DeviceError.self) {
            try await driver.sync(into: MemorySink(failAfter: 2)) { _ in }
        }
        #expect(error?.code == .storeFailed)
        #expect(await world.storedReadings(of: MACAddress(Self.mac)!).count == 2)
    }

    @Test("a cancelled sync stops and keeps the unconfirmed records")
    func cancellation() async throws {
        let world = try world(
            FleetDevice(model: "BP5", mac: Self.mac, records: listedRecords(.bloodPressure, count: 4)))
        let driver = try await driver(world, Self.mac)
        let task = Task { try await driver.sync(into: MemorySink()) { _ in } }
        task.cancel()
        let result = await task.result
        #expect(throws: DeviceError.self) { try result.get() }
        #expect(await world.storedReadings(of: MACAddress(Self.mac)!).count == 4)
    }

    @Test("HS4S sends body composition with the weight, and its body fat unsuccessful where it has none")
    func bodyComposition() async throws {
        var records = listedRecords(.scale, count: 3)
        records.list![0]["bodyFat"] = .number(21.44)
        records.list![1]["bodyFat"] = .number(30)
        let world = try world(FleetDevice(model: "HS4S", mac: Self.mac, records: records))
        let expected = await world.storedReadings(of: MACAddress(Self.mac)!)
        let driver = try await driver(world, Self.mac)
        let sink = MemorySink()
        _ = try await driver.sync(into: sink) { _ in }
        #expect(sink.readings == expected)
        // the body fat sent as 65535 is unavailable (NaN), with the status the scale's value means
        let fat = sink.readings.map { ReadingKind.weight.field(named: "fat")!.value(in: $0) }
        #expect(fat == [.number(21.4), .number(30), nil])
        #expect(sink.readings.map { $0.unavailableFields.map(\.field.name) } == [[], [], ["fat"]])
        #expect(sink.readings.map(\.annotations.status) == [[], [], .measurementUnsuccessful])
    }

    @Test("device information comes from the Device Information and Battery services")
    func info() async throws {
        let world = try world(
            FleetDevice(model: "THV3", mac: Self.mac, serial: "THV3-77", firmware: "2.1.0", battery: 64))
        let info = try await driver(world, Self.mac).deviceInfo()
        #expect(info == DeviceInfo(serialNumber: "THV3-77", firmwareRevision: "2.1.0", batteryLevel: 64))
    }

    @Test("a device that omits its serial and the Battery Service serves neither, and reports them absent")
    func partialInfo() async throws {
        let partial = try world(
            FleetDevice(model: "THV3", mac: Self.mac, firmware: "2.1.0", omits: ["serial", "battery"]))
        let mac = try #require(MACAddress(Self.mac))
        #expect(
            partial.services(of: mac).map(\.uuid).prefix(2) == [0x180A, 0x1809],
            "Device Information with the firmware only, no Battery Service")
        let info = try await driver(partial, Self.mac).deviceInfo()
        #expect(info == DeviceInfo(serialNumber: nil, firmwareRevision: "2.1.0", batteryLevel: nil))
        let bare = try world(FleetDevice(model: "THV3", mac: Self.mac, omits: ["serial", "firmware", "battery"]))
        #expect(!bare.services(of: mac).map(\.uuid).contains(0x180A))
    }
}
