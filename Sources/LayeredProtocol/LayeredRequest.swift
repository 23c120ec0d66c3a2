import VitalCore

extension ActivityProfile {
    /// The profile as callback parameters, in the spec's order: `userid`, `age`, `sex`, `height`, `weight`,
    /// `swim`.
    public var parameters: [QueryParameter] {
        [
            QueryParameter(name: "userid", value: String(userID)),
            QueryParameter(name: "age", value: String(age)),
            QueryParameter(name: "sex", value: String(sex.rawValue)),
            QueryParameter(name: "height", value: String(height)),
            QueryParameter(name: "weight", value: String(weight)),
            QueryParameter(name: "swim", value: String(swim.rawValue)),
        ]
    }
}

/// A validated request to the layered app, parsed from its URL.
///
/// ```swift
/// let request = try LayeredRequest(
///     parsing: "ihealth-layer://?cmd=0&devicemodel=100&mac=004D3208D2F4&unit=2&ver=100&scheme=myapp",
///     platform: .ios)
/// request.action      // .measure
/// request.mac         // 004D3208D2F4
/// ```
///
/// Parameter names are matched without regard to case; every parameter the protocol does not define is kept,
/// in order and exactly as sent, for the callback's echo.
public struct LayeredRequest: Hashable, Sendable {
    /// The platform the request came from.
    public var platform: Platform
    /// `cmd`.
    public var action: LayeredAction
    /// `devicemodel`.
    public var deviceModel: DeviceModel
    /// `mac`: the device to measure or sync; present exactly when ``LayeredAction/requiresMAC``.
    public var mac: MACAddress?
    /// `addtype`: present exactly when the action adds a device.
    public var addType: AddType?
    /// `popflag`, for actions that add a device; ``PopFlag/noPrompt`` when absent.
    public var popFlag: PopFlag?
    /// `unit` as sent; `nil` when absent (see ``unit``).
    public var requestedUnit: VitalUnit?
    /// `appid`: the caller's package name (Android, required) or bundle identifier (iOS, optional).
    public var appID: String?
    /// `scheme`: the caller's callback scheme.
    public var callerScheme: String?
    /// `callerurl` (or `callurl`): the dynamic callback URL, honoured only for callers whitelisted with `*`.
    public var callerURL: String?
    /// `userid`, `age`, `sex`, `height`, `weight`, `swim` and `unit`: present exactly for AM3S and AM4.
    public var profile: ActivityProfile?
    /// `codetype` and `code`: present exactly for a BG5 action that measures.
    public var stripCode: StripCode?
    /// `since` (VitalBridge's addition, for actions that sync): re-deliver the stored readings measured at or after
    /// this time, for a caller that lost a callback.
    public var since: Timestamp?
    /// `ver`: always ``layeredProtocolVersion`` once validated (absent means 100).
    public var version: Int
    /// Every parameter, in order, as sent.
    public var query: LayeredQuery

    /// The unit results are given in: the requested one, else the category's default; `nil` for the oximeter.
    public var unit: VitalUnit? {
        deviceModel.category == .oximeter ? nil : requestedUnit ?? deviceModel.category.defaultUnit
    }

    /// `popflag` with its default.
    public var prompts: Bool { popFlag == .prompt }

    /// Parses and validates `url` as sent from `platform`.
    ///
    /// - Parameters:
    ///   - url: the URL the layered app was opened with.
    ///   - platform: iOS or Android; Android requires `appid`.
    ///   - scheme: the layered app's own scheme, compared without case.
    ///   - maximumLength: the longest request accepted; the platform's callback budget by default, since a longer
    ///     request could not be echoed.
    /// - Throws: a ``LayeredError`` naming the parameter at fault.
    public init(
        parsing url: String, platform: Platform, scheme: String = layeredAppScheme, maximumLength: Int? = nil
    ) throws(LayeredError) {
        let query = try LayeredQuery(parsing: url, maximumLength: maximumLength ?? platform.defaultCallbackBudget)
        guard query.hasScheme(scheme) else {
            throw LayeredError(.notLayeredURL, message: "the URL's scheme is not the layered app's")
        }
        try self.init(query: query, platform: platform)
    }

