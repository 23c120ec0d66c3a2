import HealthGATT
import Locking
import Testing
import VitalCore
import VitalDevices

private let g = GATTCharacteristics.self

/// Blood pressure measurements as a BP5 indicates them.
enum BloodPressureRecords {
    static func value(_ value: Int) -> SFloat { SFloat(mantissa: value, exponent: 0)! }
    /// 120/80 mmHg, mean 93, pulse 64, no irregular pulse, at 08:00.
    static let first = BloodPressureMeasurement(
        unit: .mmHg, systolic: value(120), diastolic: value(80), meanArterialPressure: value(93),
        timeStamp: time(8, 0).device, pulseRate: value(64), status: []
    ).encoded()
    /// 16/10.5 kPa, pulse 88, irregular pulse, at 21:15.
    static let second = BloodPressureMeasurement(
        unit: .kPa, systolic: value(16), diastolic: SFloat(mantissa: 105, exponent: -1)!,
        meanArterialPressure: value(12),
        timeStamp: time(21, 15).device, pulseRate: value(88), status: .irregularPulseDetected
    ).encoded()
    static let readings: [Reading] = [
        .bloodPressure(
            BloodPressureReading(
                systolic: 120, diastolic: 80, heartRate: 64, arrhythmia: false, measuredAt: time(8, 0).host)),
        .bloodPressure(
            BloodPressureReading(
                systolic: 16 * (1 / 0.133_322_387_415), diastolic: 10.5 * (1 / 0.133_322_387_415), heartRate: 88,
                arrhythmia: true, measuredAt: time(21, 15).host,
                // the irregular pulse bit is the arrhythmia flag and the status irregularPulse
                annotations: ReadingAnnotations(status: .irregularPulse))),
    ]
}

@Suite("Blood pressure driver against a scripted monitor")
struct BloodPressureScriptTests {
    static let table = [
        g.vendorStatus, g.vendorControlPoint, g.bloodPressureMeasurement, g.intermediateCuffPressure,
        g.serialNumber, g.firmwareRevision, g.batteryLevel,
    ]

    func driver(_ script: [ScriptStep], reads: [CharacteristicID: [UInt8]] = [:]) -> (
        any DeviceDriver, ScriptedConnection
    ) {
        let connection = ScriptedConnection(script, offering: Self.table, reads: reads)
        let driver = makeDriver(for: DeviceCatalog.entry(for: .bp5), connection: connection) { time(12, 0).host }
        return (driver, connection)
    }

