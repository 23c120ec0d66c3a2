import LayeredProtocol
import VitalCore

/// What a caller asks the layered app to do, typed: the action, the device and what the action needs.
///
/// ```swift
/// let intent = LayeredIntent(.measure, .bp5, mac: MACAddress("004D3208D2F4"), unit: .mmHg)
/// ```
public struct LayeredIntent: Hashable, Sendable {
    /// `cmd`.
    public var action: LayeredAction
    /// `devicemodel`.
    public var model: DeviceModel
    /// `mac`: required by the actions that measure or sync a known device, refused by those that add one.
    public var mac: MACAddress?
    /// `addtype`: how an action that adds a device finds it; a scan when absent.
    public var addType: AddType?
    /// `popflag`: whether the app prompts before it connects to a device it adds.
    public var popFlag: PopFlag?
    /// `unit`: of the model's category (any, ignored, for an oximeter); required by the activity monitors, whose
    /// distance unit it is.
    public var unit: VitalUnit?
    /// The user profile an activity monitor (AM3S, AM4) needs.
    public var profile: ActivityProfile?
    /// The strip code a BG5 measurement needs.
    public var stripCode: StripCode?
    /// `since`: a sync returns only readings from this time on.
    public var since: Timestamp?

    public init(
        _ action: LayeredAction, _ model: DeviceModel, mac: MACAddress? = nil, addType: AddType? = nil,
        popFlag: PopFlag? = nil, unit: VitalUnit? = nil, profile: ActivityProfile? = nil, stripCode: StripCode? = nil,
        since: Timestamp? = nil
    ) {
        self.action = action
        self.model = model
        self.mac = mac
        self.addType = addType
        self.popFlag = popFlag
        self.unit = unit
        self.profile = profile
        self.stripCode = stripCode
        self.since = since
    }

    /// The request's parameters, in the spec's order, `requestid` last.
    func parameters(requestID: String) -> [QueryParameter] {
        var parameters: [QueryParameter] = []
        func add(_ name: String, _ value: String?) {
            if let value { parameters.append(QueryParameter(encodingName: name, value: value)) }
        }
        add("cmd", String(action.rawValue))
        add("devicemodel", String(model.rawValue))
        add("mac", mac?.description)
        add("addtype", action.addsDevice ? String((addType ?? .scan).rawValue) : nil)
        add("popflag", popFlag.map { String($0.rawValue) })
        parameters += profile?.parameters ?? []
        add("unit", unit.map { String($0.rawValue) })
        add("codetype", stripCode.map { String($0.type.rawValue) })
        add("code", stripCode?.code)
        add("since", since?.description)
        add("ver", String(layeredProtocolVersion))
        add("requestid", requestID)
        return parameters
    }
}

/// Where the layered app sends its answer.
public enum CallbackDestination: Hashable, Sendable {
    /// `scheme`: the caller's URL scheme; the callback is `<scheme>://?…`.
    case scheme(String)
    /// `callerurl`: a whole callback URL, for callers on the app's whitelist.
    case callerURL(String)
}

/// A caller's side of the layered-app protocol: builds its request URLs, each with a correlation id.
///
/// Building validates the request with the protocol's own parser, the one the hub runs: an impossible request
/// (a cmd the model cannot do, a unit of another category, a missing MAC or profile) fails here with the
/// `LayeredError` the hub would have answered, before anything is opened.
///
/// ```swift
/// let client = LayeredClient(callback: .scheme("myapp"))
/// let url = try client.url(for: LayeredIntent(.sync, .bg5, mac: MACAddress("004D3208D308")), requestID: "r1")
/// // ihealth-layer://?cmd=2&devicemodel=400&mac=004D3208D308&ver=100&requestid=r1&scheme=myapp
/// ```
public struct LayeredClient: Hashable, Sendable {
    /// Where the answer goes.
    public var callback: CallbackDestination
    /// The caller's platform: an Android caller sends its `appid`.
    public var platform: Platform
    /// `appid`: the caller's bundle or application id; required on Android.
    public var appID: String?
    /// The layered app's scheme.
    public var layeredScheme: String

    public init(
        callback: CallbackDestination, platform: Platform = .ios, appID: String? = nil,
        layeredScheme: String = layeredAppScheme
    ) {
        self.callback = callback
        self.platform = platform
        self.appID = appID
        self.layeredScheme = layeredScheme
    }

    /// Whether `id` can be a request's correlation id: 1–64 characters, letters, digits, `-`, `.`, `_` and `~`
    /// (it is sent and echoed unencoded).
    public static func isValidRequestID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count)
            && id.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                    UInt8(ascii: "~"):
                    true
                default: false
                }
            }
    }

    /// A new correlation id: `r-` and 16 random hexadecimal digits.
    public static func newRequestID() -> String {
        let digits = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        return "r-" + String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The request URL for `intent`, carrying `requestID` (echoed by the hub in its callback).
    ///
    /// - Throws: `LayeredError` naming the parameter the hub would refuse, or `requestid` when `requestID` is
    ///   not a valid correlation id.
    public func url(for intent: LayeredIntent, requestID: String) throws(LayeredError) -> String {
        try request(for: intent, requestID: requestID).query.url
    }

    /// The validated request for `intent`, as the hub will read it.
    public func request(for intent: LayeredIntent, requestID: String) throws(LayeredError) -> LayeredRequest {
        guard Self.isValidRequestID(requestID) else {
            throw LayeredError(
                .invalidValue, parameter: "requestid",
                message: "requestid is 1–64 letters, digits, '-', '.', '_' or '~'")
        }
        var parameters: [QueryParameter] = []
        if let appID { parameters.append(QueryParameter(encodingName: "appid", value: appID)) }
        parameters += intent.parameters(requestID: requestID)
        switch callback {
        case .scheme(let scheme): parameters.append(QueryParameter(encodingName: "scheme", value: scheme))
        case .callerURL(let url): parameters.append(QueryParameter(encodingName: "callerurl", value: url))
        }
        // the URL's own bytes are parsed, as the hub will parse them
        let url = LayeredQuery(base: layeredScheme + "://", parameters: parameters).url
        return try LayeredRequest(parsing: url, platform: platform, scheme: layeredScheme)
    }
}
