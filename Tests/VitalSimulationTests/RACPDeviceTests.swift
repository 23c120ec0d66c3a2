import HealthGATT
import LayeredProtocol
import Locking
import Testing
import VitalBridge
import VitalCore
import VitalDevices
import VitalSimulation
import VitalTestSupport

@Suite("Glucose driver")
struct GlucoseDriverTests {
    static let mac = "004D3208D308"

    func glucoseDriver(_ world: SimulatedWorld) async throws -> GlucoseDriver {
        let connection = try await world.connect(to: MACAddress(Self.mac)!)
        var driver = GlucoseDriver(entry: DeviceCatalog.entry(for: .bg5), connection: connection)
        driver.batchSize = 4
        return driver
    }

    @Test("sync reads every record through the RACP, in batches, then deletes exactly those")
    func sync() async throws {
        let world = try world(FleetDevice(model: "BG5", mac: Self.mac, records: listedRecords(.glucose, count: 10)))
        let expected = await world.storedReadings(of: MACAddress(Self.mac)!)
        let driver = try await glucoseDriver(world)
        let sink = MemorySink()
        let progress = Locked<[SyncProgress]>([])
        #expect(try await driver.sync(into: sink) { update in progress.withLock { $0.append(update) } } == 10)
        #expect(sink.readings == expected)
        #expect(sink.stored.map(\.sequenceNumber) == (1...10).map { UInt16($0) })
        #expect(sink.callCount == 3)  // 4 + 4 + 2
        #expect(progress.withLock { $0.map(\.fraction) } == [0, 0.4, 0.8, 1])
        #expect(await world.storedReadings(of: MACAddress(Self.mac)!).isEmpty)
        // nothing left: the count is 0 and nothing is requested
        #expect(try await driver.sync(into: sink) { _ in } == 0)
    }

    @Test("a disconnect mid-transfer deletes nothing; resuming after the last stored record yields each once")
    func resume() async throws {
        let world = try world(
            FleetDevice(
                model: "BG5", mac: Self.mac, records: listedRecords(.glucose, count: 9),
                failures: FailureScript(disconnectAfter: 6)))
        let expected = await world.storedReadings(of: MACAddress(Self.mac)!)
        let sink = MemorySink()
        let first = try await glucoseDriver(world)
        let error = await #expect(throws: DeviceError.self) { try await first.sync(into: sink) { _ in } }
        #expect(error?.code == .disconnected)
        #expect(sink.stored.count == 4)  // one full batch of 4 committed; the 2 after it were not
        #expect(await world.storedReadings(of: MACAddress(Self.mac)!).count == 9)
        let second = try await glucoseDriver(world)
        let last = sink.stored.compactMap(\.sequenceNumber).max()
        #expect(try await second.sync(after: last, into: sink) { _ in } == 5)
        #expect(sink.readings == expected)
        #expect(await world.storedReadings(of: MACAddress(Self.mac)!).isEmpty)
    }

