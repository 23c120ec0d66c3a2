import VitalCore

/// A measurement request link of Welltory's Data Delivery Service: who asks (`source`), where the results go
/// (`callback`), and any other parameters, which the results echo back.
public struct DDSRequest: Hashable, Sendable {
    /// The link for a user's first request: it opens Welltory, or its App Store page when it is not installed.
    public static let firstLaunchLink = "https://welltory.onelink.me/2180424117/bf497b9"
    /// The direct link for every request after the first.
    public static let directLink = "https://welltory.com/action/dds/measurement"

    /// The application's name, as registered with Welltory.
    public var source: String
    /// The callback URL, as registered.
    public var callback: String
    /// Other parameters, in order, echoed back with the results.
    public var extra: [(name: String, value: String)]

    public init(source: String, callback: String, extra: [(name: String, value: String)] = []) {
        self.source = source
        self.callback = callback
        self.extra = extra
    }

    /// An extra parameter given as `NAME=VALUE` (`visit=7`; the value may be empty or hold `=`); `nil` without a
    /// `=`, with an empty name, or with the name `source` or `callback`, which the request sets itself.
    public static func extra(parsing item: String) -> (name: String, value: String)? {
        let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !["source", "callback"].contains(String(parts[0])) else {
            return nil
        }
        return (String(parts[0]), String(parts[1]))
    }

    public static func == (left: DDSRequest, right: DDSRequest) -> Bool {
        left.source == right.source && left.callback == right.callback
            && left.extra.elementsEqual(right.extra) { $0 == $1 }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(source)
        hasher.combine(callback)
        for (name, value) in extra {
            hasher.combine(name)
            hasher.combine(value)
        }
    }

    /// The link on `base` (``firstLaunchLink``, ``directLink`` or a provider's own):
    /// `…?source=DemoApp&callback=https%3A%2F%2Fwww.demoapp.com%2Fdds%2F`, every value percent-encoded except
    /// RFC 3986's unreserved characters.
    public func link(on base: String = directLink) -> String {
        var query = "source=\(DDSEncoding.encode(source))&callback=\(DDSEncoding.encode(callback))"
        for (name, value) in extra { query += "&\(DDSEncoding.encode(name))=\(DDSEncoding.encode(value))" }
        return base + "?" + query
    }

    /// Reads a request link: its base (everything before `?`) and the request.
    ///
    /// - Throws: ``DDSError`` naming the parameter: a missing or empty `source` or `callback`, a name given twice,
    ///   or a value that does not percent-decode.
    public init(link: String) throws(DDSError) {
        let parameters = try DDSEncoding.query(of: link)
        guard let source = parameters.first(where: { $0.name == "source" })?.value, !source.isEmpty else {
            throw DDSError(parameter: "source", "is required")
        }
        guard let callback = parameters.first(where: { $0.name == "callback" })?.value, !callback.isEmpty else {
            throw DDSError(parameter: "callback", "is required")
        }
        self.init(
            source: source, callback: callback,
            extra: parameters.filter { $0.name != "source" && $0.name != "callback" })
    }
}

/// A colour Welltory gives a score: green (great or good), yellow (normal), red (bad), or unknown. A colour the
/// document does not list is kept as unknown, with its text.
public enum DDSColour: Hashable, Sendable, CustomStringConvertible {
    case green
    case yellow
    case red
    /// `unknown`, or a colour the document does not list (its text).
    case unknown(String)

    public init(_ text: String) {
        switch text {
        case "green": self = .green
        case "yellow": self = .yellow
        case "red": self = .red
        default: self = .unknown(text)
        }
    }

    public var description: String {
        switch self {
        case .green: "green"
        case .yellow: "yellow"
        case .red: "red"
        case .unknown(let text): text
        }
    }

    /// What the colour means: GreatGood, Normal, Bad, Unknown.
    public var meaning: String {
        switch self {
        case .green: "GreatGood"
        case .yellow: "Normal"
        case .red: "Bad"
        case .unknown: "Unknown"
        }
    }
}

/// The results a callback carries: each parameter the document lists, when present, and the others echoed.
public struct DDSResult: Hashable, Sendable {
    /// 0–1.
    public var stress: Double?
    public var energy: Double?
    public var productivity: Double?
    /// Milliseconds.
    public var rmssd: Double?
    /// Milliseconds.
    public var sdnn: Double?
    /// ms².
    public var power: Double?
    /// Opens `https://app.welltory.com/share-measurement?token=<token>`.
    public var token: String?
    public var stressColour: DDSColour?
    public var energyColour: DDSColour?
    public var productivityColour: DDSColour?
    /// Why a provider could not measure (VitalBridge's `error` parameter); the callback then carries no values.
    public var failure: DDSFailure?
    /// The callback's other parameters, in order (a request's extra parameters, echoed).
    public var extra: [(name: String, value: String)]

