import DBus
import VitalCore

/// What BlueZ says about this machine, read step by step for `vitalbridge doctor`: each step that fails says where
/// the way to a device stops.
public enum BlueZInspection: Sendable, Equatable {
    /// sd-bus cannot be loaded (the text names the package to install).
    case noLibrary(String)
    /// The bus cannot be reached (the text is the bus's error).
    case noBus(String)
    /// The bus answers but nothing owns `org.bluez` on it: bluetoothd is not running.
    case noBlueZ
    /// `org.bluez` is there but did not answer as BlueZ does (the text is its error).
    case failed(String)
    /// BlueZ answered: its adapters, and every device it knows.
    case reached(adapters: [BlueZAdapter], devices: [BlueZKnownDevice])

    /// Asks the bus at `address` (the system bus by default), without changing anything on it.
    public static func inspect(bus address: DBusConnection.Address = .system) async -> BlueZInspection {
        if let problem = DBusConnection.libraryProblem { return .noLibrary(problem) }
        let bus: DBusConnection
        do {
            bus = try await DBusConnection.open(address)
        } catch {
            return .noBus("\(error)")
        }
        defer { bus.close() }
        do {
            let owned = try await bus.call(
                "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
                [.string(BlueZNames.service)])
            guard owned.first?.bool == true else { return .noBlueZ }
            let reply = try await bus.call(BlueZNames.service, "/", BlueZNames.objectManager, "GetManagedObjects")
            var adapters: [BlueZAdapter] = []
            var devices: [BlueZKnownDevice] = []
            for (path, value) in reply.first?.dictionary ?? [:] {
                let interfaces = value.dictionary?.compactMapValues(\.dictionary) ?? [:]
                if let adapter = BlueZAdapter(path: path, interfaces: interfaces) { adapters.append(adapter) }
                if let device = BlueZKnownDevice(path: path, interfaces: interfaces) { devices.append(device) }
            }
            return .reached(
                adapters: adapters.sorted { $0.name < $1.name },
                devices: devices.sorted { ($0.adapter, $0.mac.description) < ($1.adapter, $1.mac.description) })
        } catch {
            return .failed("\(error)")
        }
    }
}

extension BlueZAdapter {
    /// The adapter at `path`, if `interfaces` has `org.bluez.Adapter1`.
    init?(path: String, interfaces: [String: [String: DBusValue]]) {
        guard let adapter = interfaces[BlueZNames.adapter] else { return nil }
        self.init(
            name: String(path.split(separator: "/").last ?? ""), address: adapter["Address"]?.string ?? "",
            powered: adapter["Powered"]?.bool ?? false,
            central: adapter["Roles"]?.strings?.contains("central") ?? true)
    }
}

/// A device BlueZ knows (an `org.bluez.Device1` object): one it has heard, or paired with before.
public struct BlueZKnownDevice: Hashable, Sendable {
    /// The adapter it is known on, e.g. `hci0`.
    public let adapter: String
    public let mac: MACAddress
    /// What it calls itself (`Name`, else `Alias`); empty when neither.
    public let name: String
    public let paired: Bool
    /// Whether the pairing left a bond (keys kept for the next connection). BlueZ before 5.65 has no `Bonded`:
    /// then a paired device counts as bonded, as those versions bonded every pairing.
    public let bonded: Bool
    public let trusted: Bool
    public let connected: Bool

    /// The device at `path`, if `interfaces` has `org.bluez.Device1` with an address.
    init?(path: String, interfaces: [String: [String: DBusValue]]) {
        guard let device = interfaces[BlueZNames.device], let address = device["Address"]?.string,
            let mac = BlueZNames.mac(address)
        else { return nil }
        let parts = path.split(separator: "/")
        adapter = parts.count > 2 ? String(parts[2]) : ""
        self.mac = mac
        name = device["Name"]?.string ?? device["Alias"]?.string ?? ""
        paired = device["Paired"]?.bool ?? false
        bonded = device["Bonded"]?.bool ?? paired
        trusted = device["Trusted"]?.bool ?? false
        connected = device["Connected"]?.bool ?? false
    }
}
