import HealthGATT
import LayeredProtocol
import Locking
import Testing
import VitalCore
import VitalDevices

/// The characteristics of the Record Access Control Point families' tables.
private let g = GATTCharacteristics.self

/// A BG5's stored records as it notifies them: 98 mg/dL at 08:30, and 112 mg/dL based at 09:00 with a 30-minute
/// offset (09:30), both capillary whole blood from a finger, in kg/L.
enum GlucoseRecords {
    static let first = GlucoseMeasurement(
        sequenceNumber: 1, baseTime: time(8, 30).device,
        concentration: .init(value: SFloat(mantissa: 98, exponent: -5)!, type: .capillaryWholeBlood, location: .finger)
    ).encoded()
    static let second = GlucoseMeasurement(
        sequenceNumber: 2, baseTime: time(9, 0).device, timeOffset: 30,
        concentration: .init(
            value: SFloat(mantissa: 112, exponent: -5)!, type: .capillaryWholeBlood, location: .finger)
    ).encoded()
    static let readings: [Reading] = [
        .glucose(GlucoseReading(mgPerDeciliter: 98, measuredAt: time(8, 30).host)),
        .glucose(GlucoseReading(mgPerDeciliter: 112, measuredAt: time(9, 30).host)),
    ]
    /// A Glucose Measurement Context of record 1 with no optional field.
    static let context: [UInt8] = [0x00, 0x01, 0x00]
}

/// A PO3's stored spot-checks: SpO2 97 %, pulse 64, pulse amplitude index 2.5 % at 07:00; 95 %, 71 at 07:45.
enum SpotChecks {
    static func spotCheck(_ spO2: Int, _ pulse: Int, _ at: DateTime) -> [UInt8] {
        PLXSpotCheckMeasurement(
            spO2PulseRate: SpO2PulseRate(
                spO2: SFloat(mantissa: spO2, exponent: 0)!, pulseRate: SFloat(mantissa: pulse, exponent: 0)!),
            timeStamp: at, pulseAmplitudeIndex: SFloat(mantissa: 25, exponent: -1)!
        ).encoded()
    }
    static let first = spotCheck(97, 64, time(7, 0).device)
    static let second = spotCheck(95, 71, time(7, 45).device)
    static let readings: [Reading] = [
        .oximetry(
            OximetryReading(oxygenSaturation: 97, heartRate: 64, perfusionIndex: 2.5, measuredAt: time(7, 0).host)),
        .oximetry(
            OximetryReading(oxygenSaturation: 95, heartRate: 71, perfusionIndex: 2.5, measuredAt: time(7, 45).host)),
    ]
}

/// Record Access Control Point bytes (GLS/PLXS): requests the hub writes and answers the device indicates.
enum RACP {
    static let countAll: [UInt8] = [0x04, 0x01]
    static func count(_ count: UInt8) -> [UInt8] { [0x05, 0x00, count, 0x00] }
    static let reportAll: [UInt8] = [0x01, 0x01]
    static let abort: [UInt8] = [0x03, 0x00]
    /// Response code (06, null operator) to `request` with `code`: 01 success, 06 no records, 08 not completed.
    static func response(_ request: UInt8, _ code: UInt8) -> [UInt8] { [0x06, 0x00, request, code] }
}

@Suite("Glucose driver against a scripted meter")
struct GlucoseDriverScriptTests {
    static let table = [g.vendorStatus, g.vendorControlPoint, g.glucoseMeasurement, g.glucoseContext, g.glucoseRACP]
    static let subscriptions = [g.vendorStatus, g.glucoseMeasurement, g.glucoseContext, g.glucoseRACP]

    func driver(_ script: [ScriptStep]) -> (GlucoseDriver, ScriptedConnection) {
        let connection = ScriptedConnection(script, offering: Self.table)
        return (GlucoseDriver(entry: DeviceCatalog.entry(for: .bg5), connection: connection), connection)
    }

