/// Where a sink's database is: a PostgreSQL URL in libpq's form, checked, with its TLS mode decided.
///
/// The forms read (libpq's conventions; `postgres://` is the same as `postgresql://`):
///
/// ```text
/// postgresql://hub@db.example/health                     TCP, port 5432, sslmode=require (the default off loopback)
/// postgresql://hub@db.example:6432/health?sslmode=verify-full&sslrootcert=/etc/ssl/db-ca.pem
/// postgresql://hub@[::1]/health                          IPv6 loopback, sslmode=prefer (the default on loopback)
/// postgresql://hub@%2Frun%2Fpostgresql/health            the Unix socket /run/postgresql/.s.PGSQL.5432
/// postgresql://hub@/health?host=/run/postgresql&port=5433   the same folder, the socket .s.PGSQL.5433
/// ```
///
/// When `sslmode` is absent it is `prefer` for a Unix socket or a loopback host (`localhost`, `127.x.x.x`, `::1`),
/// and `require` for any other host: unlike libpq (whose default is always `prefer`), health data never crosses a
/// network in clear unless the address says `sslmode=disable`.
///
/// A password in the address is refused (a URL is shown by `sink list` and visible to other users in `/proc`):
/// give it in a file (``SinkPassword/read(file:)``) or in `~/.pgpass` (``SinkPassword/lookup(for:passfile:logger:)``).
/// ``description`` writes the address back in one canonical form, with its port and sslmode, which parses to
/// the same address.
public struct SinkAddress: Hashable, Sendable, CustomStringConvertible {
    /// How to reach the server.
    public enum Endpoint: Hashable, Sendable {
        /// A host name or IP address (an IPv6 address without brackets) and a TCP port.
        case tcp(host: String, port: Int)
        /// The folder of the server's Unix socket and the port that names the socket file (`.s.PGSQL.PORT`).
        case unixSocket(directory: String, port: Int)
    }

    /// libpq's `sslmode`: whether the connection uses TLS, and what is verified.
    public enum SSLMode: String, CaseIterable, Hashable, Sendable {
        /// No TLS.
        case disable
        /// TLS if the server insists (the sink treats it as ``prefer``: TLS when the server offers it).
        case allow
        /// TLS when the server offers it, without verifying its certificate; in clear otherwise.
        case prefer
        /// TLS always, without verifying the server's certificate.
        case require
        /// TLS always; the certificate must be signed by the trusted CA (`sslrootcert`), whatever host it names.
        case verifyCA = "verify-ca"
        /// TLS always; the certificate must be signed by the trusted CA and name the host.
        case verifyFull = "verify-full"

        /// Whether the mode verifies the server's certificate.
        public var verifiesCertificate: Bool { self == .verifyCA || self == .verifyFull }
    }

    /// The longest address read, in UTF-8 bytes.
    public static let maximumLength = 2048
    /// PostgreSQL's port, and the default.
    public static let defaultPort = 5432

    /// The role to connect as.
    public var user: String
    /// The database.
    public var database: String
    /// The server's host and port, or its socket.
    public var endpoint: Endpoint
    /// The TLS mode: the address's, or the default for its host.
    public var sslMode: SSLMode
    /// The CA certificates (PEM) that verify the server, for ``SSLMode/verifyCA`` and ``SSLMode/verifyFull``;
    /// `nil`: the system's trusted roots.
    public var sslRootCertificate: String?

    /// An address from its parts. `sslMode` `nil` is the default for the endpoint (``defaultSSLMode(for:)``).
    public init(
        user: String, database: String, endpoint: Endpoint, sslMode: SSLMode? = nil, sslRootCertificate: String? = nil
    ) {
        self.user = user
        self.database = database
        self.endpoint = endpoint
        self.sslMode = sslMode ?? Self.defaultSSLMode(for: endpoint)
        self.sslRootCertificate = sslRootCertificate
    }

    /// Reads a `postgresql://` URL; throws a ``SinkError`` naming what is wrong (never echoing a password).
    public init(_ text: String) throws(SinkError) {
        self = try AddressParser.parse(text)
    }

    /// The sslmode an address gets when it names none: `prefer` for a Unix socket or a loopback host, `require`
    /// elsewhere.
    public static func defaultSSLMode(for endpoint: Endpoint) -> SSLMode {
        switch endpoint {
        case .unixSocket: .prefer
        case .tcp(let host, _): isLoopback(host) ? .prefer : .require
        }
    }

