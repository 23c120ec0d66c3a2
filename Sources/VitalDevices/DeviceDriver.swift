import HealthGATT
import VitalCore

/// What a measurement needs besides the device: the BG5 strip code.
public struct MeasureOptions: Hashable, Sendable {
    public var stripCode: StripCode?
    /// How long a recording lasts, in seconds, for a device that records a series (a heart-rate sensor's RR
    /// intervals); the driver's own length when `nil`.
    public var recordingSeconds: Int?

    public init(stripCode: StripCode? = nil, recordingSeconds: Int? = nil) {
        self.stripCode = stripCode
        self.recordingSeconds = recordingSeconds
    }
}

/// Who a request is for, as a driver needs to know before it uses the device: the PO3 authenticates the caller and
/// sets its clock, an activity monitor is bound to the caller's user profile.
public struct DeviceSession: Hashable, Sendable {
    /// The caller's identifier (its bundle or package id): the PO3's user.
    public var caller: String
    /// The user profile the request carries (activity monitors), if any.
    public var profile: ActivityProfile?
    /// The time now, for a device's clock.
    public var time: Timestamp

    public init(caller: String, profile: ActivityProfile? = nil, time: Timestamp) {
        self.caller = caller
        self.profile = profile
        self.time = time
    }
}

/// The operations every driver offers over an open connection.
///
/// Every reading a device hands over, live or stored, goes through the ``RecordSink`` before the device is told it
/// may forget it.
public protocol DeviceDriver: Sendable {
    var entry: CatalogEntry { get }
    var connection: any BluetoothConnection { get }

    /// Reads the device's clock, before anything of the session reads a record, when its records carry the
    /// device's time: the records of the session are then corrected by what it read (``DeviceClock``) against
    /// `hubClock`, the hub's time. Nothing for devices whose readings the hub dates or that date only days.
    func readClock(hubClock: @escaping @Sendable () -> Timestamp) async throws(DeviceError)
    /// Sets the device's clock to `hubTime` when the session read it off by more than ``DeviceClock/tolerance`` and
    /// the device lets it be set (a writable Current Time; where that is read-only, the vendor set-time command of
    /// a device that speaks the vendor control service); returns the offset it had, `nil` when nothing was set
    /// (right, unknown, read-only without a set-time command, the command refused, or a device whose readings the
    /// hub dates). A clock is never set unless the session read it. Call it once the session's records are stored:
    /// they were dated by the clock as it was, and are corrected by what the session read.
    func setClock(hubTime: Timestamp) async throws(DeviceError) -> Int64?
    /// Readies the device for a request of `session` before any stage runs: whatever the family needs first
    /// (authentication, clock, user binding). Nothing for most devices.
    func prepare(for session: DeviceSession) async throws(DeviceError)
    /// Reads serial number, firmware revision and battery level.
    func deviceInfo() async throws(DeviceError) -> DeviceInfo
    /// Takes a live measurement, streaming samples to `observer`; the reading is stored through `sink` before it
    /// is returned.
    func measure(
        _ options: MeasureOptions, into sink: any RecordSink, observer: @escaping @Sendable (LiveSample) -> Void
    ) async throws(DeviceError) -> DeviceRecord
    /// Reads every stored record into `sink`, then lets the device forget exactly those. Returns how many.
    func sync(into sink: any RecordSink, progress: @escaping @Sendable (SyncProgress) -> Void) async throws(DeviceError)
        -> Int
    /// Restores the device's factory settings after storing through `sink` everything it still holds (a reset
    /// erases its memory); returns how many records were stored first. Throws ``DeviceError/Code/unsupported``
    /// for a device with no factory reset the hub can send (all but the PO3 and the smartbands).
    func resetToFactory(storingInto sink: any RecordSink) async throws(DeviceError) -> Int
    /// Syncs the stored records of `user` on a device that keeps its users apart (User Data Service): consents as
    /// them, stores through `sink` what the device then sends, and settles whose data win
    /// (``UserDataClient/reconcile(_:today:)``). Call it after ``sync(into:progress:)``, which takes what belongs to
    /// no user. Throws ``DeviceError/Code/unsupported`` for a device without users.
    func sync(
        user: DeviceUser, today: CalendarDate, into sink: any RecordSink,
        progress: @escaping @Sendable (SyncProgress) -> Void
    ) async throws(DeviceError) -> UserSync
    /// Syncs `user` as ``sync(user:today:into:progress:)`` does, then deletes their data on the device (Delete User
    /// Data, which frees their slot and the records with it). Returns how many records it stored. Throws
    /// ``DeviceError/Code/unsupported`` for a device without users.
    func forget(user: DeviceUser, today: CalendarDate, into sink: any RecordSink) async throws(DeviceError) -> Int
}