    @Test("the encoder's first record is the Glucose Service's bytes")
    func sigBytes() {
        // flags 02 (concentration, type and location; kg/L), sequence 1, 2026-11-20 08:30:00, 98e-5 kg/L as SFLOAT
        // B062, capillary whole blood (1) from a finger (1)
        #expect(
            GlucoseRecords.first == [0x02, 0x01, 0x00, 0xEA, 0x07, 0x0B, 0x14, 0x08, 0x1E, 0x00, 0x62, 0xB0, 0x11])
    }

    @Test("a sync counts, reports all, stores both records in order, then deletes through the highest number")
    func sync() async throws {
        let (driver, connection) = driver([
            .write(g.glucoseRACP, RACP.countAll), .indicate(g.glucoseRACP, RACP.count(2)),
            .write(g.glucoseRACP, RACP.reportAll),
            .notify(g.glucoseMeasurement, GlucoseRecords.first), .notify(g.glucoseContext, GlucoseRecords.context),
            .notify(g.glucoseMeasurement, GlucoseRecords.second),
            .indicate(g.glucoseRACP, RACP.response(0x01, 0x01)),
            // delete stored records (02), ≤ (02), by sequence number (01), 2
            .write(g.glucoseRACP, [0x02, 0x02, 0x01, 0x02, 0x00]), .indicate(g.glucoseRACP, RACP.response(0x02, 0x01)),
        ])
        let sink = RecordingSink()
        let progress = Locked<[SyncProgress]>([])
        let count = try await driver.sync(into: sink) { update in progress.withLock { $0.append(update) } }
        #expect(count == 2)
        #expect(sink.readings == GlucoseRecords.readings)
        #expect(sink.records.map(\.sequenceNumber) == [1, 2])
        #expect(sink.batchSizes == [2])
        #expect(
            progress.withLock { $0 } == [SyncProgress(stored: 0, expected: 2), SyncProgress(stored: 2, expected: 2)])
        #expect(connection.subscriptions == Self.subscriptions)
        #expect(
            connection.writes == [
                .write(g.glucoseRACP, [0x04, 0x01]), .write(g.glucoseRACP, [0x01, 0x01]),
                .write(g.glucoseRACP, [0x02, 0x02, 0x01, 0x02, 0x00]),
            ])
        #expect(connection.confirmations == [1, 2, 3])
        #expect(connection.unplayed == 0)
    }

    @Test("a sync after record 5 asks for the records from 6 on; none is nothing to report")
    func syncAfter() async throws {
        // report number of stored records (04), ≥ (03), by sequence number (01), 6
        let (driver, connection) = driver([
            .write(g.glucoseRACP, [0x04, 0x03, 0x01, 0x06, 0x00]), .indicate(g.glucoseRACP, RACP.count(0)),
        ])
        let sink = RecordingSink()
        #expect(try await driver.sync(after: 5, into: sink) { _ in } == 0)
        #expect(sink.records.isEmpty)
        #expect(connection.writes == [.write(g.glucoseRACP, [0x04, 0x03, 0x01, 0x06, 0x00])])
        #expect(connection.unplayed == 0)
    }

    @Test("a malformed record fails the sync with a protocol violation; nothing is stored or deleted")
    func malformed() async throws {
        let (driver, connection) = driver([
            .write(g.glucoseRACP, RACP.countAll), .indicate(g.glucoseRACP, RACP.count(2)),
            .write(g.glucoseRACP, RACP.reportAll),
            .notify(g.glucoseMeasurement, GlucoseRecords.first),
            // cut inside the concentration
            .notify(g.glucoseMeasurement, Array(GlucoseRecords.second.prefix(11))),
        ])
        let sink = RecordingSink()
        let error = await #expect(throws: DeviceError.self) { try await driver.sync(into: sink) { _ in } }
        #expect(error?.code == .protocolViolation)
        #expect(error?.deviceCode == nil)
        #expect(sink.records.isEmpty)
        #expect(connection.writes == [.write(g.glucoseRACP, RACP.countAll), .write(g.glucoseRACP, RACP.reportAll)])
    }

    @Test("an RACP error response fails the sync by name; nothing is stored or deleted")
    func racpError() async throws {
        let (driver, connection) = driver([
            .write(g.glucoseRACP, RACP.countAll), .indicate(g.glucoseRACP, RACP.count(2)),
            .write(g.glucoseRACP, RACP.reportAll),
            .notify(g.glucoseMeasurement, GlucoseRecords.first),
            .indicate(g.glucoseRACP, RACP.response(0x01, 0x08)),
        ])
        let sink = RecordingSink()
        await #expect(
            throws: DeviceError(
                .protocolViolation, message: "the device answered procedure not completed to report stored records")
        ) { try await driver.sync(into: sink) { _ in } }
        #expect(sink.records.isEmpty)
        #expect(connection.writes == [.write(g.glucoseRACP, RACP.countAll), .write(g.glucoseRACP, RACP.reportAll)])
        #expect(connection.confirmations == [1, 2])
    }

    @Test("a disconnect mid-transfer fails the sync; nothing is stored or deleted")
    func disconnect() async throws {
        let (driver, connection) = driver([
            .write(g.glucoseRACP, RACP.countAll), .indicate(g.glucoseRACP, RACP.count(2)),
            .write(g.glucoseRACP, RACP.reportAll),
            .notify(g.glucoseMeasurement, GlucoseRecords.first), .disconnect,
        ])
        let sink = RecordingSink()
        await #expect(throws: DeviceError(.disconnected, message: "the scripted link dropped")) {
            try await driver.sync(into: sink) { _ in }
        }
        #expect(sink.records.isEmpty)
        #expect(connection.writes == [.write(g.glucoseRACP, RACP.countAll), .write(g.glucoseRACP, RACP.reportAll)])
    }

    @Test("a live measurement writes the strip code and returns the notified record, stored")
    func measure() async throws {
        let (driver, connection) = driver([
            // start measurement (01), a QR code (0), "ABC"
            .write(g.vendorControlPoint, [0x01, 0x00, 0x41, 0x42, 0x43]),
            .notify(g.glucoseMeasurement, GlucoseRecords.second),
        ])
        let sink = RecordingSink()
        let record = try await driver.measure(
            MeasureOptions(stripCode: StripCode(type: .qrCode, code: "ABC")), into: sink, observer: { _ in })
        #expect(record == DeviceRecord(reading: GlucoseRecords.readings[1], sequenceNumber: 2))
        #expect(sink.records == [record])
        #expect(connection.subscriptions == [g.vendorStatus, g.glucoseMeasurement])
        #expect(connection.unplayed == 0)
    }
}