    /// Whether `host` is this machine: `localhost`, an address in 127.0.0.0/8 (decimal, no leading zeros), or `::1`.
    public static func isLoopback(_ host: String) -> Bool {
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered == "::1" || lowered == "0:0:0:0:0:0:0:1" { return true }
        return isIPv4(lowered) && lowered.hasPrefix("127.")
    }

    /// Whether `host` is an IP address rather than a name (a TLS server name may not be one): IPv6 (it has a colon)
    /// or IPv4 in four decimal octets without leading zeros (a resolver reads `127.0.0.08` as a name, and DNS may
    /// answer it).
    public static func isIPAddress(_ host: String) -> Bool { host.contains(":") || isIPv4(host) }

    /// Whether `host` is IPv4 in four decimal octets of at most 255, without leading zeros.
    static func isIPv4(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCIIDigit) && Int(part)! <= 255
                    && String(Int(part)!) == part
            }
    }

    /// The path of the Unix socket file, `DIRECTORY/.s.PGSQL.PORT`; `nil` for TCP.
    public var socketPath: String? {
        guard case .unixSocket(let directory, let port) = endpoint else { return nil }
        return (directory.hasSuffix("/") ? directory : directory + "/") + ".s.PGSQL.\(port)"
    }

    /// The server as a message names it: `db.example:5432`, `[::1]:5432`, or the socket's path.
    public var serverDescription: String {
        switch endpoint {
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unixSocket: socketPath!
        }
    }

    /// The canonical URL: `postgresql://USER@HOST:PORT/DATABASE?sslmode=MODE[&sslrootcert=PATH]`, a socket's folder
    /// percent-encoded in the host (`%2Frun%2Fpostgresql`). It holds no secret.
    public var description: String {
        var text = "postgresql://" + Self.encode(user, keeping: []) + "@"
        switch endpoint {
        case .tcp(let host, let port):
            text += host.contains(":") ? "[\(host)]" : Self.encode(host, keeping: [])
            text += ":\(port)"
        case .unixSocket(let directory, let port):
            text += Self.encode(directory, keeping: []) + ":\(port)"
        }
        text += "/" + Self.encode(database, keeping: []) + "?sslmode=" + sslMode.rawValue
        if let sslRootCertificate {
            text += "&sslrootcert=" + Self.encode(sslRootCertificate, keeping: [UInt8(ascii: "/")])
        }
        return text
    }

    /// `text` percent-encoded: RFC 3986's unreserved characters and `keeping` stay, every other byte is escaped.
    static func encode(_ text: String, keeping: Set<UInt8>) -> String {
        var encoded = ""
        for byte in text.utf8 {
            let isUnreserved =
                (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "~")
            if isUnreserved || keeping.contains(byte) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = Array("0123456789ABCDEF".utf8)
                encoded += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]], as: UTF8.self)
            }
        }
        return encoded
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

