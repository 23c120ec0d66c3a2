import HealthGATT
import VitalCore

/// Glucose meters (BG5, BG1): the Glucose Service with its Record Access Control Point.
///
/// A sync asks for the number of stored records, then for the records (all of them, or those after the last
/// sequence number already stored), stores them in batches as the notifications arrive, and only after the
/// device's success response and the last batch's commit writes "delete stored records ≤ the highest sequence
/// number stored". Any failure on the way leaves the device's memory untouched. A live measurement is started
/// with the strip code and notified as a new record.
///
/// A glucose meter of any maker (VitalBridge's 901) has no vendor service: its sync is the same, and a
/// measurement is the next record it notifies, the one the user takes on it, waited for up to
/// ``StandardWaits/measurement`` (``DeviceError/Code/timedOut`` after that), unless a new record (dated within
/// ``StandardWaits/freshness`` of the request's start) came with the sync of the same request.
public struct GlucoseDriver: DeviceDriver {
    public let entry: CatalogEntry
    public let connection: any BluetoothConnection
    /// Records stored per sink call during a sync.
    public var batchSize = 512

    /// A generic device's session (its new reading may come during a sync); `nil` for the vendor models.
    public let session: StandardSession?

    public init(entry: CatalogEntry, connection: any BluetoothConnection, session: StandardSession? = nil) {
        self.entry = entry
        self.connection = connection
        self.session = session
    }

    public func measure(
        _ options: MeasureOptions, into sink: any RecordSink, observer: @escaping @Sendable (LiveSample) -> Void
    ) async throws(DeviceError) -> DeviceRecord {
        // the user's new record may have come with the sync of the same request
        if let new = session?.takeNew() { return new }
        if speaksVendor { try await connection.subscribe(GATTCharacteristics.vendorStatus) }
        try await connection.subscribe(GATTCharacteristics.glucoseMeasurement)
        if speaksVendor {
            try await send(options.stripCode.map { .startGlucoseMeasurement($0) } ?? .startMeasurement)
        }
        while true {
            try checkCancellation()
            switch try await nextEvent(waiting: speaksVendor ? nil : StandardWaits.measurement) {
            case .notification(GATTCharacteristics.glucoseMeasurement, let bytes):
                let record = try DeviceRecord(decoding: bytes, of: GlucoseMeasurement.uuid)
                try await store([record], in: sink)
                return record
            case .notification(GATTCharacteristics.vendorStatus, let bytes):
                _ = try vendorEvent(bytes)
            default:
                continue
            }
        }
    }

    public func sync(into sink: any RecordSink, progress: @escaping @Sendable (SyncProgress) -> Void)
        async throws(DeviceError) -> Int
    {
        try await sync(after: nil, into: sink, progress: progress)
    }

    /// Syncs the records after sequence number `lastStored` (all records when `nil`): what a hub that already
    /// committed up to `lastStored` before a link dropped asks for, so every record is stored exactly once.
    public func sync(
        after lastStored: UInt16?, into sink: any RecordSink, progress: @escaping @Sendable (SyncProgress) -> Void
    ) async throws(DeviceError) -> Int {
        if speaksVendor { try await connection.subscribe(GATTCharacteristics.vendorStatus) }
        try await connection.subscribe(GATTCharacteristics.glucoseMeasurement)
        try await connection.subscribe(GATTCharacteristics.glucoseContext)
        try await connection.subscribe(GATTCharacteristics.glucoseRACP)
        let filter: RecordFilter
        if let lastStored {
            guard lastStored < UInt16.max else { return 0 }
            filter = .greaterThanOrEqual(.sequenceNumber(lastStored + 1))
        } else {
            filter = .all
        }

        let expected: Int
        switch try await request(.reportNumberOfStoredRecords(filter)) {
        case .numberOfStoredRecordsResponse(let count): expected = Int(count)
        case let other: throw unexpected(other)
        }
        progress(SyncProgress(stored: 0, expected: expected))
        guard expected > 0 else { return 0 }

        try await connection.write(
            GATTCharacteristics.glucoseRACP, RecordAccessControlPoint.reportStoredRecords(filter).encoded())
        var batches = RecordBatches(into: sink, size: batchSize, expected: expected, progress: progress)
        var highest: UInt16?
        while true {
            if Task.isCancelled {
                try await abort()
                throw DeviceError(.cancelled, message: "the sync was cancelled after \(batches.stored) records")
            }
            switch try await connection.nextEvent() {
            case .notification(GATTCharacteristics.glucoseMeasurement, let bytes):
                let record = try DeviceRecord(decoding: bytes, of: GlucoseMeasurement.uuid)
                highest = max(highest ?? 0, record.sequenceNumber ?? 0)
                try await batches.add(record)
                session?.received(record)
            case .notification(GATTCharacteristics.glucoseContext, let bytes):
                _ = try decode(GlucoseMeasurementContext.self, bytes)
            case .indication(GATTCharacteristics.glucoseRACP, let bytes, let token):
                try await connection.confirm(token)
                let response = try decode(RecordAccessControlPoint.self, bytes)
                guard case .responseCode(.reportStoredRecords, let code) = response else { throw unexpected(response) }
                guard code == .success || code == .noRecordsFound else { throw failed(.reportStoredRecords, code) }
                try await batches.flush()
                if let highest {
                    try await delete(through: highest)
                }
                return batches.stored
            case .notification(GATTCharacteristics.vendorStatus, let bytes):
                _ = try vendorEvent(bytes)
            default:
                continue
            }
        }
    }

    /// Whether the meter has VitalBridge's vendor service (the iHealth meters), unlike a generic one.
    var speaksVendor: Bool { !entry.model.isStandardProfile }

    func request(_ command: RecordAccessControlPoint) async throws(DeviceError) -> RecordAccessControlPoint {
        try await recordAccess(command, on: GATTCharacteristics.glucoseRACP)
    }

    func delete(through sequenceNumber: UInt16) async throws(DeviceError) {
        let response = try await request(.deleteStoredRecords(.lessThanOrEqual(.sequenceNumber(sequenceNumber))))
        guard case .responseCode(.deleteStoredRecords, let code) = response else { throw unexpected(response) }
        guard code == .success else { throw failed(.deleteStoredRecords, code) }
    }

    /// Aborts a transfer in progress; the records not yet stored stay on the device.
    func abort() async throws(DeviceError) {
        try await connection.write(GATTCharacteristics.glucoseRACP, RecordAccessControlPoint.abortOperation.encoded())
        while true {
            switch try await connection.nextEvent() {
            case .indication(GATTCharacteristics.glucoseRACP, let bytes, let token):
                try await connection.confirm(token)
                if case .responseCode(.abortOperation, _) = try decode(RecordAccessControlPoint.self, bytes) { return }
            default:
                continue
            }
        }
    }

    func unexpected(_ response: RecordAccessControlPoint) -> DeviceError {
        DeviceError(.protocolViolation, message: "an unexpected Record Access Control Point answer")
    }

    func failed(_ opCode: RACPOpCode, _ code: RACPResponseCode) -> DeviceError {
        DeviceError(.protocolViolation, message: "the device answered \(code) to \(opCode)")
    }
}