    @Test("a device error during the sync keeps the device's memory")
    func deviceError() async throws {
        let world = try world(
            FleetDevice(
                model: "BG5", mac: Self.mac, records: listedRecords(.glucose, count: 5),
                failures: FailureScript(duringSync: SyncFailure(afterRecords: 1, code: 0))))
        let error = await #expect(throws: DeviceError.self) {
            try await glucoseDriver(world).sync(into: MemorySink()) { _ in }
        }
        #expect(error?.deviceCode == 0 && error?.reason(for: .bg5).rawValue == "ERROR-400-0")
        #expect(await world.storedReadings(of: MACAddress(Self.mac)!).count == 5)
    }

    @Test("a store failure deletes nothing")
    func storeFailure() async throws {
        let world = try world(FleetDevice(model: "BG5", mac: Self.mac, records: listedRecords(.glucose, count: 6)))
        let error = await #expect(throws: DeviceError.self) {
            try await glucoseDriver(world).sync(into: MemorySink(failAfter: 5)) { _ in }
        }
        #expect(error?.code == .storeFailed)
        #expect(await world.storedReadings(of: MACAddress(Self.mac)!).count == 6)
    }

    @Test("a cancelled sync aborts the transfer and deletes nothing")
    func cancel() async throws {
        let world = try world(FleetDevice(model: "BG5", mac: Self.mac, records: listedRecords(.glucose, count: 6)))
        let driver = try await glucoseDriver(world)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await driver.sync(into: MemorySink()) { _ in }
        }
        let error = await #expect(throws: DeviceError.self) { try await task.value }
        #expect(error?.code == .cancelled)
        #expect(await world.storedReadings(of: MACAddress(Self.mac)!).count == 6)
    }

    @Test("a live measurement with a strip code is a new numbered record; BG1 plugs in and measures")
    func measure() async throws {
        let next = SimulatedReading(["glucose": .number(104)])
        let world = try SimulatedWorld(
            fleet: Fleet(devices: [
                FleetDevice(
                    model: "BG5", mac: Self.mac, records: listedRecords(.glucose, count: 2), nextMeasurements: [next]),
                FleetDevice(model: "BG1", mac: "004D3208D309"),
            ]),
            start: start)
        let record = try await glucoseDriver(world).measure(
            MeasureOptions(stripCode: StripCode(type: .qrCode, code: "02+3A")), into: MemorySink()
        ) { _ in }
        #expect(record.sequenceNumber == 3)
        #expect(
            record.reading
                == .glucose(
                    GlucoseReading(
                        mgPerDeciliter: 104, measuredAt: Timestamp(secondsSince1970: start.secondsSince1970 + 5))
                ))
        #expect(await world.storedReadings(of: MACAddress(Self.mac)!).count == 3)
        // BG1 is never scanned for, but connects directly
        var heard: [MACAddress] = []
        for await advertisement in world.scan(for: []) { heard.append(advertisement.mac) }
        #expect(heard == [MACAddress(Self.mac)!])
        let bg1 = try await driver(world, "004D3208D309")
        let bg1Record = try await bg1.measure(MeasureOptions(), into: MemorySink(), observer: { _ in })
        guard case .glucose = bg1Record.reading else {
            Issue.record("BG1 did not measure glucose")
            return
        }
        #expect(await world.storedReadings(of: MACAddress("004D3208D309")!).isEmpty)
    }
}

@Suite("PO3 driver")
struct PulseOximeterTests {
    static let mac = "004D3208D307"

    func po3(_ world: SimulatedWorld, _ mac: String = Self.mac) async throws -> PulseOximeterDriver {
        PulseOximeterDriver(
            entry: DeviceCatalog.entry(for: .po3), connection: try await world.connect(to: MACAddress(mac)!))
    }

    @Test("a store failure in a later batch deletes nothing: the batches before it are kept, the PO3 keeps all")
    func storeFailureInBatch() async throws {
        let world = try world(
            FleetDevice(model: "PO3", mac: Self.mac, records: listedRecords(.pulseOximeter, count: 7)))
        var driver = try await po3(world)
        driver.batchSize = 3
        try await driver.authenticate(userID: "user@example.com")
        let sink = MemorySink(failAfter: 5)
        let error = await #expect(throws: DeviceError.self) { try await driver.sync(into: sink) { _ in } }
        #expect(error?.code == .storeFailed && sink.stored.count == 3)
        #expect(await world.storedReadings(of: MACAddress(Self.mac)!).count == 7)
    }

    @Test("nothing works before the user authentication: error 111")
    func needsAuthentication() async throws {
        let world = try world(
            FleetDevice(model: "PO3", mac: Self.mac, records: listedRecords(.pulseOximeter, count: 2)))
        let error = await #expect(throws: DeviceError.self) { try await po3(world).sync(into: MemorySink()) { _ in } }
        #expect(error?.deviceCode == 111 && error?.reason(for: .po3).rawValue == "ERROR-300-111")
    }