/// What a sync of one user of a device did (``DeviceDriver/sync(user:today:into:progress:)``).
public struct UserSync: Hashable, Sendable {
    /// How many records it stored.
    public var stored: Int
    /// What became of the user's data.
    public var reconciled: UserDataReconciled
}

extension DeviceDriver {
    public func readClock(hubClock: @escaping @Sendable () -> Timestamp) async throws(DeviceError) {}

    public func setClock(hubTime: Timestamp) async throws(DeviceError) -> Int64? { nil }

    public func prepare(for session: DeviceSession) async throws(DeviceError) {}

    public func resetToFactory(storingInto sink: any RecordSink) async throws(DeviceError) -> Int {
        throw DeviceError(.unsupported, message: "\(entry.model.name) has no factory reset the hub can send")
    }

    public func sync(
        user: DeviceUser, today: CalendarDate, into sink: any RecordSink,
        progress: @escaping @Sendable (SyncProgress) -> Void
    ) async throws(DeviceError) -> UserSync {
        throw DeviceError(.unsupported, message: "\(entry.model.name) keeps no users (no User Data Service)")
    }

    public func forget(user: DeviceUser, today: CalendarDate, into sink: any RecordSink) async throws(DeviceError)
        -> Int
    {
        throw DeviceError(.unsupported, message: "\(entry.model.name) keeps no users (no User Data Service)")
    }

    /// The Battery Level (0x2A19) in percent, `nil` for a device without the Battery Service.
    /// - Throws: ``DeviceError/Code/protocolViolation`` for a level that is not one byte from 0 to 100.
    public func batteryLevel() async throws(DeviceError) -> Int? {
        guard await connection.offers(GATTCharacteristics.batteryLevel) else { return nil }
        let bytes = try await connection.read(GATTCharacteristics.batteryLevel)
        guard bytes.count == 1, bytes[0] <= 100 else {
            throw DeviceError(
                .protocolViolation,
                message: "the battery level \(hexadecimal(bytes)) is not one byte from 0 to 100 (percent)")
        }
        return Int(bytes[0])
    }

    /// Reads what the device has of its Serial Number and Firmware Revision strings and its battery level: a
    /// characteristic its GATT table lacks (a device without the Battery Service, a partial Device Information
    /// Service) is `nil`, not an error. A string's trailing NUL bytes (padding some devices send) are dropped.
    /// - Throws: ``DeviceError/Code/protocolViolation`` naming the characteristic whose value is malformed (a
    ///   string that is not UTF-8, a battery level that is not one byte from 0 to 100).
    public func deviceInfo() async throws(DeviceError) -> DeviceInfo {
        let g = GATTCharacteristics.self
        let serial = try await text(g.serialNumber, "serial number")
        let firmware = try await text(g.firmwareRevision, "firmware revision")
        return DeviceInfo(serialNumber: serial, firmwareRevision: firmware, batteryLevel: try await batteryLevel())
    }

