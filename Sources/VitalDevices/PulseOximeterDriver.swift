import HealthGATT
import Locking
import VitalCore

/// The PO3 user authentication results (`../spec/po3-sdk-ios.md`): measuring is allowed after 1–4 only.
public enum PO3Authentication: UInt8, Hashable, Sendable, CaseIterable {
    case registerSuccess = 1
    case loginSuccess = 2
    case combinedSuccess = 3
    /// Offline, within the 10-day trial.
    case trialSuccess = 4
    case invalidUserInfo = 5
    case sdkNotAuthorized = 6
    case userNotAuthorized = 7
    case internetError = 8

    /// Whether the PO3 may be used after this result.
    public var allowsMeasuring: Bool { rawValue <= 4 }
}

/// The PO3 pulse oximeter: the Pulse Oximeter Service (continuous and spot-check measurements, stored
/// spot-checks through its Record Access Control Point) with the vendor user authentication, clock, battery and
/// factory reset of the PO3 SDK.
///
/// ``authenticate(userID:)`` must succeed (results 1–4) before anything else; results 5–8 stop the operation with
/// the PO3's error 111 (the SDK headers' value; the PO3 document's enum counts `PO3UserInvalidate` as 8). Device
/// errors carry the PO3 error IDs 0–6; a link that drops is error 6. `PO3DataZero` (7, no data) is never thrown:
/// a sync of an empty history returns 0, a success with nothing stored.
///
/// A pulse oximeter of any maker (VitalBridge's 904) has the same service without the vendor one: no
/// authentication, no error IDs, and a measurement is the next spot-check it indicates, the one the user takes on
/// it, waited for up to ``StandardWaits/measurement`` (its continuous measurements stream to the observer
/// meanwhile), unless a new one came with the sync of the same request. An oximeter without the spot-check
/// characteristic is measured from its continuous measurements: the medians of the first
/// ``settledSamples`` settled ones in a row, dated at the request's start (a continuous measurement carries no
/// time). A measurement is settled when its normal SpO2 (0–100 %) and pulse rate are numbers, its measurement
/// status says nothing is ongoing, early, unavailable, questionable, invalid, stored, for demonstration or for
/// testing, and its device and sensor status reports no problem. One without a Record
/// Access Control Point keeps no records: its sync is ``DeviceError/Code/unsupported``.
public struct PulseOximeterDriver: DeviceDriver {
    public let entry: CatalogEntry
    public let connection: any BluetoothConnection
    /// Records stored per sink call during a sync.
    public var batchSize = 512

    /// A generic device's session (its new reading may come during a sync); `nil` for the vendor models.
    public let session: StandardSession?
    /// What the session read of the oximeter's clock: every spot-check it dated is corrected by it.
    public let clockSession = DeviceClockSession()
    /// Whether this session set the PO3's clock to the hub's (in `prepare`): what it measures afterwards is dated
    /// right, though its history, dated by the clock before, is not.
    private let clockSet = Locked(false)

    public init(entry: CatalogEntry, connection: any BluetoothConnection, session: StandardSession? = nil) {
        self.entry = entry
        self.connection = connection
        self.session = session
    }

    /// Whether the oximeter is the PO3, with its vendor service, unlike a generic one.
    var isPO3: Bool { !entry.model.isStandardProfile }

    /// The PO3 error for a dropped link: 6, device disconnected (a generic oximeter has no error IDs).
    func mapped(_ error: DeviceError) -> DeviceError {
        guard isPO3, error.code == .disconnected, error.deviceCode == nil else { return error }
        return DeviceError(.disconnected, deviceCode: 6, message: error.message)
    }

    /// Authenticates the user; throws ``DeviceError/Code/authenticationFailed`` with code 111 for results 5–8.
    @discardableResult
    public func authenticate(userID: String) async throws(DeviceError) -> PO3Authentication {
        do throws(DeviceError) {
            try await connection.subscribe(GATTCharacteristics.vendorStatus)
            try await send(.authenticate(userID: userID))
            while true {
                guard
                    case .notification(GATTCharacteristics.vendorStatus, let bytes) = try await connection.nextEvent(),
                    case .authenticationResult(let raw) = try vendorEvent(bytes)
                else { continue }
                guard let result = PO3Authentication(rawValue: raw) else {
                    throw DeviceError(.protocolViolation, message: "authentication result \(raw) is not 1–8")
                }
                guard result.allowsMeasuring else {
                    throw DeviceError(
                        .authenticationFailed, deviceCode: Int(VendorGATT.authenticationFailedError),
                        message: "user authentication failed (\(result))")
                }
                return result
            }
        } catch {
            throw mapped(error)
        }
    }

