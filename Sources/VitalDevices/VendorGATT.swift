import HealthGATT
import LayeredProtocol
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
    public static let authenticationFailedError: UInt8 = 111
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

    public var encoded: [UInt8] {
        switch self {
        case .deviceError(let code): [0x01, code]
        case .transferComplete(let count): [0x02, UInt8(count & 0xFF), UInt8(count >> 8)]
        case .authenticationResult(let result): [0x03, result]
        case .pulseWave(let wave): [0x04, wave]
        case .commandResult(let opCode, let success): [0x05, opCode, success ? 0 : 1]
        }
    }

    /// Decodes a status notification; `nil` for bytes that are not an event.
    public init?(bytes: [UInt8]) {
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
        guard let date = LayeredDate(year: le16(0), month: Int(bytes[2]), day: Int(bytes[3])), bytes[12] <= 100 else {
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
