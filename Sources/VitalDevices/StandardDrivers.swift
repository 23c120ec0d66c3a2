import HealthGATT
import LayeredProtocol

/// How long the drivers of VitalBridge's generic SIG devices (900–904) wait: those devices speak only their
/// Bluetooth SIG profile, which has no command to start a measurement and no end-of-transfer for pushed readings.
public enum StandardWaits {
    /// A push device that sends nothing for this long has sent all it had: 5 s (a device indicates its backlog
    /// back to back, one reading per confirmation, tens of milliseconds apart).
    public static let quiet: Duration = .seconds(5)
    /// How long a measurement waits for the user to measure on the device, and then for the device's next
    /// reading: 2 minutes.
    public static let measurement: Duration = .seconds(120)
    /// How far from the host's time, either way, a pushed reading's time stamp may be for it to be the
    /// measurement a request waits for, not a stored one: 15 minutes (the user measures, then the device connects;
    /// and a device's clock is set by hand).
    public static let freshness: Int64 = 15 * 60
}

/// A blood pressure monitor, scale or thermometer of any maker (VitalBridge's 900, 902, 903): it indicates its
/// unsent readings as soon as the hub subscribes, each deleted on the device when its indication is confirmed,
/// and ends the session by disconnecting or by going quiet.
///
/// Each reading is stored the moment it arrives, then confirmed. (Over BlueZ the system confirms an indication
/// before the hub sees it: the store-before-confirm rule then holds for the in-process transport only, and the
/// window is one record; see the scheme article.)
///
/// - A sync takes what the device sends until it disconnects or is quiet for ``StandardWaits/quiet``: the profile
///   has no count of stored readings, so the link's end is the transfer's end. A drop during a sync therefore ends
///   it successfully with what arrived; what did not arrive stays on the device.
/// - A measurement waits up to ``StandardWaits/measurement`` for each next reading: the user measures on the
///   device, which then sends its backlog, oldest first, and the new reading last. The measurement is the first
///   reading within ``StandardWaits/freshness`` of the host's time when the request began; the ones before it are
///   stored records, never passed off as a new measurement. A device that sends no such reading fails the stage:
///   ``DeviceError/Code/disconnected`` when it hung up, ``DeviceError/Code/timedOut`` when it went quiet.
public struct StandardPushDriver: DeviceDriver {
    public let entry: CatalogEntry
    public let connection: any BluetoothConnection
    /// The host's clock: what a new reading's time stamp is compared with.
    public let clock: @Sendable () -> LayeredTimestamp

    public init(
        entry: CatalogEntry, connection: any BluetoothConnection, clock: @escaping @Sendable () -> LayeredTimestamp
    ) {
        self.entry = entry
        self.connection = connection
        self.clock = clock
    }

    public func sync(into sink: any RecordSink, progress: @escaping @Sendable (SyncProgress) -> Void)
        async throws(DeviceError) -> Int
    {
        try await receive(waiting: StandardWaits.quiet, into: sink, observer: { _ in }, progress: progress).count
    }

    public func measure(
        _ options: MeasureOptions, into sink: any RecordSink, observer: @escaping @Sendable (LiveSample) -> Void
    ) async throws(DeviceError) -> DeviceRecord {
        let start = clock().secondsSince1970
        let session = try await receive(
            waiting: StandardWaits.measurement, into: sink, observer: observer, progress: { _ in },
            until: { abs($0.reading.measuredAt.secondsSince1970 - start) <= StandardWaits.freshness })
        if let measurement = session.stoppedAt { return measurement }
        let stored = session.count == 0 ? "" : " (\(session.count) stored reading(s) were kept)"
        if session.hungUp {
            throw DeviceError(.disconnected, message: "the device disconnected without a new reading\(stored)")
        }
        throw DeviceError(
            .timedOut,
            message: "no new reading within \(StandardWaits.measurement.components.seconds) s\(stored)")
    }

    /// What one session brought: how many readings, the one it stopped at, and whether the device hung up.
    struct Session {
        var count = 0
        var stoppedAt: DeviceRecord?
        var hungUp = false
    }

    /// Stores and confirms every reading the device indicates until it disconnects, sends nothing for `wait`, or
    /// sends a reading `stop` accepts.
    func receive(
        waiting wait: Duration, into sink: any RecordSink, observer: @Sendable (LiveSample) -> Void,
        progress: @Sendable (SyncProgress) -> Void, until stop: (DeviceRecord) -> Bool = { _ in false }
    ) async throws(DeviceError) -> Session {
        let measurement = entry.measurementCharacteristic
        let cuff = GATTCharacteristics.intermediateCuffPressure
        // the cuff pressure is optional in the Blood Pressure Service
        if entry.family == .bloodPressure, await connection.offers(cuff) { try await connection.subscribe(cuff) }
        try await connection.subscribe(measurement)
        var session = Session()
        do {
            while let event = try await connection.nextEvent(within: wait) {
                try checkCancellation()
                switch event {
                case .indication(measurement, let bytes, let token):
                    let record = try DeviceRecord(decoding: bytes, of: measurement.characteristic)
                    try await store([record], in: sink)
                    session.count += 1
                    progress(SyncProgress(stored: session.count, expected: nil))
                    try await connection.confirm(token)
                    if stop(record) {
                        session.stoppedAt = record
                        return session
                    }
                case .notification(cuff, let bytes):
                    let value = try decode(IntermediateCuffPressure.self, bytes)
                    if let pressure = value.cuffPressure.doubleValue {
                        observer(.cuffPressure(value.unit == .kPa ? pressure / 0.133_322_387_415 : pressure))
                    }
                default:
                    continue
                }
            }
        } catch  where error.code == .disconnected {
            // the device ends its session by disconnecting; everything that arrived is stored
            session.hungUp = true
        }
        return session
    }
}