    /// Reads the Current Time (0x2A2B) of an oximeter with the Current Time Service. The PO3 has none, and its
    /// protocol can only set its clock, never read it (`../spec/po3-sdk-ios.md`, "Sync time"): its spot-checks
    /// are marked `timeUnverified`, their times as the PO3 sent them.
    public func readClock(hubClock: @escaping @Sendable () -> Timestamp) async throws(DeviceError) {
        try await clockSession.read(from: connection, hubClock: hubClock)
    }

    /// Sets the clock of an oximeter whose Current Time the session read, as ``DeviceDriver/setClock(hubTime:)``
    /// says. Never the PO3's here: its clock cannot be read, so this never knows it off; ``prepare(for:)`` sets it
    /// each session instead, before anything is measured.
    public func setClock(hubTime: Timestamp) async throws(DeviceError) -> Int64? {
        try await setClock(hubTime: hubTime, readBy: clockSession)
    }

    /// Authenticates the caller as the PO3's user, then sets the PO3's clock: the PO3 does nothing else first.
    public func prepare(for session: DeviceSession) async throws(DeviceError) {
        guard isPO3 else { return }
        try await authenticate(userID: session.caller)
        try await setTime(session.time)
        clockSet.withLock { $0 = true }
    }

    /// Sets the PO3's clock.
    public func setTime(_ time: Timestamp) async throws(DeviceError) {
        try await command(.setTime(DateTime(time)))
    }

    /// Restores factory settings; the stored history is erased.
    public func factoryReset() async throws(DeviceError) {
        try await command(.factoryReset)
    }

    /// Stores the PO3's history (``sync(into:progress:)``, which then deletes it on the device), then restores its
    /// factory settings: nothing it held is lost. A generic oximeter has no vendor reset:
    /// ``DeviceError/Code/unsupported``.
    public func resetToFactory(storingInto sink: any RecordSink) async throws(DeviceError) -> Int {
        guard isPO3 else {
            throw DeviceError(.unsupported, message: "\(entry.model.name) has no factory reset the hub can send")
        }
        let stored = try await sync(into: sink) { _ in }
        try await factoryReset()
        return stored
    }

    /// Ends the connection (the SDK's `commandEndPO3CurrentConnect`).
    public func disconnect() async {
        await connection.disconnect()
    }

    /// The battery level in percent (the SDK's `commandQueryBatteryInfo`).
    /// - Throws: ``DeviceError/Code/unsupported`` for an oximeter without the Battery Service.
    public func batteryLevel() async throws(DeviceError) -> Int {
        guard let level = try await deviceInfo().batteryLevel else {
            throw DeviceError(.unsupported, message: "\(entry.model.name) reports no battery level")
        }
        return level
    }

    /// A vendor command; a refusal is the PO3's error 5 (send failed), a dropped link its error 6.
    func command(_ command: VendorCommand) async throws(DeviceError) {
        do throws(DeviceError) {
            try await vendorCommand(command, refusalCode: 5)
        } catch {
            throw mapped(error)
        }
    }