    @Test("a sync stores and confirms each indicated reading, in order, until the transfer completes")
    func sync() async throws {
        let (driver, connection) = driver([
            .indicate(g.bloodPressureMeasurement, BloodPressureRecords.first),
            .indicate(g.bloodPressureMeasurement, BloodPressureRecords.second),
            // transfer complete (02), 2 records
            .notify(g.vendorStatus, [0x02, 0x02, 0x00]),
        ])
        let sink = RecordingSink()
        #expect(try await driver.sync(into: sink) { _ in } == 2)
        #expect(sink.readings == BloodPressureRecords.readings)
        #expect(sink.batchSizes == [1, 1])
        #expect(
            connection.operations == [
                .subscribe(g.vendorStatus), .subscribe(g.bloodPressureMeasurement), .confirm(1), .confirm(2),
            ])
    }

    @Test("a live measurement drains the stored readings, starts, streams the cuff and returns the reading")
    func measure() async throws {
        func cuff(_ pressure: Int) -> [UInt8] {
            IntermediateCuffPressure(unit: .mmHg, cuffPressure: SFloat(mantissa: pressure, exponent: 0)!).encoded()
        }
        let (driver, connection) = driver([
            .notify(g.vendorStatus, [0x02, 0x00, 0x00]),
            .write(g.vendorControlPoint, [0x01]),
            .notify(g.intermediateCuffPressure, cuff(40)), .notify(g.intermediateCuffPressure, cuff(180)),
            .indicate(g.bloodPressureMeasurement, BloodPressureRecords.first),
        ])
        let sink = RecordingSink()
        let samples = Locked<[LiveSample]>([])
        let record = try await driver.measure(MeasureOptions(), into: sink) { sample in
            samples.withLock { $0.append(sample) }
        }
        #expect(record.reading == BloodPressureRecords.readings[0])
        #expect(sink.readings == [BloodPressureRecords.readings[0]])
        #expect(samples.withLock { $0 } == [.cuffPressure(40), .cuffPressure(180)])
        #expect(connection.writes == [.write(g.vendorControlPoint, [0x01])])
        #expect(connection.confirmations == [1])
        #expect(connection.unplayed == 0)
    }

    @Test("a cuff error during the measurement is the device's code")
    func deviceError() async throws {
        let (driver, _) = driver([
            .notify(g.vendorStatus, [0x02, 0x00, 0x00]), .write(g.vendorControlPoint, [0x01]),
            .notify(g.vendorStatus, [0x01, 0x03]),
        ])
        let sink = RecordingSink()
        await #expect(throws: DeviceError(.deviceReported, deviceCode: 3, message: "the device reported error 3")) {
            try await driver.measure(MeasureOptions(), into: sink) { _ in }
        }
        #expect(sink.records.isEmpty)
    }

    @Test("a malformed reading fails the sync unconfirmed: the monitor keeps it")
    func malformed() async throws {
        let (driver, connection) = driver([
            .indicate(g.bloodPressureMeasurement, BloodPressureRecords.first),
            .indicate(g.bloodPressureMeasurement, Array(BloodPressureRecords.second.prefix(6))),
        ])
        let sink = RecordingSink()
        let error = await #expect(throws: DeviceError.self) { try await driver.sync(into: sink) { _ in } }
        #expect(error?.code == .protocolViolation)
        #expect(sink.readings == [BloodPressureRecords.readings[0]])
        #expect(connection.confirmations == [1])
    }

    @Test("a count that disagrees with the readings sent fails the sync; what arrived is kept")
    func countMismatch() async throws {
        let (driver, _) = driver([
            .indicate(g.bloodPressureMeasurement, BloodPressureRecords.first),
            .notify(g.vendorStatus, [0x02, 0x03, 0x00]),
        ])
        let sink = RecordingSink()
        await #expect(throws: DeviceError(.protocolViolation, message: "the device announced 3 records and sent 1")) {
            try await driver.sync(into: sink) { _ in }
        }
        #expect(sink.readings == [BloodPressureRecords.readings[0]])
    }

    @Test("a store that refuses stops the sync before the reading is confirmed")
    func storeRefused() async throws {
        let (driver, connection) = driver([.indicate(g.bloodPressureMeasurement, BloodPressureRecords.first)])
        let error = await #expect(throws: DeviceError.self) {
            try await driver.sync(into: RecordingSink(refuses: true)) { _ in }
        }
        #expect(error?.code == .storeFailed)
        #expect(connection.confirmations.isEmpty)
    }

    @Test("device information is read from the Device Information and Battery services")
    func deviceInfo() async throws {
        let (driver, connection) = driver(
            [],
            reads: [
                g.serialNumber: Array("004D3208D2F4".utf8), g.firmwareRevision: Array("1.0.2".utf8),
                g.batteryLevel: [87],
            ])
        #expect(
            try await driver.deviceInfo()
                == DeviceInfo(serialNumber: "004D3208D2F4", firmwareRevision: "1.0.2", batteryLevel: 87))
        #expect(connection.operations == [.read(g.serialNumber), .read(g.firmwareRevision), .read(g.batteryLevel)])
    }

    @Test(
        "a device lacking a Device Information string or the Battery Service reports it as absent, reading nothing",
        arguments: [
            (
                [g.serialNumber, g.firmwareRevision],
                DeviceInfo(serialNumber: "S1", firmwareRevision: "2.0", batteryLevel: nil)
            ),
            (
                [g.firmwareRevision, g.batteryLevel],
                DeviceInfo(serialNumber: nil, firmwareRevision: "2.0", batteryLevel: 40)
            ),
            ([], DeviceInfo(serialNumber: nil, firmwareRevision: nil, batteryLevel: nil)),
        ])
    func partialInfo(offered: [CharacteristicID], expected: DeviceInfo) async throws {
        let reads = [g.serialNumber: Array("S1".utf8), g.firmwareRevision: Array("2.0".utf8), g.batteryLevel: [40]]
        let connection = ScriptedConnection(
            [], offering: [g.bloodPressureMeasurement] + offered, reads: reads.filter { offered.contains($0.key) })
        let driver = makeDriver(for: DeviceCatalog.entry(for: .bp5), connection: connection) { time(12, 0).host }
        #expect(try await driver.deviceInfo() == expected)
        #expect(connection.operations == offered.map { .read($0) })
    }

    @Test("a string's trailing NUL padding is dropped")
    func paddedString() async throws {
        let (driver, _) = driver(
            [],
            reads: [
                g.serialNumber: Array("SN42".utf8) + [0, 0, 0], g.firmwareRevision: Array("1.0".utf8),
                g.batteryLevel: [5],
            ])
        #expect(try await driver.deviceInfo().serialNumber == "SN42")
    }

    @Test(
        "malformed device information is refused naming the characteristic and its bytes",
        arguments: [
            (g.batteryLevel, [101], "the battery level [65] is not one byte from 0 to 100 (percent)"),
            (g.batteryLevel, [50, 0], "the battery level [32 00] is not one byte from 0 to 100 (percent)"),
            (g.batteryLevel, [], "the battery level [] is not one byte from 0 to 100 (percent)"),
            (g.serialNumber, [0x41, 0xFF], "the serial number [41 FF] is not UTF-8"),
            (g.firmwareRevision, [0xC3], "the firmware revision [C3] is not UTF-8"),
        ] as [(CharacteristicID, [UInt8], String)])
    func malformedInfo(characteristic: CharacteristicID, bytes: [UInt8], message: String) async throws {
        var reads = [g.serialNumber: Array("S1".utf8), g.firmwareRevision: Array("2.0".utf8), g.batteryLevel: [40]]
        reads[characteristic] = bytes
        let (driver, _) = driver([], reads: reads)
        let error = await #expect(throws: DeviceError.self) { try await driver.deviceInfo() }
        #expect(error?.code == .protocolViolation)
        #expect(error?.message == message)
    }
}