    public init(
        stress: Double? = nil, energy: Double? = nil, productivity: Double? = nil, rmssd: Double? = nil,
        sdnn: Double? = nil, power: Double? = nil, token: String? = nil, stressColour: DDSColour? = nil,
        energyColour: DDSColour? = nil, productivityColour: DDSColour? = nil, failure: DDSFailure? = nil,
        extra: [(name: String, value: String)] = []
    ) {
        self.failure = failure
        self.stress = stress
        self.energy = energy
        self.productivity = productivity
        self.rmssd = rmssd
        self.sdnn = sdnn
        self.power = power
        self.token = token
        self.stressColour = stressColour
        self.energyColour = energyColour
        self.productivityColour = productivityColour
        self.extra = extra
    }

    public static func == (left: DDSResult, right: DDSResult) -> Bool {
        left.stress == right.stress && left.energy == right.energy && left.productivity == right.productivity
            && left.rmssd == right.rmssd && left.sdnn == right.sdnn && left.power == right.power
            && left.token == right.token && left.stressColour == right.stressColour
            && left.energyColour == right.energyColour && left.productivityColour == right.productivityColour
            && left.failure == right.failure && left.extra.elementsEqual(right.extra) { $0 == $1 }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(stress)
        hasher.combine(rmssd)
        hasher.combine(token)
    }

    /// The parameters a callback carries results under: the document's ten, then VitalBridge's `error`.
    public static let parameterNames = [
        "stress", "energy", "productivity", "rmssd", "sdnn", "power", "token", "stress_c", "energy_c",
        "productivity_c", "error",
    ]

    /// The page that shows a shared measurement: `https://app.welltory.com/share-measurement`.
    public static let sharePage = "https://app.welltory.com/share-measurement"

    /// The page of ``token``: `https://app.welltory.com/share-measurement?token=abc%2B123` for the token `abc+123`,
    /// the token percent-encoded like every value VitalBridge writes (a raw `+` would read as a space); `nil`
    /// without a token.
    public var shareLink: String? { token.map { "\(Self.sharePage)?token=\(DDSEncoding.encode($0))" } }

    /// Reads the results of a callback URL.
    ///
    /// - Throws: ``DDSError`` naming the parameter: a score outside 0–1, a negative or non-numeric `rmssd`, `sdnn`
    ///   or `power`, a name given twice, or a value that does not percent-decode; or, naming what is missing, a
    ///   callback that carries none of ``parameterNames`` (a provider's answer always carries one).
    public init(callback url: String) throws(DDSError) {
        self.init()
        var carriesResult = false
        for (name, value) in try DDSEncoding.query(of: url) {
            func number(_ range: ClosedRange<Double>, _ what: String) throws(DDSError) -> Double {
                guard let number = Double(value), number.isFinite, range.contains(number) else {
                    throw DDSError(parameter: name, "must be \(what), not '\(value)'")
                }
                return number
            }
            if Self.parameterNames.contains(name) { carriesResult = true }
            switch name {
            case "stress": stress = try number(0...1, "a number from 0 to 1")
            case "energy": energy = try number(0...1, "a number from 0 to 1")
            case "productivity": productivity = try number(0...1, "a number from 0 to 1")
            case "rmssd": rmssd = try number(0...Double.greatestFiniteMagnitude, "a number of at least 0")
            case "sdnn": sdnn = try number(0...Double.greatestFiniteMagnitude, "a number of at least 0")
            case "power": power = try number(0...Double.greatestFiniteMagnitude, "a number of at least 0")
            case "token": token = value
            case "stress_c": stressColour = DDSColour(value)
            case "energy_c": energyColour = DDSColour(value)
            case "productivity_c": productivityColour = DDSColour(value)
            case "error": failure = DDSFailure(rawValue: value)
            default: extra.append((name, value))
            }
        }
        guard carriesResult else {
            throw DDSError(
                "the callback carries no result: none of \(Self.parameterNames.dropLast().joined(separator: ", ")) "
                    + "or \(Self.parameterNames.last!)")
        }
    }

    /// Checks that results can be appended to `callback`, a callback URL as registered: its query, if it has one,
    /// is kept, so it must read as a DDS query (printable ASCII, percent-encoded, no name twice) and must not already
    /// carry a result parameter (``parameterNames``), which the appended results would repeat.
    ///
    /// - Throws: ``DDSError`` naming the parameter, or the byte that is not printable ASCII.
    public static func check(callback: String) throws(DDSError) {
        for (name, _) in try DDSEncoding.query(of: callback) where parameterNames.contains(name) {
            throw DDSError(parameter: name, "is a result parameter; a callback URL's own query cannot have it")
        }
    }