    public func measure(
        _ options: MeasureOptions, into sink: any RecordSink, observer: @escaping @Sendable (LiveSample) -> Void
    ) async throws(DeviceError) -> DeviceRecord {
        // the user's new spot-check may have come with the sync of the same request
        if let new = session?.takeNew() { return new }
        do throws(DeviceError) {
            if isPO3 {
                try await connection.subscribe(GATTCharacteristics.vendorStatus)
            } else if await !connection.offers(GATTCharacteristics.plxSpotCheck) {
                return try await measureContinuously(into: sink, observer: observer)
            }
            // continuous measurements are optional in the Pulse Oximeter Service
            let continuous = await connection.offers(GATTCharacteristics.plxContinuous)
            if isPO3 || continuous { try await connection.subscribe(GATTCharacteristics.plxContinuous) }
            try await connection.subscribe(GATTCharacteristics.plxSpotCheck)
            if isPO3 { try await send(.startMeasurement) }
            while true {
                try checkCancellation()
                switch try await nextEvent(waiting: isPO3 ? nil : StandardWaits.measurement) {
                case .notification(GATTCharacteristics.plxContinuous, let bytes):
                    let value = try decode(PLXContinuousMeasurement.self, bytes)
                    observer(
                        .oximetry(
                            spO2: value.normal.spO2.doubleValue, pulseRate: value.normal.pulseRate.doubleValue,
                            perfusionIndex: value.pulseAmplitudeIndex?.doubleValue))
                case .notification(GATTCharacteristics.vendorStatus, let bytes):
                    if case .pulseWave(let wave) = try vendorEvent(bytes) { observer(.pulseWave(Int(wave))) }
                case .indication(GATTCharacteristics.plxSpotCheck, let bytes, let token):
                    // a PO3 whose clock this session set to the hub's, seconds ago, dates what it measures now right
                    let record = try DeviceRecord(
                        decoding: bytes, of: PLXSpotCheckMeasurement.uuid, undatedAt: session?.undatedAt,
                        clock: clockSet.withLock { $0 } ? .read(offset: 0) : clockSession.clock)
                    try await store([record], in: sink)
                    try await connection.confirm(token)
                    return record
                default:
                    continue
                }
            }
        } catch {
            throw mapped(error)
        }
    }

    /// How many settled continuous measurements in a row make a measurement of an oximeter without spot-checks.
    public static let settledSamples = 5
    /// How many continuous measurements an oximeter without spot-checks may send before settling (about 2 minutes
    /// at one a second) before the measurement fails with ``DeviceError/Code/timedOut``.
    public static let samplesBeforeTimeout = 120

    /// The measurement of a generic oximeter without spot-checks, from its continuous measurements: the median
    /// SpO2, pulse rate and (when all have one) pulse amplitude index of the first ``settledSamples`` settled
    /// measurements in a row (settled as the type's documentation says).
    ///
    /// - Throws: ``DeviceError/Code/unsupported`` when it has no continuous measurements either;
    ///   ``DeviceError/Code/timedOut`` when none settles within ``samplesBeforeTimeout`` measurements, or nothing
    ///   comes for ``StandardWaits/measurement``.
    func measureContinuously(into sink: any RecordSink, observer: @Sendable (LiveSample) -> Void)
        async throws(DeviceError) -> DeviceRecord
    {
        guard let session, await connection.offers(GATTCharacteristics.plxContinuous) else {
            throw DeviceError(
                .unsupported, message: "the oximeter sends neither spot-checks nor continuous measurements")
        }
        try await connection.subscribe(GATTCharacteristics.plxContinuous)
        var settled: [PLXContinuousMeasurement] = []
        for _ in 0..<Self.samplesBeforeTimeout {
            try checkCancellation()
            guard
                case .notification(GATTCharacteristics.plxContinuous, let bytes) = try await nextEvent(
                    waiting: StandardWaits.measurement)
            else { continue }
            let value = try decode(PLXContinuousMeasurement.self, bytes)
            observer(
                .oximetry(
                    spO2: value.normal.spO2.doubleValue, pulseRate: value.normal.pulseRate.doubleValue,
                    perfusionIndex: value.pulseAmplitudeIndex?.doubleValue))
            guard value.isSettled else {
                settled.removeAll()
                continue
            }
            settled.append(value)
            guard settled.count == Self.settledSamples else { continue }
            func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
            let indexes = settled.compactMap { $0.pulseAmplitudeIndex?.doubleValue }
            let record = DeviceRecord(
                reading: .oximetry(
                    OximetryReading(
                        oxygenSaturation: Int(median(settled.compactMap { $0.normal.spO2.doubleValue }).rounded()),
                        heartRate: Int(median(settled.compactMap { $0.normal.pulseRate.doubleValue }).rounded()),
                        perfusionIndex: indexes.count == settled.count ? (median(indexes) * 10).rounded() / 10 : nil,
                        measuredAt: session.undatedAt)))
            try await store([record], in: sink)
            return record
        }
        throw DeviceError(
            .timedOut,
            message: "no \(Self.settledSamples) settled measurements in a row among \(Self.samplesBeforeTimeout)")
    }

