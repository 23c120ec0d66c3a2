import HealthGATT
import Locking
import VitalCore

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

/// One connection to a generic SIG device, across a request's stages: the first new reading it sent.
///
/// A device sends its backlog with the user's new reading whenever it connects, so the reading a measurement
/// waits for may already have come during the sync stage of the same request (cmds 5 and 6): the measurement is
/// then that one, not another the user would have to take.
public final class StandardSession: Sendable {
    /// The host's time when the request began, in seconds since 1970.
    let start: Int64
    /// The time of a reading the device sends without one (a device without a clock): the request's start.
    var undatedAt: Timestamp { Timestamp(secondsSince1970: start) }
    private let new = Locked<DeviceRecord?>(nil)

    /// A session of a request that began at `start` (the host's time).
    public init(start: Timestamp) { self.start = start.secondsSince1970 }

    /// Whether `record` is new: dated within ``StandardWaits/freshness`` of the request's start.
    func isNew(_ record: DeviceRecord) -> Bool {
        abs(record.reading.measuredAt.secondsSince1970 - start) <= StandardWaits.freshness
    }

    /// Notes `record`, a reading the device sent, if it is the first new one, or that one completed (a weight
    /// with the body composition that followed it).
    func received(_ record: DeviceRecord) {
        guard isNew(record) else { return }
        new.withLock { if $0 == nil || $0?.reading.measuredAt == record.reading.measuredAt { $0 = record } }
    }

    /// The first new reading received and not yet taken.
    func takeNew() -> DeviceRecord? { new.withLock { $0.take() } }
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
/// - A reading without a time stamp (a device without a clock, which keeps no backlog) is dated at the request's
///   start: it is new.
/// - A measurement waits up to ``StandardWaits/measurement`` for each next reading: the user measures on the
///   device, which then sends its backlog, oldest first, and the new reading last. The measurement is the first
///   reading within ``StandardWaits/freshness`` of the host's time when the request began; the ones before it are
///   stored records, never passed off as a new measurement. A device that sends no such reading fails the stage:
///   ``DeviceError/Code/disconnected`` when it hung up, ``DeviceError/Code/timedOut`` when it went quiet.
public struct StandardPushDriver: DeviceDriver {
    public let entry: CatalogEntry
    public let connection: any BluetoothConnection
    /// What this connection brought so far: its new reading is what a measurement returns.
    public let session: StandardSession
    /// What the session read of the device's clock: every reading the device dated is corrected by it.
    public let clockSession = DeviceClockSession()

    public init(entry: CatalogEntry, connection: any BluetoothConnection, session: StandardSession) {
        self.entry = entry
        self.connection = connection
        self.session = session
    }

    /// Reads the Current Time (0x2A2B), when the device dates its readings: a device without a clock sends no
    /// time stamp (its readings are the hub's time) and needs no Current Time Service; one that dates them
    /// without the service has them marked `timeUnverified`.
    public func readClock(hubClock: @escaping @Sendable () -> Timestamp) async throws(DeviceError) {
        try await clockSession.read(from: connection, hubClock: hubClock)
    }

    public func setClock(hubTime: Timestamp) async throws(DeviceError) -> Int64? {
        try await setClock(hubTime: hubTime, readBy: clockSession)
    }

    public func sync(into sink: any RecordSink, progress: @escaping @Sendable (SyncProgress) -> Void)
        async throws(DeviceError) -> Int
    {
        try await StandardReception(self, into: sink, observer: { _ in }, progress: progress, until: { _ in false })
            .run(waiting: StandardWaits.quiet).count
    }

    /// Consents as `user`, settles whose data win, and takes what the device then sends until it is quiet for
    /// ``StandardWaits/quiet``, as ``sync(into:progress:)`` does. What arrives is stored even when the user's data
    /// turn out rewound (the device sent it, and a record the hub does not keep is lost over BlueZ, which confirms
    /// indications itself): the error comes after. A reading the device indicates while the hub waits for the
    /// consent's answer (someone measured just then) is stored and confirmed as any other: the device sends nothing
    /// more, the answer included, until it is confirmed.
    public func sync(
        user: DeviceUser, today: CalendarDate, into sink: any RecordSink,
        progress: @escaping @Sendable (SyncProgress) -> Void
    ) async throws(DeviceError) -> UserSync {
        try await sync(user, today: today, into: sink, progress: progress, thenDelete: false)
    }

    public func forget(user: DeviceUser, today: CalendarDate, into sink: any RecordSink) async throws(DeviceError)
        -> Int
    {
        try await sync(user, today: today, into: sink, progress: { _ in }, thenDelete: true).stored
    }