    /// Validates the parameters of a query already split by ``LayeredQuery/init(parsing:maximumLength:)``.
    public init(query: LayeredQuery, platform: Platform) throws(LayeredError) {
        let reader = try ParameterReader(query)
        self.platform = platform
        self.query = query

        version =
            try reader.number(.ver, allowed: layeredProtocolVersion...layeredProtocolVersion) {
                LayeredError(.unsupportedVersion, parameter: "ver", message: "only version 100 is supported")
            } ?? layeredProtocolVersion
        appID = try reader.text(.appid)
        if platform == .android, appID == nil {
            throw LayeredError(.missingParameter, parameter: "appid", message: "Android requests need appid")
        }
        callerScheme = try reader.text(.scheme, isValid: isValidScheme)
        callerURL = try reader.text(.callerurl, isValid: isValidDestination)

        guard let action = try reader.code(.cmd, LayeredAction.self) else {
            throw LayeredError(.missingParameter, parameter: "cmd", message: "cmd is required")
        }
        guard let model = try reader.code(.devicemodel, DeviceModel.self) else {
            throw LayeredError(.missingParameter, parameter: "devicemodel", message: "devicemodel is required")
        }
        guard model.supports(action) else {
            throw LayeredError(
                .unsupportedAction, parameter: "cmd",
                message: "\(model.name) does not support cmd \(action.rawValue)")
        }
        self.action = action
        self.deviceModel = model

        mac = try reader.value(.mac, required: action.requiresMAC, applies: action.requiresMAC) { MACAddress($0) }
        addType = try reader.code(.addtype, AddType.self, required: action.addsDevice, applies: action.addsDevice)
        popFlag = try reader.code(.popflag, PopFlag.self, applies: action.addsDevice)

        let unit = try reader.code(.unit, VitalUnit.self, required: model.hasUserProfile)
        if let unit, model.category != .oximeter, unit.category != model.category {
            throw LayeredError(
                .unitMismatch, parameter: "unit",
                message: "unit \(unit.rawValue) is not a \(model.category.rawValue) unit of \(model.name)")
        }
        requestedUnit = unit

        let hasProfile = model.hasUserProfile
        let userID = try reader.number(.userid, allowed: 1...Int(Int32.max), required: hasProfile, applies: hasProfile)
        let age = try reader.number(.age, allowed: 1...255, required: hasProfile, applies: hasProfile)
        let sex = try reader.code(.sex, UserSex.self, required: hasProfile, applies: hasProfile)
        let height = try reader.number(.height, allowed: 1...255, required: hasProfile, applies: hasProfile)
        let weight = try reader.number(.weight, allowed: 1...255, required: hasProfile, applies: hasProfile)
        let swim = try reader.code(.swim, SwimSwitch.self, required: hasProfile, applies: hasProfile)
        if let userID, let age, let sex, let height, let weight, let swim, let unit {
            profile = ActivityProfile(
                userID: Int32(userID), age: UInt8(age), sex: sex, height: UInt8(height), weight: UInt8(weight),
                swim: swim, distanceUnit: unit)
        }

        let needsCode = model.requiresStripCode && action.includes(.measure)
        let codeType = try reader.code(.codetype, CodeType.self, required: needsCode, applies: needsCode)
        let code = try reader.text(.code, required: needsCode, applies: needsCode) { $0.utf8.count <= 512 }
        if let codeType, let code { stripCode = StripCode(type: codeType, code: code) }

        // `+` is read as a space here, as form-encoding callers write it
        since = try reader.value(.since, applies: action.includes(.sync)) {
            Timestamp(parsing: $0.replacingPlusWithSpace())
        }
    }

    /// The parameters the callback repeats: every parameter of the request but `mac` (the callback adds the
    /// device's MAC after `status`), in order, values untouched; names in their original case on Android and
    /// lower-cased on iOS.
    public var echo: [QueryParameter] {
        query.echo(for: platform)
    }
}

extension LayeredQuery {
    /// The parameters a callback answering this query repeats: all but `mac` and all but the first of a repeated
    /// name, names lower-cased on iOS.
    public func echo(for platform: Platform) -> [QueryParameter] {
        var seen: Set<String> = []
        var echo: [QueryParameter] = []
        for parameter in parameters {
            guard let key = parameter.key.map(canonicalKey), key != "mac", !isReservedCallbackKey(key),
                seen.insert(key).inserted
            else { continue }
            echo.append(platform == .ios ? parameter.lowercasedName : parameter)
        }
        return echo
    }
}

/// Whether `key` names a parameter only a callback may carry: `status`, `result`, `reason`, `remaining`.
func isReservedCallbackKey(_ key: String) -> Bool {
    switch key {
    case "status", "result", "reason", "remaining": true
    default: false
    }
}

/// `callurl` is the spec's other spelling of `callerurl`.
func canonicalKey(_ key: String) -> String { key == "callurl" ? "callerurl" : key }

/// Whether `text` can be the part of a callback URL before its query: a scheme, then printable ASCII without `?`
/// or `#` (`myapp://`, `my-dynamic-url-0x7765://`, `https://example.com/cb`).
func isValidDestination(_ text: String) -> Bool {
    uriScheme(of: text) != nil
        && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
}

/// The parameters the protocol defines in a request.
enum RequestKey: Int, CaseIterable, Sendable {
    case ver, appid, scheme, callerurl, cmd, devicemodel, mac, addtype, popflag, unit
    case userid, age, sex, height, weight, swim, codetype, code, since

    /// The parameter's name, as the protocol writes it.
    var name: String { Self.names[rawValue] }

    private static let names = [
        "ver", "appid", "scheme", "callerurl", "cmd", "devicemodel", "mac", "addtype", "popflag", "unit",
        "userid", "age", "sex", "height", "weight", "swim", "codetype", "code", "since",
    ]