    /// Reads the stored spot-checks: their count, then each one (a PO3's with the pulse wave it notified just before
    /// it, ``PO3HistoryWave``: a wave that does not decode, two waves for one record or a wave after the last record
    /// end the sync with ``DeviceError/Code/protocolViolation``, deleting nothing), stored in batches of
    /// ``batchSize`` with progress
    /// from 0 to 1; only when the last batch is committed, and the device still holds as many records as it sent
    /// (the Pulse Oximeter Service deletes all records or none), does it delete them on the device. (A confirmed
    /// indication deletes nothing on the PO3: its records go only with the Record Access Control Point delete.) A
    /// task cancelled during the transfer writes the Record Access Control Point's Abort Operation, waits for its
    /// answer and throws ``DeviceError/Code/cancelled``, as every Record Access Control Point sync does.
    public func sync(into sink: any RecordSink, progress: @escaping @Sendable (SyncProgress) -> Void)
        async throws(DeviceError) -> Int
    {
        do throws(DeviceError) {
            if isPO3 { try await connection.subscribe(GATTCharacteristics.vendorStatus) }
            guard await connection.offers(GATTCharacteristics.plxRACP) else {
                throw DeviceError(
                    .unsupported, message: "the oximeter keeps no records: it has no Record Access Control Point")
            }
            try await connection.subscribe(GATTCharacteristics.plxSpotCheck)
            try await connection.subscribe(GATTCharacteristics.plxRACP)
            let transfer = records
            let count = try await transfer.count(.all)
            progress(SyncProgress(stored: 0, expected: count))
            guard count > 0 else { return 0 }
            // the PO3 notifies a record's pulse wave just before it indicates the record
            var wave: PO3HistoryWave?
            let received = try await transfer.receive(
                .all, expected: count, into: sink, progress: progress,
                decoding: { [clock = clockSession.clock] bytes throws(DeviceError) in
                    var record = try DeviceRecord(
                        decoding: bytes, of: PLXSpotCheckMeasurement.uuid, undatedAt: session?.undatedAt, clock: clock)
                    if let samples = wave?.readingSamples, case .oximetry(var reading) = record.reading {
                        reading.wave = samples
                        record.reading = .oximetry(reading)
                    }
                    wave = nil
                    return record
                },
                other: { characteristic, bytes throws(DeviceError) in
                    guard characteristic == GATTCharacteristics.vendorStatus,
                        case .historyWave(let next) = try vendorEvent(bytes)
                    else { return }
                    guard wave == nil else {
                        throw DeviceError(.protocolViolation, message: "two history waves came for one record")
                    }
                    wave = next
                })
            // the records are committed, not deleted: the PO3 sends them again, with the wave, next time
            guard wave == nil else {
                throw DeviceError(.protocolViolation, message: "a history wave came after the last record")
            }
            // every record is committed; now the oximeter may forget them all, unless it holds another one (a
            // spot-check the user took meanwhile), which a delete of all would take unreported: the records then
            // stay, and the next sync reports them all again (stored once) and deletes them
            guard
                received.stored > 0,
                case .numberOfStoredRecordsResponse(let now) = try await transfer.request(
                    .reportNumberOfStoredRecords(.all)),
                Int(now) == received.stored
            else { return received.stored }
            try await transfer.delete(.all)
            return received.stored
        } catch {
            throw mapped(error)
        }
    }

    /// The oximeter's Record Access Control Point transfers (`RecordTransfer`: a cancelled sync is aborted).
    var records: RecordTransfer {
        RecordTransfer(
            connection: connection, controlPoint: GATTCharacteristics.plxRACP,
            records: GATTCharacteristics.plxSpotCheck, batchSize: batchSize, session: session)
    }
}

extension PLXContinuousMeasurement {
    /// The statuses that make a continuous measurement not yet, or not, a patient's settled value.
    static let unsettled: PLXMeasurementStatus = [
        .measurementOngoing, .earlyEstimatedData, .measurementUnavailable, .questionableMeasurementDetected,
        .invalidMeasurementDetected, .calibrationOngoing, .dataFromMeasurementStorage, .dataForDemonstration,
        .dataForTesting,
    ]

    /// Whether the measurement is a settled value, as ``PulseOximeterDriver`` says.
    var isSettled: Bool {
        guard let spO2 = normal.spO2.doubleValue, (0...100).contains(spO2),
            let pulseRate = normal.pulseRate.doubleValue, pulseRate > 0
        else { return false }
        if let status = measurementStatus, !status.isDisjoint(with: Self.unsettled) { return false }
        // every device and sensor status but an extended display update is a problem or an analysis in progress
        if let sensor = deviceAndSensorStatus, !sensor.subtracting(.extendedDisplayUpdateOngoing).isEmpty {
            return false
        }
        return true
    }
}