@Suite("Pulse oximeter driver against a scripted oximeter")
struct PulseOximeterDriverScriptTests {
    static let po3Table = [g.vendorStatus, g.vendorControlPoint, g.plxSpotCheck, g.plxContinuous, g.plxRACP]

    func po3(_ script: [ScriptStep]) -> (PulseOximeterDriver, ScriptedConnection) {
        let connection = ScriptedConnection(script, offering: Self.po3Table)
        return (PulseOximeterDriver(entry: DeviceCatalog.entry(for: .po3), connection: connection), connection)
    }

    @Test("preparing authenticates the caller, then sets the clock, with the vendor commands' bytes")
    func prepare() async throws {
        let (driver, connection) = po3([
            // authenticate (04) + "app"; login success (03 02)
            .write(g.vendorControlPoint, [0x04, 0x61, 0x70, 0x70]), .notify(g.vendorStatus, [0x03, 0x02]),
            // set time (03) + 2026-11-20 08:30:00; command 03 done (05 03 00)
            .write(g.vendorControlPoint, [0x03, 0xEA, 0x07, 0x0B, 0x14, 0x08, 0x1E, 0x00]),
            .notify(g.vendorStatus, [0x05, 0x03, 0x00]),
        ])
        try await driver.prepare(for: DeviceSession(caller: "app", time: time(8, 30).host))
        #expect(connection.writes.count == 2)
        #expect(connection.unplayed == 0)
    }