    private func sync(
        _ user: DeviceUser, today: CalendarDate, into sink: any RecordSink,
        progress: @escaping @Sendable (SyncProgress) -> Void, thenDelete: Bool
    ) async throws(DeviceError) -> UserSync {
        guard let users = try await UserDataClient(connection) else {
            throw DeviceError(.unsupported, message: "\(entry.model.name) keeps no users (no User Data Service)")
        }
        let reception = try await StandardReception(
            self, into: sink, observer: { _ in }, progress: progress, until: { _ in false })
        let meanwhile: UserDataClient.Meanwhile = { event throws(DeviceError) in try await reception.take(event) }
        try await users.consent(userIndex: user.userIndex, consentCode: user.consentCode, meanwhile: meanwhile)
        let reconciled: Result<UserDataReconciled, DeviceError>
        do {
            reconciled = .success(try await users.reconcile(user, today: today))
        } catch {
            reconciled = .failure(error)
        }
        _ = try await reception.run(waiting: StandardWaits.quiet)
        let synced = try reconciled.get()
        if thenDelete { try await users.deleteUserData(meanwhile: meanwhile) }
        return UserSync(stored: reception.count, reconciled: synced)
    }

    public func measure(
        _ options: MeasureOptions, into sink: any RecordSink, observer: @escaping @Sendable (LiveSample) -> Void
    ) async throws(DeviceError) -> DeviceRecord {
        if let measurement = session.takeNew() { return measurement }
        let received = try await StandardReception(
            self, into: sink, observer: observer, progress: { _ in }, until: session.isNew
        ).run(waiting: StandardWaits.measurement)
        if let measurement = received.stoppedAt {
            _ = session.takeNew()
            return measurement
        }
        let stored = received.count == 0 ? "" : " (\(received.count) stored reading(s) were kept)"
        if received.hungUp {
            throw DeviceError(.disconnected, message: "the device disconnected without a new reading\(stored)")
        }
        throw DeviceError(
            .timedOut,
            message: "no new reading within \(StandardWaits.measurement.components.seconds) s\(stored)")
    }
}

/// A scale's weights and body compositions, which come on two characteristics, one just before or after the
/// other, paired by their time stamps.
struct CompositionPairing {
    /// The last weight without a composition: its composition may still follow.
    private var weight: DeviceRecord?
    /// A composition that came before its weight.
    private var composition: (time: Timestamp, value: BodyCompositionMeasurement)?

    /// What to store for a weight that arrived: with its composition, if that came first.
    mutating func received(weight record: DeviceRecord) -> DeviceRecord {
        guard case .weight(let reading) = record.reading else { return record }
        if let held = composition.take(), held.time == reading.measuredAt {
            weight = nil
            var whole = record.reading
            held.value.apply(to: &whole)
            return DeviceRecord(reading: whole, sequenceNumber: record.sequenceNumber)
        }
        weight = reading.bodyComposition == nil ? record : nil
        return record
    }

    /// Whether `record` is the weight whose composition may still follow.
    func awaitsComposition(of record: DeviceRecord) -> Bool { weight == record }

    /// What to store for a body composition that arrived: the weight it completes, a weight of its own, or
    /// nothing until its weight comes. One whose body fat is unsuccessful completes its weight as any other
    /// (`BodyCompositionMeasurement.apply(to:)`).
    ///
    /// A time stamp the scale sent is corrected by `clock`, as its weight's was.
    ///
    /// - Throws: ``DeviceError/Code/protocolViolation`` for an incomplete time stamp.
    mutating func received(
        composition measurement: BodyCompositionMeasurement, undatedAt: Timestamp, clock: DeviceClock? = nil
    ) throws(DeviceError) -> (record: DeviceRecord, completes: Bool)? {
        var time = try measurement.timeStamp.measuredAt("a body composition", undatedAt)
        let dated = measurement.timeStamp != nil
        if dated, let clock { time = clock.corrected(time) }
        let previous = weight.take()
        let completes = previous?.reading.measuredAt == time
        if measurement.weight != nil {
            // a whole reading: its weight is the scale's
            let record = try DeviceRecord(measurement, undatedAt)
            return (dated ? clock?.corrected(record) ?? record : record, completes)
        }
        guard let previous, completes else {
            composition = (time, measurement)
            return nil
        }
        var reading = previous.reading
        measurement.apply(to: &reading)
        return (DeviceRecord(reading: reading, sequenceNumber: previous.sequenceNumber), true)
    }
}
