import ArgumentParser
import Foundation
import VitalHome

extension Transport: ExpressibleByArgument {}

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
