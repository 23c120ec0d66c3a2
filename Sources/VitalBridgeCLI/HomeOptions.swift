import ArgumentParser
import VitalCore

/// `--home`, shared by every command that uses the hub's files.
struct HomeOptions: ParsableArguments {
    @Option(
        name: .customLong("home"),
        help: ArgumentHelp(
            "The hub's folder: store, whitelist, fleet and world state; at most once.",
            discussion: "Default: $VITALBRIDGE_HOME, else $XDG_DATA_HOME/vitalbridge, else ~/.local/share/vitalbridge.",
            valueName: "home"))
    var homes: [String] = []

    /// The folder `--home` names, if given.
    var home: String? { homes.first }

    func validate() throws {
        guard homes.count <= 1 else { throw ValidationError("--home may be given once") }
        guard home != "" else { throw ValidationError("--home cannot be empty") }
    }
}

/// A MAC address read as the command line is parsed (`@Option(transform: MACArgument.parse("--mac"))`), so that a
/// command's `run` gets the address itself: a usage error naming the option when it is not 12 hexadecimal digits.
enum MACArgument {
    /// The reader of `option`'s value.
    static func parse(_ option: String) -> @Sendable (String) throws -> MACAddress {
        reading(MACAddress.init, else: "\(option) must be 12 hexadecimal digits")
    }
}

/// The reader of an option's value for `@Option(transform:)`: what `parse` makes of the text, or a usage error
/// saying `message` (given the text) when it makes nothing.
func reading<T>(
    _ parse: @escaping @Sendable (String) -> T?, else message: @escaping @Sendable (String) -> String
) -> @Sendable (String) throws -> T {
    { text in
        guard let value = parse(text) else { throw ValidationError(message(text)) }
        return value
    }
}

/// ``reading(_:else:)`` with a message that does not repeat the text.
func reading<T>(_ parse: @escaping @Sendable (String) -> T?, else message: String) -> @Sendable (String) throws -> T {
    reading(parse, else: { _ in message })
}