    /// The callback URL with these results appended, numbers in their shortest exact form: the document's
    /// parameters in its order, then the extra ones, after the callback's own query if it has one
    /// (`myapp://dds?x=1` gives `myapp://dds?x=1&rmssd=…`) and before its fragment.
    public func callbackURL(on callback: String) -> String {
        var parameters: [(String, String)] = []
        func add(_ name: String, _ value: Double?) { if let value { parameters.append((name, Self.text(value))) } }
        add("stress", stress)
        add("energy", energy)
        add("productivity", productivity)
        add("rmssd", rmssd)
        add("sdnn", sdnn)
        add("power", power)
        if let token { parameters.append(("token", token)) }
        if let stressColour { parameters.append(("stress_c", stressColour.description)) }
        if let energyColour { parameters.append(("energy_c", energyColour.description)) }
        if let productivityColour { parameters.append(("productivity_c", productivityColour.description)) }
        if let failure { parameters.append(("error", failure.rawValue)) }
        parameters += extra.map { ($0.name, $0.value) }
        let query = parameters.map { "\(DDSEncoding.encode($0.0))=\(DDSEncoding.encode($0.1))" }.joined(separator: "&")
        let fragment = callback.firstIndex(of: "#") ?? callback.endIndex
        let base = callback[..<fragment]
        let separator = !base.contains("?") ? "?" : base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&"
        return base + separator + query + callback[fragment...]
    }

    /// `value` in its shortest exact form, without a trailing `.0` when whole.
    static func text(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}

/// Why a provider answers a DDS request without values: VitalBridge's `error` parameter, which the document does
/// not have (Welltory's own app always measures). The set is open: a reader keeps a code it does not know.
public struct DDSFailure: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// `no_device`: no heart-rate sensor of the provider's home can record (or not the one the request named).
    public static let noDevice = DDSFailure(rawValue: "no_device")
    /// `several_devices`: several sensors could record, and nobody could be asked which.
    public static let severalDevices = DDSFailure(rawValue: "several_devices")
    /// `cancelled`: the user cancelled the recording.
    public static let cancelled = DDSFailure(rawValue: "cancelled")
    /// `device_failed`: the sensor failed or the link dropped during the recording.
    public static let deviceFailed = DDSFailure(rawValue: "device_failed")
    /// `too_few_intervals`: the recording kept too few RR intervals for the figures.
    public static let tooFewIntervals = DDSFailure(rawValue: "too_few_intervals")
    /// `store`: the provider's own storage failed.
    public static let store = DDSFailure(rawValue: "store")

    public var description: String { rawValue }
}

/// A DDS link or callback that cannot be used; names the parameter.
public struct DDSError: Error, Hashable, Sendable, CustomStringConvertible {
    public var parameter: String?
    public var message: String

    public init(parameter: String? = nil, _ message: String) {
        self.parameter = parameter
        self.message = message
    }

    public var description: String { parameter.map { "\($0) \(message)" } ?? message }
}

/// The query of a DDS link, read and written.
enum DDSEncoding {
    /// Every byte but RFC 3986's unreserved characters (`A–Z a–z 0–9 - . _ ~`) as `%XX`.
    static func encode(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The decoded parameters of `url`'s query (after its first `?`, up to a `#`), in order; a name without `=`
    /// has an empty value.
    ///
    /// - Throws: ``DDSError`` for a byte outside printable ASCII (a raw space, a control character, non-ASCII text:
    ///   a URL carries them percent-encoded, and a raw one would not survive writing the URL back), a name given
    ///   twice, or a name or value that does not decode.
    static func query(of url: String) throws(DDSError) -> [(name: String, value: String)] {
        if let offset = url.utf8.firstIndex(where: { !PercentEncoding.mayAppearRaw($0) }) {
            throw DDSError(
                "the URL has a byte that is not printable ASCII at offset \(url.utf8.distance(from: url.utf8.startIndex, to: offset)); percent-encode it"
            )
        }
        guard let question = url.firstIndex(of: "?") else { return [] }
        var query = url[url.index(after: question)...]
        if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
        var parameters: [(name: String, value: String)] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PercentEncoding.decode(parts[0]), !name.isEmpty else {
                throw DDSError(parameter: String(parts[0]), "is not a percent-encoded name")
            }
            guard let value = PercentEncoding.decode(parts.count == 2 ? parts[1] : "") else {
                throw DDSError(parameter: name, "is not percent-encoded")
            }
            guard !parameters.contains(where: { $0.name == name }) else {
                throw DDSError(parameter: name, "is given twice")
            }
            parameters.append((name, value))
        }
        return parameters
    }
}
