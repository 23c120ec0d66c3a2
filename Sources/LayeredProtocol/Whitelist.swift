import VitalCore

/// The callers the hub answers (`AppWhiteList.plist`): each app id maps to its callback URL (`myapp://`), or to
/// `*` for a caller that names its callback in the request (`callerurl`).
///
/// The fixed callback URL is the hub's security boundary: the app id and scheme of a request are only claims,
/// but a fixed entry sends readings only to the app that owns its scheme. So every callback URL is a custom app
/// scheme (`LayeredCallback.refusal(ofDestination:)`), no two callers share a scheme, and a new home has no `*`
/// entry: whoever claims a `*` caller's app id may name any custom app scheme as its `callerurl`.
public struct Whitelist: Hashable, Sendable {
    /// App id → callback destination or `*`.
    public private(set) var entries: [String: String]

    /// The entry that allows a dynamic callback URL.
    public static let dynamic = "*"

    public init(entries: [String: String] = [:]) { self.entries = entries }

    /// The whitelist a new home starts with: the demo caller, and no dynamic (`*`) one.
    public static let `default` = Whitelist(entries: ["org.vitalbridge.demo": "vitalbridge-demo://"])

    /// Reads an XML property list whose root is a dictionary of strings.
    ///
    /// - Throws: ``WhitelistError`` saying what is wrong: not an XML property list (with the byte offset), a binary
    ///   property list, a root that is not a dictionary, an entry that is empty, repeated, not a string, not a
    ///   callback URL to a custom app scheme or `*`, or a scheme another caller has too.
    public init(plist bytes: [UInt8]) throws(WhitelistError) {
        guard !bytes.starts(with: Array("bplist".utf8)) else {
            throw WhitelistError(
                message: "AppWhiteList.plist is a binary property list; write it as XML (plutil -convert xml1)")
        }
        let dictionary: [(key: String, value: XMLPropertyList.Value)]
        do {
            dictionary = try XMLPropertyList.dictionary(bytes)
        } catch {
            throw WhitelistError(
                message: "AppWhiteList.plist is not an XML property list: \(error.message) (byte \(error.offset))")
        }
        var entries: [String: String] = [:]
        for (appID, value) in dictionary {
            guard !appID.isEmpty else { throw WhitelistError(message: "AppWhiteList.plist: an entry has an empty key") }
            guard case .string(let destination) = value else {
                throw WhitelistError(message: "AppWhiteList.plist: the entry of \(appID) is not a string")
            }
            guard entries[appID] == nil else {
                throw WhitelistError(message: "AppWhiteList.plist: \(appID) has more than one entry")
            }
            do {
                try Whitelist(entries: entries).check(destination, for: appID)
            } catch {
                throw WhitelistError(message: "AppWhiteList.plist: the entry of \(appID): \(error.message)")
            }
            entries[appID] = destination
        }
        self.entries = entries
    }

    /// The whitelist as an XML property list, entries sorted by app id.
    public var plist: [UInt8] {
        XMLPropertyList.document(entries.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// Throws unless `destination` may be the entry of `appID`: `*`, or a callback URL to a custom app scheme that
    /// no other caller has.
    public func check(_ destination: String, for appID: String) throws(WhitelistError) {
        guard !appID.isEmpty else { throw WhitelistError(message: "an app id cannot be empty") }
        // no bundle or package id has one, and the journal names a DDS source `dds:<source>`: a caller of that name
        // would share its deliveries, and be denied the readings DDS handed over
        guard !appID.contains(":") else {
            throw WhitelistError(message: "an app id cannot hold ':' (\(appID.prefix(60)) is no bundle or package id)")
        }
        // what AppWhiteList.plist can hold: XML 1.0 has no control characters but tab and line ends, and those
        // have no place in an app id or a URL either
        for (text, what) in [(appID, "an app id"), (destination, "a callback URL")]
        where !XMLPropertyList.isWritable(text) || text.unicodeScalars.contains(where: { $0.value < 0x20 }) {
            throw WhitelistError(message: "\(what) cannot hold a control character")
        }
        guard destination != Whitelist.dynamic else { return }
        if let refusal = LayeredCallback.refusal(ofDestination: destination) {
            throw WhitelistError(message: "'\(destination)' cannot be a callback URL: \(refusal)")
        }
        let scheme = Whitelist.scheme(of: destination) ?? ""
        if let other = owners(ofScheme: scheme).first(where: { $0 != appID }) {
            throw WhitelistError(
                message: "the scheme \(scheme) is \(other)'s already; two callers cannot share a scheme")
        }
    }

    /// Adds or replaces the entry of `appID`, after ``check(_:for:)``.
    public mutating func set(_ destination: String, for appID: String) throws(WhitelistError) {
        try check(destination, for: appID)
        entries[appID] = destination
    }

    /// Removes the entry of `appID`; `false` if there was none.
    @discardableResult
    public mutating func remove(_ appID: String) -> Bool { entries.removeValue(forKey: appID) != nil }

    /// The caller whose fixed callback URL has the scheme `scheme` (compared without case), if exactly one has.
    public func caller(forScheme scheme: String) -> String? {
        let owners = owners(ofScheme: scheme)
        return owners.count == 1 ? owners.first : nil
    }

    /// The callers whose fixed callback URL has the scheme `scheme` (compared without case): the apps that own it.
    /// A `*` caller owns no scheme, and may name none of these.
    public func owners(ofScheme scheme: String) -> [String] {
        let scheme = scheme.lowercased()
        return entries.compactMap {
            $0.value != Whitelist.dynamic && Whitelist.scheme(of: $0.value) == scheme ? $0.key : nil
        }
    }

    /// The lower-cased scheme of a callback URL.
    static func scheme(of destination: String) -> String? {
        guard let colon = destination.firstIndex(of: ":") else { return nil }
        return destination[..<colon].lowercased()
    }
}

/// A whitelist file that cannot be used.
public struct WhitelistError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
