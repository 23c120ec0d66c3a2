/// Where an MQTT sink publishes: a broker's `mqtt://` or `mqtts://` URL, checked, with its topic prefixes.
///
/// ```text
/// mqtt://localhost                                   port 1883, topics under vitalbridge/, discovery under homeassistant/
/// mqtt://hub@127.0.0.1:1884/home/health              as the user hub; topics under home/health/
/// mqtts://hub@broker.example/vitalbridge?cafile=/etc/ssl/broker-ca.pem    TLS on 8883, the certificate checked
/// mqtt://hub@nas.local?cleartext=allow               in clear to another host: only when the address says so
/// mqtt://hub@localhost?discovery=ha                  Home Assistant's discovery prefix changed to ha/
/// ```
///
/// `mqtts://` always checks the broker's certificate: signed by a trusted CA (the system's, or those of `cafile`)
/// and naming the host. `mqtt://` sends the password and the readings in clear, so it is refused for a host other
/// than this machine unless the address says `cleartext=allow`. A password in the address is refused: it comes from
/// a file (``SinkPassword/read(file:)``). ``description`` writes the address back in one canonical form.
public struct MQTTAddress: Hashable, Sendable, CustomStringConvertible {
    /// The broker's host name or IP address (an IPv6 address without brackets).
    public var host: String
    public var port: Int
    /// Whether the connection uses TLS (`mqtts://`).
    public var tls: Bool
    /// The user to log in as; `nil`: anonymous.
    public var user: String?
    /// The topic levels the hub's own topics go under: `vitalbridge`, `home/health`.
    public var prefix: String
    /// Home Assistant's discovery prefix: `homeassistant` unless the address names another.
    public var discoveryPrefix: String
    /// The CA certificates (PEM) that verify the broker, for `mqtts://`; `nil`: the system's trusted roots.
    public var caFile: String?
    /// Whether `mqtt://` to a host other than this machine was asked for explicitly.
    public var cleartextAllowed: Bool

    public static let defaultPort = 1883
    public static let defaultTLSPort = 8883
    public static let defaultPrefix = "vitalbridge"
    public static let defaultDiscoveryPrefix = "homeassistant"
    /// The longest prefix, in UTF-8 bytes: topics add a hub's id and a person's after it.
    public static let maximumPrefixLength = 128

