import ArgumentParser
import VitalCore
import VitalHome
import VitalStore

/// `vitalbridge people add|list|assign|unassign|remove`: whose readings they are.
struct PeopleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "people",
        abstract: "Name the home's people and say which user of a multi-user device each one is.",
        discussion: """
            A blood pressure monitor or a scale that keeps several users gives each reading its user index. The hub \
            never guesses whose a reading is: a reading of an index no person is assigned stays in quarantine \
            (vitalbridge records --quarantine), never delivered nor exported, until you assign the index; it is then \
            released with its own time. A home whose devices keep no users needs none of this.

            Examples:
              vitalbridge people add Mum
              vitalbridge people assign --mac 004D3208D30B --user-index 1 --person Mum
              vitalbridge whitelist add com.example.mum mumsapp:// --person Mum
              vitalbridge people list
              vitalbridge people unassign --mac 004D3208D30B --user-index 1
            """,
        subcommands: [Add.self, List.self, Assign.self, Unassign.self, Remove.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a person to the home.", discussion: "Example:\n  vitalbridge people add Mum")
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "The person's name (at most 64 characters).") var name: String

        func run() throws {
            let hub = try openHub(homeOptions.home, create: true)
            try refusing("cannot add \(name)") { () throws(StoreError) in try hub.store.people.add(name) }
            print("added \(name)")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the home's people and the user indexes assigned to them.",
            discussion: "Example:\n  vitalbridge people list")
        @OptionGroup var homeOptions: HomeOptions

        func run() throws {
            let hub = try openHub(homeOptions.home)
            let people = try hub.store.people.all()
            let callers = try hub.store.people.callers()
            print(
                table(
                    ["person", "users", "callers"],
                    people.map { person in
                        [
                            person.name,
                            person.assignments.map { "\($0.device)#\($0.userIndex)" }.joined(separator: " "),
                            callers.filter { $0.value == person.name }.keys.sorted().joined(separator: " "),
                        ]
                    }))
        }
    }

    /// A device and one of its user indexes.
    struct DeviceUser: ParsableArguments {
        @Option(name: .customLong("mac"), help: "The device (12 hex digits).", transform: MACArgument.parse("--mac"))
        var device: MACAddress
        @Option(help: "The user index the device gives the person's readings (0-255; 255 is its unknown user).")
        var userIndex: Int

        func validate() throws {
            guard UInt8(exactly: userIndex) != nil else { throw ValidationError("--user-index must be 0 to 255") }
        }

        var index: UInt8 { UInt8(userIndex) }
    }

    struct Assign: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Say that a device's user index is a person: its readings in quarantine are released.",
            discussion: "Example:\n  vitalbridge people assign --mac 004D3208D30B --user-index 1 --person Mum")
        @OptionGroup var homeOptions: HomeOptions
        @OptionGroup var user: DeviceUser
        @Option(help: "The person (vitalbridge people add).") var person: String

        func run() throws {
            let hub = try openHub(homeOptions.home, readOnly: false)
            let released = try refusing("cannot assign user \(user.index) of \(user.device)") { () throws(StoreError) in
                try hub.store.people.assign(device: user.device, userIndex: user.index, to: person)
            }
            print(
                "user \(user.index) of \(user.device) is \(person): \(released) reading\(released == 1 ? "" : "s") released"
            )
        }
    }

    struct Unassign: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Undo an assignment: the user index's readings not yet delivered return to quarantine.",
            discussion: "Example:\n  vitalbridge people unassign --mac 004D3208D30B --user-index 1")
        @OptionGroup var homeOptions: HomeOptions
        @OptionGroup var user: DeviceUser

        func run() throws {
            let hub = try openHub(homeOptions.home, readOnly: false)
            let held = try refusing("cannot unassign user \(user.index) of \(user.device)") { () throws(StoreError) in
                try hub.store.people.unassign(device: user.device, userIndex: user.index)
            }
            print(
                "user \(user.index) of \(user.device) is no one's: \(held) reading\(held == 1 ? "" : "s") in quarantine"
            )
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a person who has no assignment and no caller.",
            discussion: "Example:\n  vitalbridge people remove Mum")
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "The person's name.") var name: String

        func run() throws {
            let hub = try openHub(homeOptions.home, readOnly: false)
            try refusing("cannot remove \(name)") { () throws(StoreError) in try hub.store.people.remove(name) }
            print("removed \(name)")
        }
    }
}

/// `body`'s result; a store error it throws is printed after `what` and refuses the command (exit 1).
func refusing<T>(_ what: String, _ body: () throws(StoreError) -> T) throws(CommandError) -> T {
    do {
        return try body()
    } catch {
        throw CommandError("\(what): \(error.message)")
    }
}