    /// The UTF-8 string of `characteristic` without trailing NULs, `nil` when the device does not have it.
    private func text(_ characteristic: CharacteristicID, _ name: String) async throws(DeviceError) -> String? {
        guard await connection.offers(characteristic) else { return nil }
        var bytes = try await connection.read(characteristic)
        while bytes.last == 0 { bytes.removeLast() }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw DeviceError(.protocolViolation, message: "the \(name) \(hexadecimal(bytes)) is not UTF-8")
        }
        return text
    }

    /// Writes a vendor command.
    func send(_ command: VendorCommand) async throws(DeviceError) {
        try await connection.write(GATTCharacteristics.vendorControlPoint, command.encoded)
    }

    /// Stores `records` at once (a live reading, a pushed one), mapping a sink failure to
    /// ``DeviceError/Code/storeFailed``.
    func store(_ records: [DeviceRecord], in sink: any RecordSink) async throws(DeviceError) {
        var batches = RecordBatches(into: sink, size: records.count, expected: nil) { _ in }
        for record in records { try await batches.add(record) }
        try await batches.flush()
    }

    /// Writes a vendor `command` and waits for its result event; a refusal throws
    /// ``DeviceError/Code/deviceReported`` with `refusalCode`, the family's code for it (PO3: 5, send failed).
    func vendorCommand(_ command: VendorCommand, refusalCode: Int? = nil) async throws(DeviceError) {
        guard try await vendorResult(command) else {
            throw DeviceError(.deviceReported, deviceCode: refusalCode, message: "the device refused the command")
        }
    }

    /// Writes a vendor `command` and waits for its result event: whether the device carried it out. A device error
    /// it notifies meanwhile is thrown (`vendorEvent(_:)`).
    func vendorResult(_ command: VendorCommand) async throws(DeviceError) -> Bool {
        try await connection.subscribe(GATTCharacteristics.vendorStatus)
        try await send(command)
        let opCode = command.opCode.rawValue
        while true {
            guard case .notification(GATTCharacteristics.vendorStatus, let bytes) = try await connection.nextEvent(),
                case .commandResult(opCode, let success) = try vendorEvent(bytes)
            else { continue }
            return success
        }
    }

    /// Whether the device speaks VitalBridge's vendor control service (0xFFF0): the iHealth models do, a generic
    /// SIG device (900–905) does not.
    var speaksVendor: Bool { !entry.model.isStandardProfile }

    /// Sets the device's clock, which `clockSession` read, to `hubTime` when it is off by more than
    /// ``DeviceClock/tolerance``: by writing its Current Time, or, where that is read-only and the device speaks the
    /// vendor control service, by the vendor set-time command (``VendorCommand/setTime(_:)``). Returns the offset
    /// the clock had; `nil` when nothing was set: the clock is right or was not read, the Current Time is read-only
    /// and the device has no set-time command, or it refused the command (``VendorEvent/commandResult(opCode:success:)``
    /// with `success` false), which, like a read-only Current Time, is not an error: the clock is left as it is and
    /// the session's records are corrected all the same.
    ///
    /// - Throws: a dropped link, a device error notified on the vendor status.
    func setClock(hubTime: Timestamp, readBy clockSession: DeviceClockSession) async throws(DeviceError) -> Int64? {
        guard speaksVendor else { return try await clockSession.set(on: connection, hubTime: hubTime) }
        return try await clockSession.set(on: connection, hubTime: hubTime) { time throws(DeviceError) in
            try await vendorResult(.setTime(DateTime(time)))
        }
    }

    /// The next event; with a `wait`, ``DeviceError/Code/timedOut`` when none comes within it (a generic SIG
    /// device whose user does not measure).
    func nextEvent(waiting wait: Duration?) async throws(DeviceError) -> GATTEvent {
        guard let wait else { return try await connection.nextEvent() }
        guard let event = try await connection.nextEvent(within: wait) else {
            throw DeviceError(.timedOut, message: "the device sent nothing within \(wait.components.seconds) s")
        }
        return event
    }

    /// Throws ``DeviceError/Code/cancelled`` when the task running the operation was cancelled.
    func checkCancellation() throws(DeviceError) {
        if Task.isCancelled { throw DeviceError(.cancelled, message: "the operation was cancelled") }
    }
}

/// Records on their way to a sink in batches of at most `size`: a sync of any length holds one batch, and each
/// batch is committed before the device may be told to forget it.
struct RecordBatches {
    let sink: any RecordSink
    let size: Int
    let expected: Int?
    let progress: @Sendable (SyncProgress) -> Void
    private var batch: [DeviceRecord] = []
    /// How many records the sink has stored.
    private(set) var stored = 0