@Suite("Scale and thermometer drivers against scripted devices")
struct ScaleThermometerScriptTests {
    @Test("an HS4 sync stores each indicated weight in kg")
    func scale() async throws {
        let weight = WeightMeasurement(system: .si, weight: MassValue(raw: 14_050), timeStamp: time(7, 10).device)
        let connection = ScriptedConnection(
            [.indicate(g.weightMeasurement, weight.encoded()), .notify(g.vendorStatus, [0x02, 0x01, 0x00])],
            offering: [g.vendorStatus, g.vendorControlPoint, g.weightMeasurement])
        let driver = makeDriver(for: DeviceCatalog.entry(for: .hs4), connection: connection) { time(12, 0).host }
        let sink = RecordingSink()
        #expect(try await driver.sync(into: sink) { _ in } == 1)
        // 14050 × 5 g
        #expect(sink.readings == [.weight(WeightReading(kilograms: 70.25, measuredAt: time(7, 10).host))])
        #expect(connection.subscriptions == [g.vendorStatus, g.weightMeasurement])
    }

    @Test("an unsuccessful weight is stored as NaN with its status, then confirmed")
    func unsuccessfulWeight() async throws {
        let weight = WeightMeasurement(
            system: .si, weight: MassValue(raw: 0xFFFF), timeStamp: time(7, 10).device, userID: 4)
        let connection = ScriptedConnection(
            [.indicate(g.weightMeasurement, weight.encoded()), .notify(g.vendorStatus, [0x02, 0x01, 0x00])],
            offering: [g.vendorStatus, g.vendorControlPoint, g.weightMeasurement])
        let driver = makeDriver(for: DeviceCatalog.entry(for: .hs4), connection: connection) { time(12, 0).host }
        let sink = RecordingSink()
        #expect(try await driver.sync(into: sink) { _ in } == 1)
        var expected = Reading.weight(WeightReading(kilograms: 0, measuredAt: time(7, 10).host))
        expected.markUnavailable(ReadingKind.weight.field(named: "kg")!, .nan)
        expected.annotations.status = .measurementUnsuccessful
        expected.annotations.userIndex = 4
        #expect(sink.readings == [expected])
        #expect(ReadingKind.weight.field(named: "kg")!.value(in: sink.readings[0]) == nil)
        #expect(connection.confirmations.count == 1)
    }