    /// The parameter whose lower-case key is `key`, `callurl` being `callerurl`; looked up by length first, since
    /// this runs for every parameter of every request.
    init?(key: String) {
        let found: RequestKey? =
            switch key.utf8.count {
            case 3:
                switch key {
                case "cmd": .cmd
                case "mac": .mac
                case "ver": .ver
                case "age": .age
                case "sex": .sex
                default: nil
                }
            case 4:
                switch key {
                case "unit": .unit
                case "swim": .swim
                case "code": .code
                default: nil
                }
            case 5:
                switch key {
                case "appid": .appid
                case "since": .since
                default: nil
                }
            case 6:
                switch key {
                case "scheme": .scheme
                case "userid": .userid
                case "height": .height
                case "weight": .weight
                default: nil
                }
            case 7:
                switch key {
                case "addtype": .addtype
                case "popflag": .popflag
                case "callurl": .callerurl
                default: nil
                }
            case 8: key == "codetype" ? .codetype : nil
            case 9: key == "callerurl" ? .callerurl : nil
            case 11: key == "devicemodel" ? .devicemodel : nil
            default: nil
            }
        guard let found else { return nil }
        self = found
    }
}

/// Reads the parameters of a request by key and checks that none is repeated or reserved for callbacks.
private struct ParameterReader {
    private let parameters: [QueryParameter]
    /// The index in ``parameters`` of each ``RequestKey``, by raw value; -1 when absent.
    private var slots: [Int] = Array(repeating: -1, count: RequestKey.allCases.count)

    init(_ query: LayeredQuery) throws(LayeredError) {
        parameters = query.parameters
        // Requests have a few unknown parameters: compare pairs, and hash only when there are many.
        var seen: Set<String>? = parameters.count > 24 ? [] : nil
        for (index, parameter) in parameters.enumerated() {
            let key = parameter.key!
            let repeated: Bool
            if let requestKey = parameter.requestKey {
                repeated = slots[requestKey.rawValue] >= 0
                slots[requestKey.rawValue] = index
            } else {
                guard !isReservedCallbackKey(key) else {
                    throw LayeredError(
                        .reservedParameter, parameter: key,
                        message: "\(key) is a callback parameter, not a request one")
                }
                if seen != nil {
                    repeated = !seen!.insert(key).inserted
                } else {
                    repeated = parameters[..<index].contains { $0.requestKey == nil && $0.key == key }
                }
            }
            guard !repeated else {
                throw LayeredError(.repeatedParameter, parameter: key, message: "\(key) occurs more than once")
            }
        }
    }

    /// The decoded value of `key` converted by `convert`.
    ///
    /// Absent: `nil`, or a missing-parameter error if `required`. Present where it does not apply: a
    /// not-applicable error. Present without a value, with a bad escape, or not convertible: an invalid-value error.
    func value<T>(
        _ requestKey: RequestKey, required: Bool = false, applies: Bool = true, convert: (String) -> T?
    ) throws(LayeredError) -> T? {
        let key = requestKey.name
        let index = slots[requestKey.rawValue]
        guard index >= 0 else {
            if required {
                throw LayeredError(.missingParameter, parameter: key, message: "\(key) is required here")
            }
            return nil
        }
        guard applies else {
            throw LayeredError(
                .notApplicable, parameter: key, message: "\(key) does not apply to this cmd and devicemodel")
        }
        guard let raw = parameters[index].value, !raw.isEmpty else {
            throw LayeredError(.missingParameter, parameter: key, message: "\(key) has no value")
        }
        guard let decoded = PercentEncoding.decode(raw) else {
            throw LayeredError(
                .malformedURL, parameter: key, message: "\(key) has a bad '%' escape or an escaped NUL")
        }
        guard let value = convert(decoded) else {
            throw LayeredError(.invalidValue, parameter: key, message: "\(key) has a value that is not allowed")
        }
        return value
    }

    func code<T: RawRepresentable<Int>>(
        _ key: RequestKey, _ type: T.Type, required: Bool = false, applies: Bool = true
    ) throws(LayeredError) -> T? {
        try value(key, required: required, applies: applies) { parseDecimal($0).flatMap(T.init(rawValue:)) }
    }

    func number(
        _ key: RequestKey, allowed range: ClosedRange<Int>, required: Bool = false, applies: Bool = true,
        outOfRange: () -> LayeredError? = { nil }
    ) throws(LayeredError) -> Int? {
        let number = try value(key, required: required, applies: applies) { parseDecimal($0) ?? -1 }
        guard let number, !range.contains(number) else { return number }
        throw outOfRange()
            ?? LayeredError(
                .invalidValue, parameter: key.name,
                message: "\(key.name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
    }

    func text(
        _ key: RequestKey, required: Bool = false, applies: Bool = true, isValid: (String) -> Bool = { _ in true }
    ) throws(LayeredError) -> String? {
        try value(key, required: required, applies: applies) { isValid($0) ? $0 : nil }
    }
}

extension String {
    /// The text with every `+` read as a space.
    func replacingPlusWithSpace() -> String {
        String(decoding: utf8.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
    }
}
