import HealthGATT
import VitalCore

/// Glucose meters (BG5, BG1): the Glucose Service with its Record Access Control Point.
///
/// A sync asks for the number of stored records, then for the records (all of them, or those after the last
/// sequence number already stored), stores them in batches as the notifications arrive, and only after the
/// device's success response and the last batch's commit writes "delete stored records ≤ the highest sequence
/// number stored". Any failure on the way leaves the device's memory untouched; a task cancelled during the
/// transfer writes the Record Access Control Point's Abort Operation, waits for its answer and throws
/// ``DeviceError/Code/cancelled``, as every Record Access Control Point sync does. A live measurement is started
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
    /// What the session read of the meter's clock: every record is corrected by it.
    public let clockSession = DeviceClockSession()

    public init(entry: CatalogEntry, connection: any BluetoothConnection, session: StandardSession? = nil) {
        self.entry = entry
        self.connection = connection
        self.session = session
    }

    /// Reads the Current Time (0x2A2B); a meter without the Current Time Service has its records marked
    /// `timeUnverified` (a glucose record is always dated).
    public func readClock(hubClock: @escaping @Sendable () -> Timestamp) async throws(DeviceError) {
        try await clockSession.read(from: connection, hubClock: hubClock)
    }

    public func setClock(hubTime: Timestamp) async throws(DeviceError) -> Int64? {
        try await setClock(hubTime: hubTime, readBy: clockSession)
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
                let record = try DeviceRecord(
                    decoding: bytes, of: GlucoseMeasurement.uuid, clock: clockSession.clock)
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

        let transfer = records
        let expected = try await transfer.count(filter)
        progress(SyncProgress(stored: 0, expected: expected))
        guard expected > 0 else { return 0 }
        let received = try await transfer.receive(
            filter, expected: expected, into: sink, progress: progress,
            decoding: { [clock = clockSession.clock] bytes throws(DeviceError) in
                try DeviceRecord(decoding: bytes, of: GlucoseMeasurement.uuid, clock: clock)
            },
            other: { characteristic, bytes throws(DeviceError) in
                switch characteristic {
                case GATTCharacteristics.glucoseContext: _ = try decode(GlucoseMeasurementContext.self, bytes)
                case GATTCharacteristics.vendorStatus: _ = try vendorEvent(bytes)
                default: break
                }
            })
        // every record is committed; now the meter may forget exactly those
        if let highest = received.highestSequenceNumber {
            try await transfer.delete(.lessThanOrEqual(.sequenceNumber(highest)))
        }
        return received.stored
    }

    /// The meter's Record Access Control Point transfers (`RecordTransfer`: a cancelled sync is aborted).
    var records: RecordTransfer {
        RecordTransfer(
            connection: connection, controlPoint: GATTCharacteristics.glucoseRACP,
            records: GATTCharacteristics.glucoseMeasurement, batchSize: batchSize, session: session)
    }
}