    init(into sink: any RecordSink, size: Int, expected: Int?, progress: @escaping @Sendable (SyncProgress) -> Void) {
        self.sink = sink
        self.size = max(size, 1)
        self.expected = expected
        self.progress = progress
        batch.reserveCapacity(self.size)
    }

    /// Adds `record`, storing the batch when it is full.
    mutating func add(_ record: DeviceRecord) async throws(DeviceError) {
        batch.append(record)
        if batch.count == size { try await flush() }
    }

    /// Stores what the batch holds (a sink failure is ``DeviceError/Code/storeFailed``) and reports progress.
    mutating func flush() async throws(DeviceError) {
        guard !batch.isEmpty else { return }
        do {
            try await sink.store(batch)
        } catch {
            throw DeviceError(.storeFailed, message: "the store refused \(batch.count) record(s): \(error)")
        }
        stored += batch.count
        batch.removeAll(keepingCapacity: true)
        progress(SyncProgress(stored: stored, expected: expected))
    }
}

/// The driver for the model of `entry` over `connection`; `clock` is the host's time (a smartband's today's totals
/// are dated with it); `addedAt`, when the hub added the device (a smartband's clock showing an earlier time had
/// restarted).
public func makeDriver(
    for entry: CatalogEntry, connection: any BluetoothConnection,
    clock: @escaping @Sendable () -> Timestamp, addedAt: Timestamp? = nil
) -> any DeviceDriver {
    // a generic SIG device's new reading may come in any stage of the request
    let session = entry.model.isStandardProfile ? StandardSession(start: clock()) : nil
    switch entry.family {
    case .bloodPressure, .scale, .thermometer:
        if let session { return StandardPushDriver(entry: entry, connection: connection, session: session) }
        return PushDeviceDriver(entry: entry, connection: connection)
    case .glucose: return GlucoseDriver(entry: entry, connection: connection, session: session)
    case .pulseOximeter: return PulseOximeterDriver(entry: entry, connection: connection, session: session)
    case .activityMonitor: return ActivityMonitorDriver(entry: entry, connection: connection)
    case .smartband:
        var driver = SmartbandDriver(entry: entry, connection: connection, clock: clock)
        driver.addedAt = addedAt
        return driver
    case .heartRateSensor: return HeartRateDriver(entry: entry, connection: connection, clock: clock)
    }
}

/// Reads a vendor status event, turning device errors and user stops into thrown errors.
func vendorEvent(_ value: [UInt8]) throws(DeviceError) -> VendorEvent {
    if value.first == PO3HistoryWave.eventCode {
        // a history wave that does not decode says what is wrong with it (truncated, overlong, out of range)
        do {
            return .historyWave(try PO3HistoryWave(bytes: value))
        } catch {
            throw DeviceError(.protocolViolation, message: "\(error)")
        }
    }
    guard let event = VendorEvent(bytes: value) else {
        throw DeviceError(.protocolViolation, message: "an unknown vendor status event")
    }
    switch event {
    case .deviceError(let code):
        throw DeviceError(.deviceReported, deviceCode: Int(code), message: "the device reported error \(code)")
    case .commandResult(VendorOpCode.startMeasurement.rawValue, false):
        throw DeviceError(.cancelled, message: "the measurement was stopped on the device")
    default:
        return event
    }
}

/// Decodes a characteristic value, mapping a decoding failure to a protocol violation.
func decode<C: GATTCharacteristic>(_ type: C.Type, _ bytes: [UInt8]) throws(DeviceError) -> C {
    do {
        return try C(bytes: bytes)
    } catch {
        throw DeviceError(.protocolViolation, message: "\(error)")
    }
}

// MARK: - Devices that push stored records as indications

