import Foundation
import HealthGATT
import LayeredProtocol
import Testing
import VitalCore
import VitalDevices
import VitalSimulation

@Suite("Simulated world")
struct WorldTests {
    @Test(
        "for any seed, what the simulator stores is exactly what the driver reads back",
        arguments: [1, 2, 3, 99, 12345] as [UInt64])
    func property(seed: UInt64) async throws {
        let models = ["BP5", "BPTRACK", "BG5", "HS4", "HS4S", "THV3", "PO3", "AM3S", "AM4"]
        let devices = models.enumerated().map { index, model in
            FleetDevice(
                model: model, mac: String(format: "A0B1C2D3E4%02X", index),
                records: RecordsScript(
                    generate: GeneratedRecords(
                        count: 25, seed: seed &+ UInt64(index), from: "2026-01-01 00:00:00", to: "2026-03-01 00:00:00"))
            )
        }
        let world = try SimulatedWorld(fleet: Fleet(devices: devices), start: start)
        for configuration in world.configurations {
            let expected = await world.storedReadings(of: configuration.mac)
            #expect(expected.count == 25)
            let connection = try await world.connect(to: configuration.mac)
            let driver = makeDriver(for: configuration.entry, connection: connection) { world.clock.wallTime }
            if let po3 = driver as? PulseOximeterDriver { try await po3.authenticate(userID: "u") }
            let sink = MemorySink()
            #expect(try await driver.sync(into: sink) { _ in } == 25, "\(configuration.entry.model)")
            // an activity monitor's days are marked timeUnverified: its clock cannot be read
            #expect(sink.readings == expected.map(unverifiedIfDay), "\(configuration.entry.model)")
            #expect(await world.storedReadings(of: configuration.mac).isEmpty)
            await connection.disconnect()
        }
    }

    @Test("generated values are plausible")
    func plausible() async throws {
        let world = try SimulatedWorld(fleet: .default, start: start)
        var generated: [Reading] = []
        for configuration in world.configurations { generated += await world.storedReadings(of: configuration.mac) }
        // five generated on each of the 17 models that keep records, and the four weights of the scale's two users
        #expect(generated.count == 5 * 17 + 4)
        for reading in generated {
            switch reading {
            case .bloodPressure(let bp): #expect(bp.systolic > bp.diastolic && (40...200).contains(bp.heartRate ?? 0))
            case .oximetry(let po): #expect((70...100).contains(po.oxygenSaturation))
            case .glucose(let bg): #expect((40...400).contains(bg.mgPerDeciliter))
            case .weight(let kg): #expect((30...200).contains(kg.kilograms))
            case .temperature(let t): #expect((35...42).contains(t.celsius))
            case .activity(let day): #expect((0...100).contains(day.sleepEfficiency) && day.steps >= 0)
            case .band, .heartRate: Issue.record("a band day or heart-rate recording in a device's memory")
            }
        }
    }

    @Test("with radio timing, 10,000 glucose records take 75 s of virtual time and no sleeping")
    func radioTiming() async throws {
        let world = try world(
            FleetDevice(
                model: "BG5", mac: "004D3208D308",
                records: RecordsScript(
                    generate: GeneratedRecords(count: 10_000, from: "2025-01-01 00:00:00", to: "2026-01-01 00:00:00")),
                radio: RadioTiming(connectionIntervalMilliseconds: 7.5, notificationsPerEvent: 1)))
        let wall = ContinuousClock().now
        let driver = try await driver(world, "004D3208D308")
        #expect(try await driver.sync(into: MemorySink()) { _ in } == 10_000)
        let virtual = world.clock.elapsedTime
        #expect(virtual >= .seconds(75) && virtual < .seconds(75.2))
        #expect(ContinuousClock().now - wall < .seconds(30))
    }

