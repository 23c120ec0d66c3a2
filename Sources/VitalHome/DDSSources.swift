import Foundation
import LayeredProtocol
import VitalBridge
import VitalCore
import WelltoryDDS

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The DDS sources a hub answers: source → the exact callback URL registered for it (`dds-sources.json`).
public struct DDSSources: Sendable {
    /// Each source's registered callback URL.
    public var entries: [String: String] = [:]

    /// No source.
    public init() {}

    /// The sources by name, a row each: the source and its callback URL.
    public var table: TextTable {
        TextTable(["source", "callback"], entries.sorted { $0.key < $1.key }.map { [$0.key, $0.value] })
    }

    /// The sources of `home` as the engine asks for them: the file is read only when a DDS request comes.
    public struct Registry: DDSRegistry {
        /// The home whose `dds-sources.json` is read.
        public let home: Home
        /// The registry of `home`.
        public init(home: Home) { self.home = home }
        public func callback(for source: String) throws -> String? { try DDSSources.load(home).entries[source] }
    }

    /// `dds-sources.json` in `home`.
    public static func path(_ home: Home) -> String { home.directory + "/dds-sources.json" }

    /// The sources `home` registered (none when it has no file).
    public static func load(_ home: Home) throws -> DDSSources {
        let path = path(home)
        guard Home.exists(path) else { return DDSSources() }
        let bytes = try Home.readFile(path, limit: 1 << 20)
        guard case .object(let members)? = try? JSON.parse(bytes) else {
            throw HomeError("\(path) is not a JSON object of source → callback URL")
        }
        var sources = DDSSources()
        for (source, value) in members {
            guard case .string(let callback) = value else {
                throw HomeError("\(path): the callback of \(source) is not a string")
            }
            try sources.set(callback, for: source)
        }
        return sources
    }

    /// Writes `sources` (atomically) to `home`.
    public static func save(_ sources: DDSSources, in home: Home) throws {
        let members = sources.entries.sorted { $0.key < $1.key }.map { (key: $0.key, value: JSON.string($0.value)) }
        try Home.writeFile(JSON.object(members).serialized(pretty: true), to: path(home))
    }

    /// Loads the sources of `home`, lets `change` change them, and saves them (atomically) unless it throws.
    public static func update(in home: Home, _ change: (inout DDSSources) throws -> Void) throws {
        var sources = try load(home)
        try change(&sources)
        try save(sources, in: home)
    }

    /// Stops answering `source`.
    ///
    /// - Throws: ``HomeError`` if it is not a source of the home.
    public mutating func remove(_ source: String) throws {
        guard entries.removeValue(forKey: source) != nil else {
            throw HomeError("\(source) is not a DDS source of this hub")
        }
    }

    /// Registers `callback` for `source`: a name of 1–100 printable characters, and either an https URL with a
    /// host (a universal link, as the document uses) or a custom app scheme the layered whitelist would accept.
    /// Either may have a query of its own, which the results are appended to (`myapp://dds?x=1&rmssd=…`), as long
    /// as it has no result parameter (`DDSResult.check(callback:)`).
    public mutating func set(_ callback: String, for source: String) throws {
        guard !source.isEmpty, source.count <= 100,
            source.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
        else { throw HomeError("the source name must be 1 to 100 printable characters") }
        if callback.lowercased().hasPrefix("https://") {
            let host = callback.dropFirst(8).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            guard !host.isEmpty, !host.contains("@"), !callback.contains(" ") else {
                throw HomeError("\(callback) is not an https URL with a host")
            }
        } else {
            // the whitelist's rule is for a scheme and path; the query is the DDS reader's to check
            let address = callback.prefix { $0 != "?" && $0 != "#" }
            do {
                try Whitelist().check(String(address), for: source)
            } catch {
                throw HomeError("\(callback) is neither an https URL nor a custom app scheme: \(error)")
            }
        }
        do {
            try DDSResult.check(callback: callback)
        } catch {
            throw HomeError("\(callback) cannot take the results: \(error)")
        }
        entries[source] = callback
    }
}
