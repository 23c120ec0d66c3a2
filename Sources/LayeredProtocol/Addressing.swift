import VitalCore

/// Whom a callback answers and where it goes.
public struct Addressee: Hashable, Sendable {
    /// The whitelisted caller (app id).
    public var caller: String
    /// The callback's destination: the caller's fixed callback URL, or for a `*` caller its custom app scheme.
    public var destination: String
    /// The request's parameters the callback repeats.
    public var echo: [QueryParameter]
}

/// What the hub may do with a request URL, decided from the URL, the platform's word and the whitelist alone,
/// before any device, store or file is touched.
///
/// The order of the checks is the protocol's trust boundary: the URL must be addressed to the hub; the caller is
/// the platform's `caller`, else the request's `appid`, else the one whitelisted caller whose fixed callback URL has
/// the request's `scheme`; it must be whitelisted; a fixed entry's scheme must match the request's `scheme`, and a
/// `*` entry's `callerurl` (or `scheme://`) must be a custom app scheme that no fixed entry has. Only then is the
/// request itself read, and a problem with it becomes a fail callback to that destination.
public enum Addressing: Hashable, Sendable {
    /// No callback may be sent; the reason is for logs, the text says why (caller text escaped).
    case refused(LayeredReason, String)
    /// Answer at once with a fail callback (`action` from the request's `cmd` when it has a valid one).
    case fail(Addressee, action: LayeredAction?, LayeredReason)
    /// Run the request.
    case request(Addressee, LayeredRequest)

    /// How many characters a callback's answer may need beyond its destination, echo, status and MAC: a reason,
    /// the result of a live measurement, or an empty sync result with `remaining`. A request whose callback would
    /// leave less than this of the URL budget fails with `ERROR_URL_BUDGET` before any device is touched.
    public static let answerAllowance = 300

    /// Decides what to do with `url`.
    ///
    /// - Parameters:
    ///   - url: the URL the hub was opened with.
    ///   - platform: iOS or Android.
    ///   - caller: the platform's own word for who opened the URL, if it gives one.
    ///   - whitelist: the callers the hub answers.
    ///   - scheme: the hub's scheme.
    ///   - budget: the longest callback URL.
    public static func address(
        url: String, platform: Platform, caller: String?, whitelist: Whitelist, scheme: String = layeredAppScheme,
        budget: Int
    ) -> Addressing {
        let query: LayeredQuery
        do {
            query = try LayeredQuery(parsing: url, maximumLength: budget)
        } catch {
            // Without a query only a caller named by the platform, with a fixed callback URL, can be answered.
            guard let caller, let destination = whitelist.entries[caller], destination != Whitelist.dynamic else {
                return .refused(
                    .unknownCaller, "the request is not a well-formed URL (\(error)) and its caller is unknown")
            }
            return .fail(Addressee(caller: caller, destination: destination, echo: []), action: nil, error.reason)
        }
        guard query.hasScheme(scheme) else {
            return .refused(.notLayeredURL, "the URL is not addressed to \(scheme)://")
        }

        let decoded = { (key: String) in query.first(key)?.decodedValue }
        let requestedScheme = decoded("scheme")
        let callerURL = decoded("callerurl") ?? decoded("callurl")
        guard let callerID = caller ?? decoded("appid") ?? requestedScheme.flatMap(whitelist.caller(forScheme:)) else {
            return .refused(
                .unknownCaller, "the caller is unknown: no platform caller, no appid, and no whitelisted scheme")
        }
        guard let entry = whitelist.entries[callerID] else {
            return .refused(.unknownCaller, "the caller \(escapedCallerText(callerID)) is not whitelisted")
        }
        let destination: String
        if entry == Whitelist.dynamic {
            guard let target = callerURL ?? requestedScheme.map(LayeredCallback.destination(scheme:)) else {
                return .refused(
                    .callbackNotAllowed,
                    "the caller \(escapedCallerText(callerID)) is dynamic (*) but names no callerurl or scheme")
            }
            if let refusal = LayeredCallback.refusal(ofDestination: target) {
                return .refused(
                    .callbackNotAllowed,
                    "the callback of \(escapedCallerText(callerID)) is not allowed: \(escapedCallerText(refusal))")
            }
            // a scheme another caller owns is that caller's app: readings asked for by one app never go to another
            if let scheme = Whitelist.scheme(of: target), !whitelist.owners(ofScheme: scheme).isEmpty {
                return .refused(
                    .callbackNotAllowed,
                    "the callback of \(escapedCallerText(callerID)) is not allowed: \(escapedCallerText(scheme)): is the "
                        + "scheme of another whitelisted caller")
            }
            destination = target
        } else {
            if let requestedScheme, requestedScheme.lowercased() != Whitelist.scheme(of: entry) {
                return .refused(
                    .unknownCaller, "the scheme does not match the whitelist entry of \(escapedCallerText(callerID))")
            }
            destination = entry
        }
        let addressee = Addressee(caller: callerID, destination: destination, echo: query.echo(for: platform))
        let action = decoded("cmd").flatMap { Int($0) }.flatMap(LayeredAction.init(rawValue:))

        // Whether an answer fits is known before any device is touched: the fixed part with the longest status and
        // a MAC, plus the allowance for the answer itself.
        let fixed = try? LayeredCallback(
            destination: destination, echo: addressee.echo, status: ActionStatus(rawValue: 65_535),
            mac: MACAddress("000000000000"))
        guard let fixed, fixed.url.utf8.count + answerAllowance <= budget else {
            return .fail(addressee, action: action, .urlBudget)
        }

        let request: LayeredRequest
        do {
            request = try LayeredRequest(query: query, platform: platform)
        } catch {
            return .fail(addressee, action: action, error.reason)
        }
        if entry != Whitelist.dynamic, callerURL != nil {
            return .fail(addressee, action: request.action, .dynamicCallbackNotAllowed)
        }
        return .request(addressee, request)
    }
}

/// `text` as it may appear in a log or on a terminal: control characters, `\` and everything outside printable
/// ASCII escaped (`\n`, `\u{1B}`), and cut to 200 characters with `…`, so that caller-supplied text can neither
/// forge a line nor reach the terminal as an escape sequence.
public func escapedCallerText(_ text: String, limit: Int = 200) -> String {
    var escaped = ""
    var count = 0
    for scalar in text.unicodeScalars {
        let piece: String
        switch scalar {
        case "\\": piece = "\\\\"
        case "\n": piece = "\\n"
        case "\r": piece = "\\r"
        case "\t": piece = "\\t"
        case " "..."~": piece = String(scalar)
        default: piece = "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        }
        guard count + piece.count <= limit else { return escaped + "…" }
        escaped += piece
        count += piece.count
    }
    return escaped
}