    @Test("a refused authentication is the PO3's error 111")
    func authenticationFailed() async throws {
        let (driver, _) = po3([
            .write(g.vendorControlPoint, [0x04, 0x61, 0x70, 0x70]), .notify(g.vendorStatus, [0x03, 0x07]),
        ])
        await #expect(
            throws: DeviceError(
                .authenticationFailed, deviceCode: 111, message: "user authentication failed (userNotAuthorized)")
        ) { try await driver.prepare(for: DeviceSession(caller: "app", time: time(8, 30).host)) }
    }

    @Test("a sync reports all spot-checks, confirms each, then counts again and deletes all")
    func sync() async throws {
        let (driver, connection) = po3([
            .write(g.plxRACP, RACP.countAll), .indicate(g.plxRACP, RACP.count(2)),
            .write(g.plxRACP, RACP.reportAll),
            .indicate(g.plxSpotCheck, SpotChecks.first), .indicate(g.plxSpotCheck, SpotChecks.second),
            .indicate(g.plxRACP, RACP.response(0x01, 0x01)),
            .write(g.plxRACP, RACP.countAll), .indicate(g.plxRACP, RACP.count(2)),
            // delete stored records (02), all (01)
            .write(g.plxRACP, [0x02, 0x01]), .indicate(g.plxRACP, RACP.response(0x02, 0x01)),
        ])
        let sink = RecordingSink()
        #expect(try await driver.sync(into: sink) { _ in } == 2)
        #expect(sink.readings == SpotChecks.readings)
        #expect(connection.subscriptions == [g.vendorStatus, g.plxSpotCheck, g.plxRACP])
        #expect(
            connection.writes == [
                .write(g.plxRACP, [0x04, 0x01]), .write(g.plxRACP, [0x01, 0x01]), .write(g.plxRACP, [0x04, 0x01]),
                .write(g.plxRACP, [0x02, 0x01]),
            ])
        #expect(connection.confirmations == [1, 2, 3, 4, 5, 6])
        #expect(connection.unplayed == 0)
    }

    @Test("a spot-check taken during the sync keeps every record on the oximeter")
    func recordAddedMeanwhile() async throws {
        let (driver, connection) = po3([
            .write(g.plxRACP, RACP.countAll), .indicate(g.plxRACP, RACP.count(2)),
            .write(g.plxRACP, RACP.reportAll),
            .indicate(g.plxSpotCheck, SpotChecks.first), .indicate(g.plxSpotCheck, SpotChecks.second),
            .indicate(g.plxRACP, RACP.response(0x01, 0x01)),
            .write(g.plxRACP, RACP.countAll), .indicate(g.plxRACP, RACP.count(3)),
        ])
        let sink = RecordingSink()
        #expect(try await driver.sync(into: sink) { _ in } == 2)
        #expect(sink.readings == SpotChecks.readings)
        #expect(!connection.writes.contains(.write(g.plxRACP, [0x02, 0x01])))
        #expect(connection.unplayed == 0)
    }

    @Test("a malformed spot-check fails the sync unconfirmed; nothing is stored or deleted")
    func malformed() async throws {
        let (driver, connection) = po3([
            .write(g.plxRACP, RACP.countAll), .indicate(g.plxRACP, RACP.count(2)),
            .write(g.plxRACP, RACP.reportAll),
            .indicate(g.plxSpotCheck, Array(SpotChecks.first.prefix(3))),
        ])
        let sink = RecordingSink()
        let error = await #expect(throws: DeviceError.self) { try await driver.sync(into: sink) { _ in } }
        #expect(error?.code == .protocolViolation)
        #expect(sink.records.isEmpty)
        #expect(connection.confirmations == [1])
        #expect(connection.writes == [.write(g.plxRACP, RACP.countAll), .write(g.plxRACP, RACP.reportAll)])
    }

    @Test("an RACP error response fails the sync by name; nothing is stored or deleted")
    func racpError() async throws {
        let (driver, connection) = po3([
            .write(g.plxRACP, RACP.countAll), .indicate(g.plxRACP, RACP.count(2)),
            .write(g.plxRACP, RACP.reportAll),
            .indicate(g.plxSpotCheck, SpotChecks.first), .indicate(g.plxRACP, RACP.response(0x01, 0x08)),
        ])
        let sink = RecordingSink()
        await #expect(
            throws: DeviceError(
                .protocolViolation, message: "the device answered procedure not completed to report stored records")
        ) { try await driver.sync(into: sink) { _ in } }
        #expect(sink.records.isEmpty)
        #expect(connection.writes == [.write(g.plxRACP, RACP.countAll), .write(g.plxRACP, RACP.reportAll)])
    }

    @Test("a disconnect mid-transfer is the PO3's error 6; nothing is stored or deleted")
    func disconnect() async throws {
        let (driver, connection) = po3([
            .write(g.plxRACP, RACP.countAll), .indicate(g.plxRACP, RACP.count(2)),
            .write(g.plxRACP, RACP.reportAll),
            .indicate(g.plxSpotCheck, SpotChecks.first), .disconnect,
        ])
        let sink = RecordingSink()
        await #expect(throws: DeviceError(.disconnected, deviceCode: 6, message: "the scripted link dropped")) {
            try await driver.sync(into: sink) { _ in }
        }
        #expect(sink.records.isEmpty)
        #expect(connection.writes == [.write(g.plxRACP, RACP.countAll), .write(g.plxRACP, RACP.reportAll)])
    }

    @Test("a PO3 measurement starts, streams the pulse wave and continuous values, and returns the spot-check")
    func measure() async throws {
        let continuous = PLXContinuousMeasurement(
            normal: SpO2PulseRate(
                spO2: SFloat(mantissa: 96, exponent: 0)!, pulseRate: SFloat(mantissa: 66, exponent: 0)!)
        ).encoded()
        let (driver, connection) = po3([
            .write(g.vendorControlPoint, [0x01]), .notify(g.vendorStatus, [0x04, 60]),
            .notify(g.plxContinuous, continuous), .indicate(g.plxSpotCheck, SpotChecks.first),
        ])
        let sink = RecordingSink()
        let samples = Locked<[LiveSample]>([])
        let record = try await driver.measure(MeasureOptions(), into: sink) { sample in
            samples.withLock { $0.append(sample) }
        }
        #expect(record.reading == SpotChecks.readings[0])
        #expect(sink.readings == [SpotChecks.readings[0]])
        #expect(samples.withLock { $0 } == [.pulseWave(60), .oximetry(spO2: 96, pulseRate: 66, perfusionIndex: nil)])
        #expect(connection.subscriptions == [g.vendorStatus, g.plxContinuous, g.plxSpotCheck])
        #expect(connection.confirmations == [1])
    }

    @Test("a generic oximeter without spot-checks measures the medians of five settled continuous values")
    func continuous() async throws {
        func sample(_ spO2: Int, _ pulse: Int, _ status: PLXMeasurementStatus? = nil) -> ScriptStep {
            .notify(
                g.plxContinuous,
                PLXContinuousMeasurement(
                    normal: SpO2PulseRate(
                        spO2: SFloat(mantissa: spO2, exponent: 0)!, pulseRate: SFloat(mantissa: pulse, exponent: 0)!),
                    measurementStatus: status, pulseAmplitudeIndex: SFloat(mantissa: 31, exponent: -1)!
                ).encoded())
        }
        let connection = ScriptedConnection(
            [
                sample(91, 70, .earlyEstimatedData), sample(96, 60), sample(97, 62), sample(98, 61), sample(97, 63),
                sample(97, 61),
            ],
            offering: [g.plxContinuous])
        let start = time(10, 0).host
        let driver = PulseOximeterDriver(
            entry: DeviceCatalog.entry(for: .pulseOximeter), connection: connection,
            session: StandardSession(start: start))
        let sink = RecordingSink()
        let samples = Locked(0)
        let record = try await driver.measure(MeasureOptions(), into: sink) { _ in samples.withLock { $0 += 1 } }
        let expected = Reading.oximetry(
            OximetryReading(oxygenSaturation: 97, heartRate: 61, perfusionIndex: 3.1, measuredAt: start))
        #expect(record.reading == expected)
        #expect(sink.readings == [expected])
        #expect(samples.withLock { $0 } == 6)
        #expect(connection.writes.isEmpty)
        #expect(connection.unplayed == 0)
    }
}

