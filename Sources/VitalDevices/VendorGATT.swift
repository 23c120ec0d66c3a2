import HealthGATT
import VitalCore

/// VitalBridge's vendor GATT: what the SIG profiles do not cover (starting a measurement on request, a device's
/// own error codes, the end of a pushed transfer, PO3 user authentication, activity monitors).
///
/// Every model has the control service 0xFFF0 with a control point 0xFFF1 (write: ``VendorCommand``) and a status
/// characteristic 0xFFF2 (notify: ``VendorEvent``). Activity monitors also have the activity service 0xFFE0 whose
/// records characteristic 0xFFE2 notifies one ``ActivityDayRecord`` per day. Integers are little-endian.
public enum VendorGATT {
    public static let controlService: UInt16 = 0xFFF0
    public static let controlPoint: UInt16 = 0xFFF1
    public static let status: UInt16 = 0xFFF2
    public static let activityService: UInt16 = 0xFFE0
    public static let activityRecords: UInt16 = 0xFFE2
    /// The PO3's error for a user that did not authenticate (results 5–8), sent as ``VendorEvent/deviceError(code:)``.
    public static let authenticationFailedError = UInt8(PO3Error.userAuthentication.rawValue)
}

/// The first byte of a ``VendorCommand``, which a ``VendorEvent/commandResult(opCode:success:)`` names.
public enum VendorOpCode: UInt8, Hashable, Sendable {
    case startMeasurement = 0x01
    case setTime = 0x03
    case authenticate = 0x04
    case factoryReset = 0x05
    case bindProfile = 0x06
    case reportActivity = 0x07
    case deleteActivity = 0x08
}

/// A command written to the vendor control point.
public enum VendorCommand: Hashable, Sendable {
    /// `01`: start a live measurement.
    case startMeasurement
    /// `01 tt cc…`: start a glucose measurement with the strip code (type, then the code's UTF-8).
    case startGlucoseMeasurement(StripCode)
    /// `03` + Date Time: set the device's clock (UTC).
    case setTime(DateTime)
    /// `04` + UTF-8: authenticate the user (PO3); answered by ``VendorEvent/authenticationResult(_:)``.
    case authenticate(userID: String)
    /// `05`: restore factory settings; stored records are erased.
    case factoryReset
    /// `06` + profile: bind the activity monitor to a user (userid u32, age, sex, height, weight, swim, unit).
    case bindProfile(ActivityProfile)
    /// `07`: report the stored activity days on 0xFFE2, then ``VendorEvent/transferComplete(count:)``.
    case reportActivity
    /// `08` + u16: delete the oldest `count` stored activity days.
    case deleteActivity(count: UInt16)

    /// The command's op code, its first byte.
    public var opCode: VendorOpCode {
        switch self {
        case .startMeasurement, .startGlucoseMeasurement: .startMeasurement
        case .setTime: .setTime
        case .authenticate: .authenticate
        case .factoryReset: .factoryReset
        case .bindProfile: .bindProfile
        case .reportActivity: .reportActivity
        case .deleteActivity: .deleteActivity
        }
    }

    public var encoded: [UInt8] {
        let body: [UInt8]
        switch self {
        case .startMeasurement, .factoryReset, .reportActivity: body = []
        case .startGlucoseMeasurement(let code): body = [UInt8(code.type.rawValue)] + Array(code.code.utf8)
        case .setTime(let time): body = time.encoded()
        case .authenticate(let userID): body = Array(userID.utf8)
        case .bindProfile(let profile):
            let id = UInt32(bitPattern: profile.userID)
            body = [
                UInt8(id & 0xFF), UInt8(id >> 8 & 0xFF), UInt8(id >> 16 & 0xFF), UInt8(id >> 24), profile.age,
                UInt8(profile.sex.rawValue), profile.height, profile.weight, UInt8(profile.swim.rawValue),
                UInt8(profile.distanceUnit.rawValue),
            ]
        case .deleteActivity(let count): body = [UInt8(count & 0xFF), UInt8(count >> 8)]
        }
        return [opCode.rawValue] + body
    }