/// The parser behind ``SinkAddress/init(_:)``: one pass over the URL's parts, each error naming its part.
enum AddressParser {
    static func parse(_ text: String) throws(SinkError) -> SinkAddress {
        guard text.utf8.count <= SinkAddress.maximumLength else {
            throw SinkError(
                .addressTooLong,
                "the address is \(text.utf8.count) bytes long: at most \(SinkAddress.maximumLength) are read")
        }
        guard !text.utf8.contains(where: isControl) else {
            throw SinkError(.controlCharacter, "the address contains a control character")
        }
        // the scheme
        let rest: Substring
        if let separator = text.firstRange(of: "://") {
            let scheme = text[..<separator.lowerBound].lowercased()
            guard scheme == "postgresql" || scheme == "postgres" else {
                let shown = scheme.count <= 20 && scheme.allSatisfy { $0.isLetter || $0.isNumber } ? scheme : "…"
                throw SinkError(
                    .unknownScheme, "the address's scheme is \(shown): it must be postgresql:// or postgres://")
            }
            rest = text[separator.upperBound...]
        } else {
            throw SinkError(
                .unknownScheme, "the address is not a postgresql:// URL (postgresql://USER@HOST/DATABASE)")
        }
        guard !rest.contains("#") else {
            throw SinkError(.malformedAddress, "the address has a fragment (#): a postgresql:// URL has none")
        }
        let (beforeQuery, query) = split(rest, at: "?")
        // the user, before anything that could echo a part: a password is refused without being shown (it may
        // hold a / too, so the user ends at the last @)
        guard let at = beforeQuery.lastIndex(of: "@") else {
            throw SinkError(.missingUser, "the address names no user: postgresql://USER@HOST/DATABASE")
        }
        let userInfo = beforeQuery[..<at]
        if userInfo.contains(":") { throw passwordError }
        guard !userInfo.contains("/") else {
            throw SinkError(.malformedAddress, "the address's user contains a /: write it %2F")
        }
        let (hostPort, path) = split(beforeQuery[beforeQuery.index(after: at)...], at: "/")
        let parameters = try parameters(query)
        let user = try decode(userInfo, "the user")
        guard !user.isEmpty else {
            throw SinkError(.missingUser, "the address names no user: postgresql://USER@HOST/DATABASE")
        }
        // the database
        guard let path, !path.isEmpty else {
            throw SinkError(.missingDatabase, "the address names no database: postgresql://USER@HOST/DATABASE")
        }
        let database = try decode(path, "the database")
        guard !database.isEmpty else {
            throw SinkError(.missingDatabase, "the address names no database: postgresql://USER@HOST/DATABASE")
        }
        // the host and port
        var (host, port) = try hostAndPort(hostPort)
        if let value = parameters["host"] {
            guard host == nil else {
                throw SinkError(.conflictingParameter, "the address names its host twice (before the path and host=)")
            }
            guard !value.isEmpty, !value.contains(",") else {
                throw SinkError(.badHost, "host= must name one host or one socket folder")
            }
            host = try hostParameter(value)
        }
        if let value = parameters["port"] {
            guard port == nil else {
                throw SinkError(.conflictingParameter, "the address names its port twice (after the host and port=)")
            }
            port = try parsePort(Substring(value))
        }
        let endpoint: SinkAddress.Endpoint
        guard let host else {
            throw SinkError(
                .badHost,
                "the address names no host: postgresql://USER@HOST/DATABASE, or a socket folder with ?host=/run/postgresql"
            )
        }
        if host.hasPrefix("/") {
            endpoint = .unixSocket(directory: host, port: port ?? SinkAddress.defaultPort)
        } else {
            endpoint = .tcp(host: host, port: port ?? SinkAddress.defaultPort)
        }
        // TLS
        var sslMode: SinkAddress.SSLMode?
        if let value = parameters["sslmode"] {
            guard let mode = SinkAddress.SSLMode(rawValue: value) else {
                let shown = value.count <= 20 && value.allSatisfy { $0.isLetter || $0 == "-" } ? value : "…"
                throw SinkError(
                    .unknownSSLMode,
                    "sslmode=\(shown) is not a mode: disable, allow, prefer, require, verify-ca or verify-full")
            }
            sslMode = mode
        }
        let rootCertificate = parameters["sslrootcert"]
        if let rootCertificate {
            guard sslMode?.verifiesCertificate == true else {
                throw SinkError(
                    .conflictingParameter, "sslrootcert applies only with sslmode=verify-ca or sslmode=verify-full")
            }
            guard !rootCertificate.isEmpty else {
                throw SinkError(.conflictingParameter, "sslrootcert= names no file")
            }
        }
        if case .unixSocket = endpoint, let sslMode, sslMode != .disable, sslMode != .allow, sslMode != .prefer {
            throw SinkError(
                .conflictingParameter,
                "sslmode=\(sslMode.rawValue) needs TCP: a Unix socket does not use TLS (use prefer or disable)")
        }
        let address = SinkAddress(
            user: user, database: database, endpoint: endpoint, sslMode: sslMode, sslRootCertificate: rootCertificate)
        // the canonical form percent-encodes what the text may give raw (a space, a non-ASCII letter): it is what
        // `sink add` stores and reads back, so it must fit the limit too
        let canonicalLength = address.description.utf8.count
        guard canonicalLength <= SinkAddress.maximumLength else {
            throw SinkError(
                .addressTooLong,
                "the address written in its canonical form (percent-encoded) is \(canonicalLength) bytes long: "
                    + "at most \(SinkAddress.maximumLength) are read")
        }
        return address
    }

    static let passwordError = SinkError(
        .passwordInAddress,
        "the address contains a password: give it with --password-file or in ~/.pgpass, never in the address")

    static let knownParameters: Set<String> = ["sslmode", "sslrootcert", "host", "port"]

