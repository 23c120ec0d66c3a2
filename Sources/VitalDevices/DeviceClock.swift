import HealthGATT
import Locking
import VitalCore

/// What the hub learned of a device's clock in one session, before it read the device's records.
///
/// A device dates its records with its own clock, which may never have been set (it then counts from 2000-01-01,
/// or from a Date Time of zeros), may have restarted after a battery change, or may simply be hours off. The hub
/// reads the clock once a session, before any record (``DeviceDriver/readClock(hubClock:)``), and corrects every
/// time stamp of the session by the offset: `measuredAt` = reported − offset, the reported time kept as the
/// reading's `annotations.deviceTime`.
///
/// ```swift
/// let clock = DeviceClock(deviceTime: device, hubTime: now)   // the device's clock is 2 h ahead: offset 7200
/// clock.corrected(reading)   // measuredAt 2 h earlier, annotations.deviceTime the time the device sent
/// ```
public enum DeviceClock: Hashable, Sendable {
    /// The device's clock was read: it runs `offset` seconds ahead of the hub's (negative: behind), in whole
    /// seconds.
    case read(offset: Int64)
    /// The device dates its records but its clock could not be read (its protocol has no clock read, or the clock
    /// says no time at all): its times are kept as reported and marked `timeUnverified`.
    case unknown

    /// How far off a device's clock may be before the hub sets it, in seconds: 2 (a Current Time has whole seconds,
    /// and a read takes part of one).
    public static let tolerance: Int64 = 2

    /// How far a clock `offset` seconds ahead of the hub's is, in words: `2 h 0 min 5 s ahead of the hub's`,
    /// `1 d 0 h 0 min 0 s behind the hub's`.
    public static func describe(offset: Int64) -> String {
        var parts: [String] = []
        var rest = offset.magnitude
        for (unit, seconds) in [("d", UInt64(86_400)), ("h", 3_600), ("min", 60)]
        where rest >= seconds || !parts.isEmpty {
            parts.append("\(rest / seconds) \(unit)")
            rest %= seconds
        }
        parts.append("\(rest) s")
        return parts.joined(separator: " ") + (offset > 0 ? " ahead of" : " behind") + " the hub's"
    }

    /// The clock a device read at `deviceTime` when the hub's was `hubTime`.
    public init(deviceTime: Timestamp, hubTime: Timestamp) {
        self = .read(offset: deviceTime.secondsSince1970 - hubTime.secondsSince1970)
    }

    /// The clock a Current Time (0x2A2B) value gives, read when the hub's clock was `hubTime`: `unknown` for a
    /// Date Time of zeros. The fractions of the second are dropped: the offset has a 1 s resolution.
    public init(_ current: CurrentTime, hubTime: Timestamp) {
        let time = current.dateTime
        guard !current.isUnknown,
            let device = Timestamp(
                year: Int(time.year), month: Int(time.month), day: Int(time.day), hour: Int(time.hours),
                minute: Int(time.minutes), second: Int(time.seconds))
        else {
            self = .unknown
            return
        }
        self.init(deviceTime: device, hubTime: hubTime)
    }

    /// `reading`, which the device dated itself, with its time corrected: its `measuredAt` the reported time minus
    /// the offset and its `annotations.deviceTime` the reported one (left out when the two are the same); with
    /// status `timeUnverified` and its time as reported when the offset is unknown. Readings of a whole day (an
    /// activity or band day) are returned as they are: a day has no time stamp to correct.
    public func corrected(_ reading: Reading) -> Reading {
        guard reading.isOfInstant else { return reading }
        var reading = reading
        switch self {
        case .unknown:
            reading.annotations.status.insert(.timeUnverified)
        case .read(offset: 0):
            break
        case .read(let offset):
            let reported = reading.measuredAt
            reading = reading.retimed(to: Timestamp(secondsSince1970: reported.secondsSince1970 - offset))
            reading.annotations.deviceTime = reported
        }
        return reading
    }

    /// `record` with its reading corrected, as `corrected(_:)` corrects a reading.
    public func corrected(_ record: DeviceRecord) -> DeviceRecord {
        DeviceRecord(reading: corrected(record.reading), sequenceNumber: record.sequenceNumber)
    }

    /// A time the device's clock gave, corrected: reported − offset (as reported when the offset is unknown).
    public func corrected(_ time: Timestamp) -> Timestamp {
        guard case .read(let offset) = self else { return time }
        return Timestamp(secondsSince1970: time.secondsSince1970 - offset)
    }
}

/// The clock of one driver's connection: `nil` until the session reads it (a driver used without a session, as
/// in the tests of a driver alone, then keeps the times its device sent, unmarked).
public final class DeviceClockSession: Sendable {
    private let state: Locked<DeviceClock?>

    public init(_ clock: DeviceClock? = nil) { state = Locked(clock) }

    /// What the session learned of the clock, if it read it.
    public var clock: DeviceClock? {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    /// How many times a read of the clock that took longer than ``DeviceClock/tolerance`` by the hub's clock is
    /// tried before the clock counts as unknown.
    static let readAttempts = 3

    /// Reads the Current Time of `connection` when it offers one, else learns that the clock cannot be read. The
    /// device answers with its clock as it was at the end of the read, which is compared with `hubClock` then; a
    /// read that took longer than ``DeviceClock/tolerance`` by `hubClock` (a link busy retrying; the simulator's
    /// one clock moved on by another link's wait) says too little, and is made again, up to ``readAttempts``
    /// times, after which the clock is unknown (the session's readings marked `timeUnverified`).
    func read(from connection: any BluetoothConnection, hubClock: () -> Timestamp) async throws(DeviceError) {
        guard await connection.offers(GATTCharacteristics.currentTime) else {
            clock = .unknown
            return
        }
        for _ in 0..<Self.readAttempts {
            let before = hubClock()
            let value = try decode(CurrentTime.self, try await connection.read(GATTCharacteristics.currentTime))
            let after = hubClock()
            if after.secondsSince1970 - before.secondsSince1970 <= DeviceClock.tolerance {
                clock = DeviceClock(value, hubTime: after)
                return
            }
        }
        clock = .unknown
    }

    /// Sets the clock of `connection` to `hubTime` when the session read it off by more than
    /// ``DeviceClock/tolerance``; returns the offset it had. The Current Time is written; a device whose Current
    /// Time is read-only (``DeviceError/Code/unsupported``: BlueZ's `NotPermitted`) is given `command`, the vendor
    /// set-time command of a device that speaks the vendor control service
    /// (``DeviceDriver/setClock(hubTime:readBy:)`` gives it), which answers whether the device took it. A device
    /// without that command, or that refuses it, keeps its clock: `nil`, as for a clock that is right or was not
    /// read. A clock that was not read is never set, not even by the command: the hub would not know what it set.
    ///
    /// - Throws: what the link or the device reports otherwise (a dropped link, a device error).
    func set(
        on connection: any BluetoothConnection, hubTime: Timestamp,
        command: ((Timestamp) async throws(DeviceError) -> Bool)? = nil
    ) async throws(DeviceError) -> Int64? {
        guard case .read(let offset) = clock, abs(offset) > DeviceClock.tolerance else { return nil }
        let value = CurrentTime(hubTime, adjustReason: .manualTimeUpdate)
        do {
            try await connection.write(GATTCharacteristics.currentTime, value.encoded())
        } catch  where error.code == .unsupported {
            guard let command, try await command(hubTime) else { return nil }
        }
        return offset
    }
}