    /// Decodes a control point write; `nil` for bytes that are not a command.
    public init?(bytes: [UInt8]) {
        guard let op = bytes.first.flatMap(VendorOpCode.init(rawValue:)) else { return nil }
        let body = Array(bytes.dropFirst())
        switch op {
        case .startMeasurement where body.isEmpty: self = .startMeasurement
        case .startMeasurement:
            guard let type = CodeType(rawValue: Int(body[0])),
                let code = String(validating: body.dropFirst(), as: UTF8.self),
                !code.isEmpty
            else { return nil }
            self = .startGlucoseMeasurement(StripCode(type: type, code: code))
        case .setTime:
            guard let time = try? DateTime(bytes: body) else { return nil }
            self = .setTime(time)
        case .authenticate:
            guard let userID = String(validating: body, as: UTF8.self) else { return nil }
            self = .authenticate(userID: userID)
        case .factoryReset where body.isEmpty: self = .factoryReset
        case .bindProfile where body.count == 10:
            let id = Int32(
                bitPattern: UInt32(body[0]) | UInt32(body[1]) << 8 | UInt32(body[2]) << 16 | UInt32(body[3]) << 24)
            guard let sex = UserSex(rawValue: Int(body[5])), let swim = SwimSwitch(rawValue: Int(body[8])),
                let unit = VitalUnit(rawValue: Int(body[9])), unit.category == .activity
            else { return nil }
            self = .bindProfile(
                ActivityProfile(
                    userID: id, age: body[4], sex: sex, height: body[6], weight: body[7], swim: swim, distanceUnit: unit
                ))
        case .reportActivity where body.isEmpty: self = .reportActivity
        case .deleteActivity where body.count == 2:
            self = .deleteActivity(count: UInt16(body[0]) | UInt16(body[1]) << 8)
        default: return nil
        }
    }
}

/// A notification of the vendor status characteristic.
public enum VendorEvent: Hashable, Sendable {
    /// `01 cc`: the device reports its family's error code `cc` (PO3's 111 fits in a byte).
    case deviceError(code: UInt8)
    /// `02 nnnn`: a pushed transfer of stored records ended after `count` records.
    case transferComplete(count: UInt16)
    /// `03 rr`: the PO3 user authentication result, 1–8.
    case authenticationResult(UInt8)
    /// `04 ww`: a live pulse-wave sample (PO3), 0–100.
    case pulseWave(UInt8)
    /// `05 oo ss`: the command with op code `oo` (a ``VendorOpCode``) finished, `ss` 0 success, 1 failure.
    case commandResult(opCode: UInt8, success: Bool)
    /// `06 nn s…`: the pulse wave of the PO3 history record indicated next (``PO3HistoryWave``).
    case historyWave(PO3HistoryWave)

    public var encoded: [UInt8] {
        switch self {
        case .deviceError(let code): [0x01, code]
        case .transferComplete(let count): [0x02, UInt8(count & 0xFF), UInt8(count >> 8)]
        case .authenticationResult(let result): [0x03, result]
        case .pulseWave(let wave): [0x04, wave]
        case .commandResult(let opCode, let success): [0x05, opCode, success ? 0 : 1]
        case .historyWave(let wave): wave.encoded
        }
    }

    /// Decodes a status notification; `nil` for bytes that are not an event (``PO3HistoryWave/init(bytes:)`` says
    /// what is wrong with a history wave that does not decode).
    public init?(bytes: [UInt8]) {
        if bytes.first == PO3HistoryWave.eventCode {
            guard let wave = try? PO3HistoryWave(bytes: bytes) else { return nil }
            self = .historyWave(wave)
            return
        }
        switch (bytes.first, bytes.count) {
        case (0x01, 2): self = .deviceError(code: bytes[1])
        case (0x02, 3): self = .transferComplete(count: UInt16(bytes[1]) | UInt16(bytes[2]) << 8)
        case (0x03, 2): self = .authenticationResult(bytes[1])
        case (0x04, 2): self = .pulseWave(bytes[1])
        case (0x05, 3) where bytes[2] <= 1: self = .commandResult(opCode: bytes[1], success: bytes[2] == 0)
        default: return nil
        }
    }
}

/// The pulse wave of one PO3 history record (the SDK's `disposePO3WaveHistoryData`, key `wave`): event `06` of
/// the vendor status characteristic 0xFFF2, notified during a history transfer immediately **before** the
/// spot-check indication (0x2A5E) of the record it belongs to. A record without a wave has no such event.
///
/// Bytes: `06`, the sample count `nn` (1–255), then `nn` samples, one byte each, 0–100 (pulse intensity in percent
/// of the PO3's full scale), oldest first, taken 20 ms apart (50 Hz: ``samplePeriodMilliseconds``). At most 257
/// bytes: a 255-sample wave needs an ATT MTU of at least 260. Example: `06 04 14 3C 5A 28`, four samples
/// 20, 60, 90, 40.
///
/// Decoding is strict: a missing count, a count of 0, fewer samples than the count (truncated), bytes after them
/// (overlong) and a sample above 100 are each a `GATTError` naming the field and its byte offset.
public struct PO3HistoryWave: Hashable, Sendable {
    /// The event's first byte.
    public static let eventCode: UInt8 = 0x06
    /// The most samples one wave carries: its count is one byte.
    public static let maximumSamples = 255
    /// The time between two samples, in milliseconds (50 Hz).
    public static let samplePeriodMilliseconds = OximetryReading.waveSamplePeriodMilliseconds
    /// What a characteristic error names the event.
    static let name = "PO3 History Wave"