    /// The query's parameters, decoded; a password, an unknown or a repeated parameter is refused.
    static func parameters(_ query: Substring?) throws(SinkError) -> [String: String] {
        guard let query, !query.isEmpty else { return [:] }
        var parameters: [String: String] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: false) {
            let (rawName, rawValue) = split(pair, at: "=")
            let name = try decode(rawName, "a parameter's name")
            if name == "password" { throw passwordError }
            guard knownParameters.contains(name) else {
                let shown = name.count <= 30 && name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } ? name : "…"
                throw SinkError(
                    .unknownParameter,
                    "the address's parameter \(shown) is not one the sink reads (sslmode, sslrootcert, host, port)")
            }
            guard parameters[name] == nil else {
                throw SinkError(.unknownParameter, "the address gives \(name) twice")
            }
            guard let rawValue else {
                throw SinkError(.malformedAddress, "the address's parameter \(name) has no value (\(name)=…)")
            }
            parameters[name] = try decode(rawValue, name)
        }
        return parameters
    }

    /// The host (`nil` when empty) and port of `text`: `host`, `host:port`, `[v6]`, `[v6]:port`, `%2Fsocket%2Fdir`.
    static func hostAndPort(_ text: Substring) throws(SinkError) -> (String?, Int?) {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw SinkError(.badHost, "the address's IPv6 host has no closing ]")
            }
            let host = text[text.index(after: text.startIndex)..<close]
            guard isIPv6(host) else {
                throw SinkError(.badHost, "the address's IPv6 host is not an IPv6 address")
            }
            let after = text[text.index(after: close)...]
            if after.isEmpty { return (host.lowercased(), nil) }
            guard after.hasPrefix(":") else {
                throw SinkError(.badHost, "the address's IPv6 host is followed by something other than :PORT")
            }
            return (host.lowercased(), try parsePort(after.dropFirst()))
        }
        let (rawHost, rawPort) = split(text, at: ":")
        guard !rawHost.contains(",") else {
            throw SinkError(.badHost, "the address names several hosts: a sink has one")
        }
        let host = try decode(rawHost, "the host")
        let port = try rawPort.map { (port: Substring) throws(SinkError) -> Int in try parsePort(port) }
        if !host.isEmpty && !host.hasPrefix("/") && !isHostName(host) {
            throw SinkError(.badHost, "the address's host is not a host name or IP address")
        }
        return (host.isEmpty ? nil : host, port)
    }

    /// The `host=` parameter's value checked as the URL's host is: a socket folder (from `/`), a host name or IPv4
    /// address, or an IPv6 address, which libpq takes here without brackets (lowercased, as in brackets).
    static func hostParameter(_ value: String) throws(SinkError) -> String {
        if value.hasPrefix("/") { return value }
        if value.contains(":") {
            guard isIPv6(value) else { throw SinkError(.badHost, "host= is not an IPv6 address") }
            return value.lowercased()
        }
        guard isHostName(value) else {
            throw SinkError(.badHost, "host= is not a host name, IP address or socket folder (from /)")
        }
        return value
    }

    /// Whether `text` is made of a host name's or IPv4 address's characters: ASCII letters, digits, `-`, `.`, `_`.
    static func isHostName(_ text: some StringProtocol) -> Bool {
        text.utf8.allSatisfy { byte in
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
        }
    }

    /// Whether `text` is made of an IPv6 address's characters (ASCII hex digits, `:`, `.`) and is not empty.
    static func isIPv6(_ text: some StringProtocol) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                hexValue(byte) != nil || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
            }
    }

    static func parsePort(_ text: Substring) throws(SinkError) -> Int {
        guard !text.isEmpty, text.count <= 5, text.allSatisfy(\.isASCIIDigit), let port = Int(text),
            (1...65535).contains(port)
        else {
            let shown = text.count <= 10 && text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" } ? text : "…"
            throw SinkError(.badPort, "the address's port \(shown) is not a number from 1 to 65535")
        }
        return port
    }

    /// `text` percent-decoded; `what` names the part in the error.
    static func decode(_ text: Substring, _ what: String) throws(SinkError) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard iterator.count >= 2, let high = hexValue(iterator.removeFirst()),
                let low = hexValue(iterator.removeFirst())
            else {
                throw SinkError(.badPercentEncoding, "\(what) has a % that is not followed by two hex digits")
            }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw SinkError(.badPercentEncoding, "\(what) does not decode to UTF-8 text")
        }
        guard !bytes.contains(where: isControl) else {
            throw SinkError(.controlCharacter, "\(what) contains a control character")
        }
        return decoded
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    static func isControl(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x7F }

    /// `text` before and after the first `separator`; `nil` after when there is none.
    static func split(_ text: Substring, at separator: Character) -> (Substring, Substring?) {
        guard let index = text.firstIndex(of: separator) else { return (text, nil) }
        return (text[..<index], text[text.index(after: index)...])
    }
}