/// The one cancellation rule of Record Access Control Point transfers, for both families.
@Suite("Record transfer cancellation")
struct RecordTransferCancellationTests {
    /// A family's transfer: its control point, its record characteristic, how records travel, and a driver.
    struct Family: Sendable, CustomTestStringConvertible {
        let name: String
        let controlPoint: CharacteristicID
        let records: CharacteristicID
        let indicates: Bool
        let first: [UInt8]
        let second: [UInt8]
        let table: [CharacteristicID]
        let makeDriver: @Sendable (ScriptedConnection) -> any DeviceDriver
        var testDescription: String { name }

        func record(_ bytes: [UInt8]) -> ScriptStep { indicates ? .indicate(records, bytes) : .notify(records, bytes) }
    }

    static let families = [
        Family(
            name: "glucose", controlPoint: g.glucoseRACP, records: g.glucoseMeasurement, indicates: false,
            first: GlucoseRecords.first, second: GlucoseRecords.second, table: GlucoseDriverScriptTests.table,
            makeDriver: { GlucoseDriver(entry: DeviceCatalog.entry(for: .bg5), connection: $0) }),
        Family(
            name: "pulse oximeter", controlPoint: g.plxRACP, records: g.plxSpotCheck, indicates: true,
            first: SpotChecks.first, second: SpotChecks.second, table: PulseOximeterDriverScriptTests.po3Table,
            makeDriver: { PulseOximeterDriver(entry: DeviceCatalog.entry(for: .po3), connection: $0) }),
    ]