    /// The samples, oldest first, each 0–100; 1 to ``maximumSamples`` of them.
    public let samples: [UInt8]

    /// A wave of `samples`; `nil` for none, more than ``maximumSamples``, or a sample above 100.
    public init?(samples: [UInt8]) {
        guard (1...Self.maximumSamples).contains(samples.count), samples.allSatisfy({ $0 <= 100 }) else { return nil }
        self.samples = samples
    }

    /// A wave of a reading's samples (`OximetryReading.wave`); `nil` when they are not a wave's.
    public init?(_ samples: [Int]) {
        guard samples.allSatisfy({ (0...100).contains($0) }) else { return nil }
        self.init(samples: samples.map { UInt8($0) })
    }

    /// The event's bytes: `06`, the count, the samples.
    public var encoded: [UInt8] { [Self.eventCode, UInt8(samples.count)] + samples }

    /// Decodes the event's bytes.
    ///
    /// - Throws: `GATTError` naming the field: `op_code` that is not `06`; `sample_count` missing (short) or 0
    ///   (invalid); `samples[i]` missing (short: the wave is truncated) or above 100 (invalid); bytes after the last
    ///   sample (too long).
    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: Self.name)
        guard try reader.uint8("op_code") == Self.eventCode else {
            throw reader.error(.invalidValue, "op_code", at: 0)
        }
        let count = Int(try reader.uint8("sample_count"))
        guard count > 0 else { throw reader.error(.invalidValue, "sample_count", at: 1) }
        var samples: [UInt8] = []
        samples.reserveCapacity(count)
        for index in 0..<count {
            let at = reader.offset
            let sample = try reader.uint8("samples[\(index)]")
            guard sample <= 100 else { throw reader.error(.invalidValue, "samples[\(index)]", at: at) }
            samples.append(sample)
        }
        try reader.finish()
        self.samples = samples
    }

    /// The samples as a reading keeps them.
    public var readingSamples: [Int] { samples.map(Int.init) }
}

/// One day of an activity monitor's memory, as notified on 0xFFE2 (17 bytes):
/// date (year u16, month, day), steps u32, calories u16, sleep minutes u16, sleep efficiency u8 (0–100),
/// swim minutes u16 and swim calories u16 (both 0xFFFF when the monitor does not record swimming).
public struct ActivityDayRecord: Hashable, Sendable {
    public var day: ActivityDay

    public init(day: ActivityDay) { self.day = day }

    public var encoded: [UInt8] {
        let (year, month, dayOfMonth) = day.date.components
        var bytes: [UInt8] = []
        func le16(_ value: Int) { bytes += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        le16(year)
        bytes += [UInt8(month), UInt8(dayOfMonth)]
        bytes += [0, 8, 16, 24].map { UInt8(day.steps >> $0 & 0xFF) }
        le16(day.calories)
        le16(day.sleepMinutes)
        bytes.append(UInt8(day.sleepEfficiency))
        le16(day.swimMinutes ?? 0xFFFF)
        le16(day.swimCalories ?? 0xFFFF)
        return bytes
    }

    /// Decodes a record; `nil` for a wrong length, an impossible date or an efficiency above 100.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 17 else { return nil }
        func le16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        guard let date = CalendarDate(year: le16(0), month: Int(bytes[2]), day: Int(bytes[3])), bytes[12] <= 100 else {
            return nil
        }
        let steps = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        let swimMinutes = le16(13)
        let swimCalories = le16(15)
        day = ActivityDay(
            date: date, steps: steps, calories: le16(8), sleepMinutes: le16(10), sleepEfficiency: Int(bytes[12]),
            swimMinutes: swimMinutes == 0xFFFF ? nil : swimMinutes,
            swimCalories: swimCalories == 0xFFFF ? nil : swimCalories)
    }
}