/// Blood pressure monitors, scales and thermometers: they indicate their stored readings right after the central
/// subscribes to the measurement characteristic, one at a time (each waits for its confirmation, and is deleted
/// from the device by it), then notify ``VendorEvent/transferComplete(count:)``. A live measurement, started with
/// ``VendorCommand/startMeasurement`` (scales start when stepped on), is indicated the same way.
public struct PushDeviceDriver: DeviceDriver {
    public let entry: CatalogEntry
    public let connection: any BluetoothConnection
    /// What the session read of the device's clock: every reading is corrected by it.
    public let clockSession = DeviceClockSession()

    var measurementCharacteristic: CharacteristicID { entry.measurementCharacteristic }

    func record(from bytes: [UInt8]) throws(DeviceError) -> DeviceRecord {
        try DeviceRecord(decoding: bytes, of: measurementCharacteristic.characteristic, clock: clockSession.clock)
    }

    /// Reads the Current Time (0x2A2B); a monitor without the Current Time Service has its readings marked
    /// `timeUnverified`.
    public func readClock(hubClock: @escaping @Sendable () -> Timestamp) async throws(DeviceError) {
        try await clockSession.read(from: connection, hubClock: hubClock)
    }

    public func setClock(hubTime: Timestamp) async throws(DeviceError) -> Int64? {
        try await setClock(hubTime: hubTime, readBy: clockSession)
    }

    /// Subscribes and stores every pushed stored reading until the transfer completes; returns how many.
    func drainStoredRecords(into sink: any RecordSink, progress: @Sendable (SyncProgress) -> Void)
        async throws(DeviceError) -> Int
    {
        try await connection.subscribe(GATTCharacteristics.vendorStatus)
        try await connection.subscribe(measurementCharacteristic)
        var stored = 0
        while true {
            try checkCancellation()
            switch try await connection.nextEvent() {
            case .indication(measurementCharacteristic, let bytes, let token):
                let record = try record(from: bytes)
                try await store([record], in: sink)
                try await connection.confirm(token)
                stored += 1
                progress(SyncProgress(stored: stored, expected: nil))
            case .notification(GATTCharacteristics.vendorStatus, let bytes):
                if case .transferComplete(let count) = try vendorEvent(bytes) {
                    guard Int(count) == stored else {
                        throw DeviceError(
                            .protocolViolation, message: "the device announced \(count) records and sent \(stored)")
                    }
                    return stored
                }
            default:
                continue
            }
        }
    }

    public func sync(into sink: any RecordSink, progress: @escaping @Sendable (SyncProgress) -> Void)
        async throws(DeviceError) -> Int
    {
        try await drainStoredRecords(into: sink, progress: progress)
    }

    public func measure(
        _ options: MeasureOptions, into sink: any RecordSink, observer: @escaping @Sendable (LiveSample) -> Void
    ) async throws(DeviceError) -> DeviceRecord {
        // Stored readings come first on these devices; keeping them is never wrong, dropping them would lose data.
        _ = try await drainStoredRecords(into: sink) { _ in }
        if let progress = entry.family.traits.progressCharacteristic { try await connection.subscribe(progress) }
        try await send(.startMeasurement)
        while true {
            try checkCancellation()
            switch try await connection.nextEvent() {
            case .notification(GATTCharacteristics.intermediateCuffPressure, let bytes):
                let cuff = try decode(IntermediateCuffPressure.self, bytes)
                if let pressure = cuff.cuffPressure.doubleValue {
                    observer(.cuffPressure(cuff.unit == .kPa ? pressure / 0.133_322_387_415 : pressure))
                }
            case .indication(measurementCharacteristic, let bytes, let token):
                let record = try record(from: bytes)
                try await store([record], in: sink)
                try await connection.confirm(token)
                return record
            case .notification(GATTCharacteristics.vendorStatus, let bytes):
                _ = try vendorEvent(bytes)
            default:
                continue
            }
        }
    }
}

/// `bytes` in hexadecimal for an error message: `[01 FF]`.
private func hexadecimal(_ bytes: [UInt8]) -> String {
    let digits = bytes.map { byte in
        let text = String(byte, radix: 16, uppercase: true)
        return byte < 16 ? "0" + text : text
    }
    return "[" + digits.joined(separator: " ") + "]"
}