    @Test("authentication results 1–4 allow measuring; 5–8 stop with error 111", arguments: 1...8)
    func authentication(result: Int) async throws {
        let world = try world(FleetDevice(model: "PO3", mac: Self.mac, authenticationResult: result))
        let driver = try await po3(world)
        if result <= 4 {
            #expect(try await driver.authenticate(userID: "user@example.com").rawValue == UInt8(result))
        } else {
            let error = await #expect(throws: DeviceError.self) {
                try await driver.authenticate(userID: "user@example.com")
            }
            #expect(error?.code == .authenticationFailed && error?.deviceCode == 111)
        }
    }

    @Test("after authentication: clock, battery, live measurement with SpO2, pulse, wave and PI, then history")
    func session() async throws {
        let next = SimulatedReading(["spo2": .number(98), "pulse": .number(64), "pi": .number(3.1)])
        let world = try world(
            FleetDevice(
                model: "PO3", mac: Self.mac, battery: 77, records: listedRecords(.pulseOximeter, count: 3),
                nextMeasurements: [next]))
        let expected = await world.storedReadings(of: MACAddress(Self.mac)!)
        var driver = try await po3(world)
        driver.batchSize = 2
        try await driver.authenticate(userID: "user@example.com")
        try await driver.setTime(start)
        #expect(try await driver.batteryLevel() == 77)
        let samples = Locked<[LiveSample]>([])
        let record = try await driver.measure(MeasureOptions(), into: MemorySink()) { sample in
            samples.withLock { $0.append(sample) }
        }
        #expect(
            record.reading
                == .oximetry(
                    OximetryReading(
                        oxygenSaturation: 98, heartRate: 64, perfusionIndex: 3.1,
                        measuredAt: Timestamp(secondsSince1970: start.secondsSince1970 + 20))))
        #expect(samples.withLock { $0 }.contains(.pulseWave(90)))
        #expect(samples.withLock { $0 }.contains(.oximetry(spO2: 97, pulseRate: 70, perfusionIndex: nil)))
        let sink = MemorySink()
        let progress = Locked<[Double]>([])
        #expect(try await driver.sync(into: sink) { update in progress.withLock { $0.append(update.fraction) } } == 3)
        // the records, each with the wave the PO3 sent before it: records 1 and 2 have one (18 samples), 3 none
        let waves = sink.readings.map { reading -> [Int]? in
            guard case .oximetry(let oximetry) = reading else { return nil }
            return oximetry.wave
        }
        #expect(waves.map { $0?.count } == [18, 18, nil])
        #expect(sink.readings == expected)
        // stored in batches of two, then the rest
        #expect(progress.withLock { $0 } == [0, 2.0 / 3, 1])
        #expect(await world.storedReadings(of: MACAddress(Self.mac)!).isEmpty)
        await driver.disconnect()
        let error = await #expect(throws: DeviceError.self) { try await driver.batteryLevel() }
        #expect(error?.code == .disconnected)
    }

    @Test("a disconnect during the history is PO3 error 6 and keeps the history; a reset erases it")
    func disconnectAndReset() async throws {
        let world = try world(
            FleetDevice(
                model: "PO3", mac: Self.mac, records: listedRecords(.pulseOximeter, count: 4),
                failures: FailureScript(disconnectAfter: 2)))
        let driver = try await po3(world)
        try await driver.authenticate(userID: "u")
        let error = await #expect(throws: DeviceError.self) { try await driver.sync(into: MemorySink()) { _ in } }
        #expect(error?.code == .disconnected && error?.deviceCode == 6)
        #expect(await world.storedReadings(of: MACAddress(Self.mac)!).count == 4)
        let again = try await po3(world)
        try await again.authenticate(userID: "u")
        try await again.factoryReset()
        #expect(await world.storedReadings(of: MACAddress(Self.mac)!).isEmpty)
    }

    @Test("device errors during a measurement carry the PO3 error IDs", arguments: [0, 3, 4, 7])
    func errors(code: Int) async throws {
        let world = try world(
            FleetDevice(model: "PO3", mac: Self.mac, failures: FailureScript(duringMeasurement: code)))
        let driver = try await po3(world)
        try await driver.authenticate(userID: "u")
        let error = await #expect(throws: DeviceError.self) {
            try await driver.measure(MeasureOptions(), into: MemorySink()) { _ in }
        }
        #expect(error?.deviceCode == code)
    }

    @Test("several PO3s at once are told apart by serial number")
    func several() async throws {
        let world = try SimulatedWorld(
            fleet: Fleet(devices: [
                FleetDevice(model: "PO3", mac: "004D3208D307", serial: "PO3-A"),
                FleetDevice(model: "PO3", mac: "004D3208D317", serial: "PO3-B"),
            ]),
            start: start)
        let first = try await po3(world, "004D3208D307")
        let second = try await po3(world, "004D3208D317")
        #expect(try await first.deviceInfo().serialNumber == "PO3-A")
        #expect(try await second.deviceInfo().serialNumber == "PO3-B")
    }
}