    @Test(
        "cancelled mid-transfer, the sync aborts, waits for the answer and throws cancelled; nothing is kept or deleted",
        arguments: families)
    func cancelled(family: Family) async throws {
        let connection = ScriptedConnection(
            Self.cancelledTransfer(family) + [
                // a record the device sent before it saw the abort, then the abort's success
                family.record(family.first), .indicate(family.controlPoint, RACP.response(0x03, 0x01)),
            ], offering: family.table)
        let driver = family.makeDriver(connection)
        let sink = RecordingSink()
        let task = Task { try await driver.sync(into: sink) { _ in } }
        await #expect(throws: DeviceError(.cancelled, message: "the sync was cancelled after 0 records")) {
            try await task.value
        }
        #expect(sink.records.isEmpty)
        #expect(
            connection.writes == [
                .write(family.controlPoint, [0x04, 0x01]), .write(family.controlPoint, [0x01, 0x01]),
                .write(family.controlPoint, [0x03, 0x00]),
            ])
        #expect(connection.unplayed == 0)
        // every indication was confirmed: the count, the records (oximeter) and the abort's answer
        #expect(connection.confirmations == Array(1...(family.indicates ? 5 : 2)))
    }

    /// A transfer of three records cancelled after the first: the driver writes the abort (`03 00`) while the
    /// second arrives. What the device does then follows.
    static func cancelledTransfer(_ family: Family) -> [ScriptStep] {
        [
            .write(family.controlPoint, RACP.countAll), .indicate(family.controlPoint, RACP.count(3)),
            .write(family.controlPoint, RACP.reportAll),
            family.record(family.first), .cancel, family.record(family.second),
            .write(family.controlPoint, [0x03, 0x00]),
        ]
    }

    @Test(
        "cancelled mid-transfer on a device that never answers the abort, or drops the link, the sync still ends cancelled",
        arguments: families)
    func abortUnanswered(family: Family) async throws {
        for ending in [ScriptStep.quiet, .disconnect] {
            let connection = ScriptedConnection(Self.cancelledTransfer(family) + [ending], offering: family.table)
            let driver = family.makeDriver(connection)
            let sink = RecordingSink()
            let task = Task { try await driver.sync(into: sink) { _ in } }
            await #expect(throws: DeviceError(.cancelled, message: "the sync was cancelled after 0 records")) {
                try await task.value
            }
            #expect(sink.records.isEmpty)
            #expect(connection.writes.last == .write(family.controlPoint, [0x03, 0x00]))
            #expect(connection.unplayed == 0)
        }
    }

    @Test("cancelled before the sync starts, nothing is requested or aborted", arguments: families)
    func cancelledFirst(family: Family) async throws {
        let connection = ScriptedConnection(
            [.write(family.controlPoint, RACP.countAll), .indicate(family.controlPoint, RACP.count(3))],
            offering: family.table)
        let driver = family.makeDriver(connection)
        let sink = RecordingSink()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await driver.sync(into: sink) { _ in }
        }
        await #expect(throws: DeviceError(.cancelled, message: "the sync was cancelled after 0 records")) {
            try await task.value
        }
        #expect(sink.records.isEmpty)
        #expect(connection.writes == [.write(family.controlPoint, [0x04, 0x01])])
    }
}
