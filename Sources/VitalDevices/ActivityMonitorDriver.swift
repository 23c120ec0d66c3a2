import HealthGATT
import VitalCore

/// The activity monitors AM3S and AM4, over VitalBridge's vendor activity service (``VendorGATT``).
///
/// The monitor is bound to the user profile the caller sends (``bind(_:)``). A sync asks for the stored days
/// (``VendorCommand/reportActivity``), which arrive as ``ActivityDayRecord`` notifications followed by
/// ``VendorEvent/transferComplete(count:)``; they are stored in batches as they arrive, and once the last batch is
/// committed and the count matches, the driver deletes exactly that many days. The monitor dates its days by its
/// own clock, which its protocol can neither read nor set: every day is marked `timeUnverified`.
public struct ActivityMonitorDriver: DeviceDriver {
    public let entry: CatalogEntry
    public let connection: any BluetoothConnection
    /// Days stored per sink call during a sync.
    public var batchSize = 512

    public init(entry: CatalogEntry, connection: any BluetoothConnection) {
        self.entry = entry
        self.connection = connection
    }

    /// Binds the monitor to the session's user profile, when the request carries one.
    public func prepare(for session: DeviceSession) async throws(DeviceError) {
        if let profile = session.profile { try await bind(profile) }
    }

    /// Binds the monitor to `profile` (user, body, swim switch, distance unit).
    public func bind(_ profile: ActivityProfile) async throws(DeviceError) {
        try await vendorCommand(.bindProfile(profile))
    }

    public func measure(
        _ options: MeasureOptions, into sink: any RecordSink, observer: @escaping @Sendable (LiveSample) -> Void
    ) async throws(DeviceError) -> DeviceRecord {
        throw DeviceError(.unsupported, message: "\(entry.model.name) does not take live measurements")
    }

    public func sync(into sink: any RecordSink, progress: @escaping @Sendable (SyncProgress) -> Void)
        async throws(DeviceError) -> Int
    {
        try await connection.subscribe(GATTCharacteristics.vendorStatus)
        try await connection.subscribe(GATTCharacteristics.activityRecords)
        try await send(.reportActivity)
        var batches = RecordBatches(into: sink, size: batchSize, expected: nil, progress: progress)
        while true {
            try checkCancellation()
            switch try await connection.nextEvent() {
            case .notification(GATTCharacteristics.activityRecords, let bytes):
                guard let day = ActivityDayRecord(bytes: bytes) else {
                    throw DeviceError(.protocolViolation, message: "an activity record is malformed")
                }
                // the monitor dates its days by its own clock, which its protocol cannot read
                var reading = Reading.activity(day.day)
                reading.annotations.status.insert(.timeUnverified)
                try await batches.add(DeviceRecord(reading: reading))
            case .notification(GATTCharacteristics.vendorStatus, let bytes):
                guard case .transferComplete(let count) = try vendorEvent(bytes) else { continue }
                // what arrived is kept either way; the monitor forgets days only when the count is right
                try await batches.flush()
                guard Int(count) == batches.stored else {
                    throw DeviceError(
                        .protocolViolation, message: "the monitor announced \(count) days and sent \(batches.stored)")
                }
                guard count > 0 else { return 0 }
                try await vendorCommand(.deleteActivity(count: count))
                return batches.stored
            default:
                continue
            }
        }
    }
}