@Suite("Activity monitor driver")
struct ActivityMonitorTests {
    @Test("binds the profile, syncs the days, then deletes exactly those")
    func sync() async throws {
        let mac = "004D3208D306"
        let world = try world(FleetDevice(model: "AM4", mac: mac, records: listedRecords(.activityMonitor, count: 4)))
        let expected = await world.storedReadings(of: MACAddress(mac)!)
        let connection = try await world.connect(to: MACAddress(mac)!)
        let driver = ActivityMonitorDriver(entry: DeviceCatalog.entry(for: .am4), connection: connection)
        try await driver.bind(
            ActivityProfile(
                userID: 1111, age: 30, sex: .female, height: 170, weight: 60, swim: .on, distanceUnit: .kilometre))
        let sink = MemorySink()
        #expect(try await driver.sync(into: sink) { _ in } == 4)
        // the monitor's clock cannot be read: the driver marks its days timeUnverified
        #expect(sink.readings == expected.map(unverifiedIfDay))
        #expect(await world.storedReadings(of: MACAddress(mac)!).isEmpty)
        #expect(await world.state().devices[mac]?.boundUserID == 1111)
        let error = await #expect(throws: DeviceError.self) {
            try await driver.measure(MeasureOptions(), into: sink) { _ in }
        }
        #expect(error?.code == .unsupported)
    }

    @Test("a store failure in a later batch deletes no day on the monitor")
    func storeFailureInBatch() async throws {
        let mac = "004D3208D306"
        let world = try world(FleetDevice(model: "AM4", mac: mac, records: listedRecords(.activityMonitor, count: 5)))
        var driver = ActivityMonitorDriver(
            entry: DeviceCatalog.entry(for: .am4), connection: try await world.connect(to: MACAddress(mac)!))
        driver.batchSize = 2
        let sink = MemorySink(failAfter: 3)
        let error = await #expect(throws: DeviceError.self) { try await driver.sync(into: sink) { _ in } }
        #expect(error?.code == .storeFailed && sink.stored.count == 2)
        #expect(await world.storedReadings(of: MACAddress(mac)!).count == 5)
    }

    static let profile = ActivityProfile(
        userID: 2_147_483_647, age: 255, sex: .male, height: 1, weight: 255, swim: .off, distanceUnit: .mile)
    /// One vendor command of each kind.
    static let vendorCommands: [VendorCommand] = [
        .startMeasurement, .startGlucoseMeasurement(StripCode(type: .other, code: "X1")), .setTime(DateTime(start)),
        .authenticate(userID: "a@b"), .factoryReset, .bindProfile(profile), .reportActivity,
        .deleteActivity(count: 300),
    ]
    /// One vendor event of each kind.
    static let vendorEvents: [VendorEvent] = [
        .deviceError(code: 111), .transferComplete(count: 513), .authenticationResult(4), .pulseWave(99),
        .commandResult(opCode: 5, success: false),
    ]
    static let activityDay = ActivityDay(
        date: CalendarDate(year: 2026, month: 11, day: 19)!, steps: 12_345, calories: 400, sleepMinutes: 420,
        sleepEfficiency: 91, swimMinutes: 30, swimCalories: 240)

    @Test("the vendor codecs round-trip")
    func codecs() throws {
        for command in Self.vendorCommands { #expect(VendorCommand(bytes: command.encoded) == command) }
        for event in Self.vendorEvents { #expect(VendorEvent(bytes: event.encoded) == event) }
        #expect(VendorCommand(bytes: [0x09]) == nil && VendorEvent(bytes: [0x02, 1]) == nil)
        let day = Self.activityDay
        #expect(ActivityDayRecord(bytes: ActivityDayRecord(day: day).encoded)?.day == day)
        var bad = ActivityDayRecord(day: day).encoded
        bad[12] = 101
        #expect(ActivityDayRecord(bytes: bad) == nil)
    }
}
