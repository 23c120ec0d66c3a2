import ArgumentParser
import BlueZ
import DBus
import Foundation
import VitalDevices
import VitalHome

/// How the hub reaches devices: the simulated world, or real Bluetooth through BlueZ.
enum Transport: String, CaseIterable, ExpressibleByArgument {
    case simulated
    case bluez
}

/// `--transport` and `--adapter`, shared by the commands that reach devices.
struct TransportOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "simulated or bluez; at most once.",
            discussion:
                "Default: bluez when the home names an adapter (vitalbridge init --adapter hci0), else simulated.",
            valueName: "transport"))
    var transport: [Transport] = []

    @Option(
        help: ArgumentHelp("The BlueZ adapter, e.g. hci0; at most once. Implies --transport bluez.", valueName: "name"))
    var adapter: [String] = []

    func validate() throws {
        guard transport.count <= 1 else { throw ValidationError("--transport may be given once") }
        guard adapter.count <= 1 else { throw ValidationError("--adapter may be given once") }
        if let name = adapter.first { try Self.check(adapter: name) }
        if transport.first == .simulated, !adapter.isEmpty {
            throw ValidationError("--adapter needs --transport bluez")
        }
    }

    /// An adapter name as BlueZ gives them: `hci` and digits.
    static func check(adapter name: String) throws {
        guard Home.isAdapterName(name) else { throw ValidationError("--adapter must be an adapter name such as hci0") }
    }

    var choice: TransportChoice { TransportChoice(transport: transport.first, adapter: adapter.first) }
}

/// What the command line asked for, resolved against the home when it asked nothing.
struct TransportChoice: Equatable {
    var transport: Transport?
    var adapter: String?

    /// The transport for `home`: the one asked for; else BlueZ with the home's adapter, if it names one; else the
    /// simulator.
    func resolved(in home: Home) throws(HomeError) -> (Transport, adapter: String?) {
        if transport == .simulated { return (.simulated, nil) }
        var adapter = self.adapter
        if adapter == nil { adapter = try home.adapter() }
        if transport == .bluez || adapter != nil { return (.bluez, adapter) }
        return (.simulated, nil)
    }
}