    /// Reads an `mqtt://` or `mqtts://` URL; throws a ``SinkError`` naming what is wrong (never echoing a password).
    public init(_ text: String) throws(SinkError) {
        guard text.utf8.count <= SinkAddress.maximumLength else {
            throw SinkError(
                .addressTooLong,
                "the address is \(text.utf8.count) bytes long: at most \(SinkAddress.maximumLength) are read")
        }
        guard !text.utf8.contains(where: AddressParser.isControl) else {
            throw SinkError(.controlCharacter, "the address contains a control character")
        }
        guard let separator = text.firstRange(of: "://"),
            case let scheme = text[..<separator.lowerBound].lowercased(), scheme == "mqtt" || scheme == "mqtts"
        else {
            throw SinkError(
                .unknownScheme, "the address is not an mqtt:// or mqtts:// URL (mqtt://[USER@]HOST[/PREFIX])")
        }
        tls = scheme == "mqtts"
        let rest = text[separator.upperBound...]
        guard !rest.contains("#") else {
            throw SinkError(.malformedAddress, "the address has a fragment (#): an mqtt:// URL has none")
        }
        let (beforeQuery, query) = AddressParser.split(rest, at: "?")
        // the user before anything that could echo a part: a password may hold a / too, so the user ends at the last
        // @ before the query, and the host and port are read only after it
        var afterUser = beforeQuery
        user = nil
        if let at = beforeQuery.lastIndex(of: "@") {
            let userInfo = beforeQuery[..<at]
            if userInfo.contains(":") { throw Self.passwordError }
            guard !userInfo.contains("/") else {
                throw SinkError(
                    .malformedAddress, "the address's user holds a / (write it %2F), or its prefix an @ (write it %40)")
            }
            let name = try AddressParser.decode(userInfo, "the user")
            guard !name.isEmpty else { throw SinkError(.missingUser, "the address's user is empty: mqtt://USER@HOST") }
            user = name
            afterUser = beforeQuery[beforeQuery.index(after: at)...]
        }
        let (hostPort, path) = AddressParser.split(afterUser, at: "/")
        let parsedHost: String?
        let parsedPort: Int?
        do {
            (parsedHost, parsedPort) = try AddressParser.hostAndPort(hostPort)
        } catch  where error.code == .badPort {
            // never the text: a password whose : was taken for the port's may be there
            throw SinkError(.badPort, "the address's port is not a number from 1 to 65535")
        }
        guard let parsedHost, !parsedHost.hasPrefix("/") else {
            throw SinkError(.badHost, "the address names no broker host: mqtt://[USER@]HOST[:PORT][/PREFIX]")
        }
        host = parsedHost
        port = parsedPort ?? (tls ? Self.defaultTLSPort : Self.defaultPort)
        let decodedPath = try path.map { (path: Substring) throws(SinkError) in
            try AddressParser.decode(path, "the prefix")
        }
        prefix = try Self.topicLevels(decodedPath, "the prefix") ?? Self.defaultPrefix
        var parameters: [String: String] = [:]
        for pair in (query ?? "").split(separator: "&") {
            let (rawName, rawValue) = AddressParser.split(pair, at: "=")
            let name = try AddressParser.decode(rawName, "a parameter's name")
            if name == "password" { throw Self.passwordError }
            guard ["cafile", "discovery", "cleartext"].contains(name) else {
                let shown = name.count <= 30 && name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } ? name : "…"
                throw SinkError(
                    .unknownParameter,
                    "the address's parameter \(shown) is not one the MQTT sink reads (cafile, discovery, cleartext)")
            }
            guard parameters[name] == nil else { throw SinkError(.unknownParameter, "the address gives \(name) twice") }
            guard let rawValue, !rawValue.isEmpty else {
                throw SinkError(.malformedAddress, "the address's parameter \(name) has no value (\(name)=…)")
            }
            parameters[name] = try AddressParser.decode(rawValue, name)
        }
        discoveryPrefix =
            try Self.topicLevels(parameters["discovery"], "discovery=") ?? Self.defaultDiscoveryPrefix
        caFile = parameters["cafile"]
        if let caFile {
            guard tls else { throw SinkError(.conflictingParameter, "cafile applies only to mqtts:// (TLS)") }
            guard caFile.hasPrefix("/") else {
                throw SinkError(.conflictingParameter, "cafile= must be an absolute path (from /)")
            }
        }
        switch parameters["cleartext"] {
        case nil: cleartextAllowed = false
        case "allow": cleartextAllowed = true
        default: throw SinkError(.conflictingParameter, "cleartext= has one value: allow")
        }
        if cleartextAllowed && tls {
            throw SinkError(.conflictingParameter, "cleartext=allow applies only to mqtt://; mqtts:// is TLS")
        }
        if !tls && !cleartextAllowed && !SinkAddress.isLoopback(host) {
            throw SinkError(
                .conflictingParameter,
                "mqtt:// to \(host) would send the password and the readings in clear: use mqtts://, or add "
                    + "?cleartext=allow if the network is yours")
        }
        let canonicalLength = description.utf8.count
        guard canonicalLength <= SinkAddress.maximumLength else {
            throw SinkError(
                .addressTooLong,
                "the address written in its canonical form (percent-encoded) is \(canonicalLength) bytes long: "
                    + "at most \(SinkAddress.maximumLength) are read")
        }
    }

    /// The broker as a message names it: `broker.example:8883`, `[::1]:1883`.
    public var serverDescription: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The canonical URL: `mqtt[s]://[USER@]HOST:PORT/PREFIX?discovery=D[&cafile=PATH][&cleartext=allow]`. It holds
    /// no secret.
    public var description: String {
        var text = (tls ? "mqtts://" : "mqtt://") + (user.map { SinkAddress.encode($0, keeping: []) + "@" } ?? "")
        text += host.contains(":") ? "[\(host)]" : SinkAddress.encode(host, keeping: [])
        text += ":\(port)/" + SinkAddress.encode(prefix, keeping: [UInt8(ascii: "/")])
        text += "?discovery=" + SinkAddress.encode(discoveryPrefix, keeping: [UInt8(ascii: "/")])
        if let caFile { text += "&cafile=" + SinkAddress.encode(caFile, keeping: [UInt8(ascii: "/")]) }
        if cleartextAllowed { text += "&cleartext=allow" }
        return text
    }

    static let passwordError = SinkError(
        .passwordInAddress, "the address contains a password: give it with --password-file, never in the address")

    /// `text` checked as topic levels the hub publishes under (`nil` when absent or empty): no `+`, `#` or U+0000,
    /// no empty level, not beginning with `$` (the broker's own topics), at most ``maximumPrefixLength`` bytes.
    static func topicLevels(_ text: String?, _ what: String) throws(SinkError) -> String? {
        guard let text, !text.isEmpty else { return nil }
        guard text.utf8.count <= maximumPrefixLength else {
            throw SinkError(
                .malformedAddress, "\(what) is \(text.utf8.count) bytes long: at most \(maximumPrefixLength)")
        }
        guard !text.contains("+") && !text.contains("#") && !text.utf8.contains(0) else {
            throw SinkError(.malformedAddress, "\(what) may not hold + or #: MQTT's wildcards are not topic names")
        }
        guard !text.hasPrefix("$") else {
            throw SinkError(.malformedAddress, "\(what) may not begin with $: such topics are the broker's own")
        }
        guard !text.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty) else {
            throw SinkError(.malformedAddress, "\(what) has an empty level (// or a / at an end)")
        }
        return text
    }
}
