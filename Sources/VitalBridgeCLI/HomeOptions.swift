import ArgumentParser

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