    @Test("a device sends notifications and indications only on characteristics the central subscribed to")
    func subscriptions() async throws {
        let world = try world(
            FleetDevice(model: "BG5", mac: "004D3208D308", records: listedRecords(.glucose, count: 3)))
        let connection = try await world.connect(to: MACAddress("004D3208D308")!)
        // the vendor status is not subscribed: a measurement's status notifications never come, the link times out
        try await connection.write(GATTCharacteristics.vendorControlPoint, VendorCommand.startMeasurement.encoded)
        let silent = await #expect(throws: DeviceError.self) { try await connection.nextEvent() }
        #expect(silent?.code == .disconnected)
        // a RACP write without its indications enabled is refused, as GLS requires (ATT error 0xFD)
        let again = try await world.connect(to: MACAddress("004D3208D308")!)
        let count = RecordAccessControlPoint.reportNumberOfStoredRecords(.all).encoded()
        let refused = await #expect(throws: DeviceError.self) {
            try await again.write(GATTCharacteristics.glucoseRACP, count)
        }
        #expect(refused?.code == .protocolViolation && refused?.message.contains("0xFD") == true)
        // subscribed: the answer comes as an indication on the RACP
        try await again.subscribe(GATTCharacteristics.glucoseRACP)
        try await again.write(GATTCharacteristics.glucoseRACP, count)
        guard case .indication(GATTCharacteristics.glucoseRACP, let bytes, _) = try await again.nextEvent() else {
            Issue.record("no indication on the RACP")
            return
        }
        let stored = await world.storedReadings(of: MACAddress("004D3208D308")!).count
        #expect(stored == 4)  // the 3 listed, and the live reading the meter keeps
        #expect(try RecordAccessControlPoint(bytes: bytes) == .numberOfStoredRecordsResponse(UInt16(stored)))
    }

    @Test("a device keeps its memory, sequence numbers, generator and spent failures across a save and restore")
    func persistence() async throws {
        let fleet = Fleet(devices: [
            FleetDevice(
                model: "BG5", mac: "004D3208D308", records: listedRecords(.glucose, count: 5),
                failures: FailureScript(atConnect: true))
        ])
        let first = try SimulatedWorld(fleet: fleet, start: start)
        _ = await #expect(throws: DeviceError.self) { try await first.connect(to: MACAddress("004D3208D308")!) }
        let driver = try await driver(first, "004D3208D308")
        _ = try await driver.measure(MeasureOptions(), into: MemorySink()) { _ in }
        _ = try await driver.sync(into: MemorySink()) { _ in }
        let saved = await first.state()
        let restored = WorldState(
            devices: try saved.devices.mapValues { state throws(FleetError) in try DeviceState(json: state.json) })
        #expect(restored == saved)
        let second = try SimulatedWorld(fleet: fleet, state: restored, start: start)
        #expect(await second.storedReadings(of: MACAddress("004D3208D308")!).isEmpty)  // deleted stays deleted
        let again = try await VitalSimulationTests.driver(second, "004D3208D308")  // the connect failure was spent
        let next = try await again.measure(MeasureOptions(), into: MemorySink()) { _ in }
        #expect(next.sequenceNumber == 7)
        #expect(await second.state().devices["004D3208D308"]?.measurementsTaken == 2)
    }

    @Test("a restored state the device cannot hold is refused and changes nothing")
    func restoreChecksRecords() async throws {
        let fleet = Fleet(devices: [
            FleetDevice(model: "BG5", mac: "004D3208D308", records: listedRecords(.glucose, count: 2))
        ])
        let world = try SimulatedWorld(fleet: fleet, start: start)
        let mac = MACAddress("004D3208D308")!
        let before = try #require(await world.deviceState(of: mac))
        var foreign = before
        let reading = BloodPressureReading(
            systolic: 120, diastolic: 80, measuredAt: Timestamp(parsing: "2026-11-19 07:00:00")!)
        foreign.records.append(StoredRecord(sequenceNumber: 3, reading: .bloodPressure(reading)))
        await #expect(
            throws: FleetError(path: "state.004D3208D308.records[2]", message: "is not a reading a BG5 takes")
        ) {
            try await world.restore(foreign, for: mac)
        }
        #expect(await world.deviceState(of: mac) == before)
        // a state it can hold replaces what it remembers
        var emptied = before
        emptied.records = []
        try await world.restore(emptied, for: mac)
        #expect(await world.storedReadings(of: mac).isEmpty)
    }

    @Test("the built-in fleet has one device of each model with fixed MACs")
    func defaultFleet() throws {
        #expect(Fleet.default.devices.count == 23)
        #expect(Set(Fleet.default.devices.map(\.mac)).count == 23)
        #expect(Fleet.default.devices.first?.mac == "004D3208D2F4")
        let json = Fleet.default.json
        #expect(try Fleet(json: json) == Fleet.default)
    }

    @Test("fleet files: a full example parses, and every mistake names its path")
    func fleetFile() throws {
        let example = """
            {
              "start": "2026-11-20 08:00:00",
              "user": {"cancelAt": "sync", "declineConnect": false, "qrCode": "BP5:004D3208D2F4"},
              "devices": [
                {"model": "BP5", "mac": "004d3208d2f4", "serial": "BP5-1", "firmware": "1.2.0", "battery": 80,
                 "paired": true, "inRange": true,
                 "records": {"list": [{"measuredAt": "2026-11-19 07:00:00", "systolic": 121, "diastolic": 79, "pulse": 66}]},
                 "nextMeasurements": [{"systolic": 118, "diastolic": 76, "pulse": 70, "arrhythmia": false}],
                 "failures": {"duringMeasurement": 3, "disconnectAfter": 2},
                 "radio": {"connectionIntervalMilliseconds": 7.5, "notificationsPerEvent": 1, "mtu": 23}},
                {"model": "BG5", "mac": "004D3208D308",
                 "records": {"generate": {"count": 3, "seed": 7, "from": "2026-11-01 00:00:00", "to": "2026-11-19 00:00:00"}}}
              ]
            }
            """
        let fleet = try Fleet(json: Array(example.utf8))
        #expect(fleet.devices.count == 2 && fleet.user.cancelAt == .sync)
        #expect(throws: Never.self) { try SimulatedWorld(fleet: fleet, start: start) }

        let mistakes: [(String, String)] = [
            (#"{"devices": [{"model": "BP9", "mac": "004D3208D2F4"}]}"#, "devices[0].model"),
            (#"{"devices": [{"model": "BP5", "mac": "XYZ"}]}"#, "devices[0].mac"),
            (#"{"devices": [{"model": "BP5"}]}"#, "devices[0].mac"),
            (#"{"devices": [{"model": "BP5", "mac": "004D3208D2F4", "battery": 101}]}"#, "devices[0].battery"),
            (
                #"{"devices": [{"model": "BP5", "mac": "004D3208D2F4"}, {"model": "BP7", "mac": "004D3208D2F4"}]}"#,
                "devices[1].mac"
            ),
            (
                #"{"devices": [{"model": "BP5", "mac": "004D3208D2F4", "records": {"list": [{"measuredAt": "2026-11-19 07:00:00", "systolic": 80, "diastolic": 90}]}}]}"#,
                "devices[0].records.list[0].diastolic"
            ),
            (
                #"{"devices": [{"model": "BG5", "mac": "004D3208D2F4", "records": {"list": [{"measuredAt": "yesterday", "glucose": 90}]}}]}"#,
                "devices[0].records.list[0].measuredAt"
            ),
            (
                #"{"devices": [{"model": "BP3L", "mac": "004D3208D2F4", "records": {"list": [{"measuredAt": "2026-11-19 07:00:00", "systolic": 120, "diastolic": 80}]}}]}"#,
                "devices[0].records"
            ),
            (
                #"{"devices": [{"model": "BP5", "mac": "004D3208D2F4", "radio": {"connectionIntervalMilliseconds": 1, "notificationsPerEvent": 1}}]}"#,
                "devices[0].radio.connectionIntervalMilliseconds"
            ),
            (
                #"{"devices": [{"model": "PO3", "mac": "004D3208D2F4", "authenticationResult": 9}]}"#,
                "devices[0].authenticationResult"
            ),
            (
                #"{"devices": [{"model": "AM4", "mac": "004D3208D306", "records": {"list": [{"date": "2026-11-19", "steps": 1, "calories": 1, "sleepMinutes": 1, "sleepEfficiency": 90}, {"date": "2026-11-19", "steps": 2, "calories": 2, "sleepMinutes": 2, "sleepEfficiency": 91}]}}]}"#,
                "devices[0].records"
            ),
            (
                #"{"devices": [{"model": "AM3S", "mac": "004D3208D305", "records": {"generate": {"count": 3, "from": "2026-11-19 08:00:00", "to": "2026-11-19 20:00:00"}}}]}"#,
                "devices[0].records"
            ),
            (
                #"{"devices": [{"model": "BG5", "mac": "004D3208D308", "records": {"generate": {"count": 3, "from": "2026-11-19 08:00:00", "to": "2026-11-18 20:00:00"}}}]}"#,
                "devices[0].records.generate"
            ),
            (
                #"{"devices": [{"model": "BG5", "mac": "004D3208D308", "records": {"generate": {"count": 65001, "from": "2026-11-19 08:00:00", "to": "2026-11-19 20:00:00"}}}]}"#,
                "devices[0].records.generate.count"
            ),
            (#"{"user": {"cancelAt": "later"}, "devices": []}"#, "user.cancelAt"),
            (#"{"start": "now", "devices": []}"#, "start"),
            (#"{"devices": [{"model": "BP5", "mac": 42}]}"#, "devices[0].mac"),
            (#"{"devices": "#, "fleet"),
        ]
        for (json, path) in mistakes {
            do throws(FleetError) {
                let fleet = try Fleet(json: Array(json.utf8))
                _ = try SimulatedWorld(fleet: fleet, start: start)
                Issue.record("accepted: \(json)")
            } catch {
                #expect(error.path == path, "\(json)")
            }
        }
    }
}
