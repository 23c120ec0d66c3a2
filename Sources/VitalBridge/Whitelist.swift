import Foundation
import LayeredProtocol

/// The callers the hub answers (`AppWhiteList.plist`): each app id maps to its callback URL (`myapp://`), or to
/// `*` for a caller that names its callback in the request (`callerurl`).
public struct Whitelist: Hashable, Sendable {
    /// App id → callback destination or `*`.
    public private(set) var entries: [String: String]

    /// The entry that allows a dynamic callback URL.
    public static let dynamic = "*"

    public init(entries: [String: String] = [:]) { self.entries = entries }

    /// The whitelist a new home starts with: the demo caller and a dynamic one.
    public static let `default` = Whitelist(entries: [
        "org.vitalbridge.demo": "vitalbridge-demo://", "org.vitalbridge.dynamic": Whitelist.dynamic,
    ])

    /// Reads an XML property list whose root is a dictionary of strings.
    public init(plist data: Data) throws(WhitelistError) {
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw WhitelistError(message: "AppWhiteList.plist is not a property list")
        }
        guard let dictionary = object as? [String: Any] else {
            throw WhitelistError(message: "AppWhiteList.plist's root is not a dictionary")
        }
        var entries: [String: String] = [:]
        for (appID, value) in dictionary {
            guard let destination = value as? String else {
                throw WhitelistError(message: "AppWhiteList.plist: the entry of \(appID) is not a string")
            }
            guard Whitelist.isValid(destination) else {
                throw WhitelistError(message: "AppWhiteList.plist: the entry of \(appID) is not a callback URL or *")
            }
            entries[appID] = destination
        }
        self.entries = entries
    }

    /// The whitelist as an XML property list.
    public var plist: Data {
        (try? PropertyListSerialization.data(fromPropertyList: entries, format: .xml, options: 0)) ?? Data()
    }

    /// Whether `destination` can be an entry: `*`, or a scheme followed by printable ASCII without `?` and `#`.
    public static func isValid(_ destination: String) -> Bool {
        destination == dynamic || LayeredCallback.isValidDestination(destination)
    }

    /// Adds or replaces the entry of `appID`.
    public mutating func set(_ destination: String, for appID: String) throws(WhitelistError) {
        guard !appID.isEmpty, Whitelist.isValid(destination) else {
            throw WhitelistError(message: "'\(destination)' is not a callback URL (like myapp://) or *")
        }
        entries[appID] = destination
    }

    /// Removes the entry of `appID`; `false` if there was none.
    @discardableResult
    public mutating func remove(_ appID: String) -> Bool { entries.removeValue(forKey: appID) != nil }

    /// The caller whose fixed callback URL has the scheme `scheme` (compared without case), if exactly one has.
    public func caller(forScheme scheme: String) -> String? {
        let matching = entries.filter {
            $0.value != Whitelist.dynamic && Whitelist.scheme(of: $0.value) == scheme.lowercased()
        }
        return matching.count == 1 ? matching.first?.key : nil
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
