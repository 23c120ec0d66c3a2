import LayeredProtocol
import VitalCore

/// A field of an intent, typed as text, that does not read as the protocol's value.
public struct IntentFieldError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The field, as ``LayeredIntent/init(cmd:model:mac:addType:popFlag:unit:profile:stripCode:codeType:since:)``
    /// names its argument, in lower case: `cmd`, `model` (`devicemodel` in a request), `mac`, `addtype`, `popflag`,
    /// `unit`, `profile` (the activity monitor's six parameters), `codetype` or `since`.
    public var field: String
    /// What is wrong, after the field's name: the value, then why (`9 is not one of the protocol's`).
    public var reason: String

    /// The error of `field`, saying `reason`.
    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }

    /// The field's name, then what is wrong: `cmd 9 is not one of the protocol's`.
    public var description: String { "\(field) \(reason)" }
}

extension LayeredIntent {
    /// An intent from its fields as a person types them, each read as the protocol's value; the request's own rules
    /// (which fields an action needs) are checked when it is built (``LayeredClient/url(for:requestID:)``).
    ///
    /// - `cmd`, `addType`, `popFlag`, `unit`, `codeType`: the protocol's codes.
    /// - `model`: a devicemodel number (`100`) or a model name (`BP5`, any case).
    /// - `mac`: 12 hexadecimal digits.
    /// - `profile`: an activity monitor's `USERID,AGE,SEX,HEIGHT,WEIGHT,SWIM`, with the distance `unit` (9 or 10).
    /// - `stripCode`: a BG5 strip code, of `codeType` (the vial's QR code when absent).
    /// - `since`: `yyyy-MM-dd HH:mm:ss`, UTC.
    ///
    /// ```swift
    /// let intent = try LayeredIntent(cmd: 0, model: "BP5", mac: "004D3208D2F4", unit: 2)
    /// ```
    ///
    /// - Throws: ``IntentFieldError`` naming the first field that does not read.
    public init(
        cmd: Int, model: String, mac: String? = nil, addType: Int? = nil, popFlag: Int? = nil, unit: Int? = nil,
        profile: String? = nil, stripCode: String? = nil, codeType: Int? = nil, since: String? = nil
    ) throws(IntentFieldError) {
        func wire<T: RawRepresentable<Int>>(_ field: String, _ value: Int?) throws(IntentFieldError) -> T? {
            guard let value else { return nil }
            guard let code = T(rawValue: value) else {
                throw IntentFieldError(field: field, reason: "\(value) is not one of the protocol's")
            }
            return code
        }
        guard let action = LayeredAction(rawValue: cmd) else {
            throw IntentFieldError(field: "cmd", reason: "\(cmd) is not one of the protocol's")
        }
        guard let device = DeviceModel(nameOrNumber: model) else {
            throw IntentFieldError(field: "model", reason: "\(model) is neither a devicemodel number nor a model name")
        }
        self.init(
            action, device, addType: try wire("addtype", addType), popFlag: try wire("popflag", popFlag),
            unit: try wire("unit", unit))
        if let mac {
            guard let address = MACAddress(mac) else {
                throw IntentFieldError(field: "mac", reason: "\(mac) is not 12 hexadecimal digits")
            }
            self.mac = address
        }
        if let profile {
            guard let parsed = ActivityProfile(typed: profile, distanceUnit: self.unit) else {
                throw IntentFieldError(
                    field: "profile",
                    reason:
                        "\(profile) is not USERID,AGE,SEX,HEIGHT,WEIGHT,SWIM, numbers, with a distance unit (9 or 10)")
            }
            self.profile = parsed
        }
        if let stripCode {
            self.stripCode = StripCode(type: try wire("codetype", codeType ?? 0) ?? .qrCode, code: stripCode)
        }
        if let since {
            guard let time = Timestamp(parsing: since) else {
                throw IntentFieldError(field: "since", reason: "\(since) is not yyyy-MM-dd HH:mm:ss")
            }
            self.since = time
        }
    }
}

extension ActivityProfile {
    /// `USERID,AGE,SEX,HEIGHT,WEIGHT,SWIM` as the protocol's numbers, with the request's distance unit; `nil` when
    /// a number is missing or out of its range, or without a unit.
    init?(typed text: String, distanceUnit: VitalUnit?) {
        let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
        guard numbers.count == 6, let userID = numbers[0].flatMap(Int32.init(exactly:)),
            let age = numbers[1].flatMap(UInt8.init(exactly:)), let sex = numbers[2].flatMap(UserSex.init),
            let height = numbers[3].flatMap(UInt8.init(exactly:)),
            let weight = numbers[4].flatMap(UInt8.init(exactly:)), let swim = numbers[5].flatMap(SwimSwitch.init),
            let distanceUnit
        else { return nil }
        self.init(
            userID: userID, age: age, sex: sex, height: height, weight: weight, swim: swim, distanceUnit: distanceUnit)
    }
}