    @Test("a THV3 sync stores its temperature in °C")
    func thermometer() async throws {
        let temperature = TemperatureMeasurement(
            unit: .celsius, temperature: MedicalFloat(mantissa: 375, exponent: -1)!, timeStamp: time(6, 5).device)
        let connection = ScriptedConnection(
            [.indicate(g.temperatureMeasurement, temperature.encoded()), .notify(g.vendorStatus, [0x02, 0x01, 0x00])],
            offering: [g.vendorStatus, g.vendorControlPoint, g.temperatureMeasurement])
        let driver = makeDriver(for: DeviceCatalog.entry(for: .thv3), connection: connection) { time(12, 0).host }
        let sink = RecordingSink()
        #expect(try await driver.sync(into: sink) { _ in } == 1)
        #expect(sink.readings == [.temperature(TemperatureReading(celsius: 37.5, measuredAt: time(6, 5).host))])
    }

    @Test("a generic thermometer's sync takes what it indicates until it goes quiet, °F in °C")
    func genericThermometerQuiet() async throws {
        let temperature = TemperatureMeasurement(
            unit: .fahrenheit, temperature: MedicalFloat(mantissa: 995, exponent: -1)!, timeStamp: time(6, 5).device)
        let connection = ScriptedConnection(
            [.indicate(g.temperatureMeasurement, temperature.encoded()), .quiet], offering: [g.temperatureMeasurement])
        let driver = makeDriver(for: DeviceCatalog.entry(for: .healthThermometer), connection: connection) {
            time(12, 0).host
        }
        let sink = RecordingSink()
        #expect(try await driver.sync(into: sink) { _ in } == 1)
        // (99.5 − 32) × 5 / 9
        #expect(sink.readings == [.temperature(TemperatureReading(celsius: 37.5, measuredAt: time(6, 5).host))])
        #expect(connection.confirmations == [1])
        #expect(connection.writes.isEmpty)
    }

    @Test("a generic device that hangs up mid-transfer ends its sync with what arrived")
    func genericThermometerHangsUp() async throws {
        let temperature = TemperatureMeasurement(
            unit: .celsius, temperature: MedicalFloat(mantissa: 368, exponent: -1)!, timeStamp: time(6, 5).device)
        let connection = ScriptedConnection(
            [.indicate(g.temperatureMeasurement, temperature.encoded()), .disconnect],
            offering: [g.temperatureMeasurement])
        let driver = makeDriver(for: DeviceCatalog.entry(for: .healthThermometer), connection: connection) {
            time(12, 0).host
        }
        let sink = RecordingSink()
        #expect(try await driver.sync(into: sink) { _ in } == 1)
        #expect(
            sink.readings == [
                .temperature(
                    TemperatureReading(
                        celsius: MedicalFloat(mantissa: 368, exponent: -1)!.doubleValue!, measuredAt: time(6, 5).host))
            ])
    }
}

/// How a weight sent in parts is one reading (the rule the engine's sink hands the store).
@Suite("Record merging")
struct RecordMergingTests {
    static let time = Timestamp(secondsSince1970: 1_763_700_000)
    static let plain = WeightReading(kilograms: 80, measuredAt: time)
    static let whole = WeightReading(
        kilograms: 80, measuredAt: time,
        bodyComposition: BodyComposition(bodyFatPercentage: 22.5, basalMetabolism: 6_500))

    @Test(
        "a composition completes a plain weight, a plain weight is part of a whole one, an equal weight is the stored one"
    )
    func merged() {
        #expect(RecordMerging.merged(.weight(Self.whole), with: .weight(Self.plain)) == .weight(Self.whole))
        #expect(RecordMerging.merged(.weight(Self.plain), with: .weight(Self.whole)) == .weight(Self.whole))
        #expect(RecordMerging.merged(.weight(Self.whole), with: .weight(Self.whole)) == .weight(Self.whole))
        #expect(RecordMerging.merged(.weight(Self.plain), with: .weight(Self.plain)) == .weight(Self.plain))
        // two different compositions, or two masses, are two readings
        var other = Self.whole
        other.bodyComposition?.bodyFatPercentage = 23
        #expect(RecordMerging.merged(.weight(other), with: .weight(Self.whole)) == nil)
        var heavier = Self.plain
        heavier.kilograms = 81
        #expect(RecordMerging.merged(.weight(heavier), with: .weight(Self.plain)) == nil)
    }
}
