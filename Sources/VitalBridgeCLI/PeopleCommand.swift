import ArgumentParser
import VitalBridge
import VitalCore
import VitalHome
import VitalStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `vitalbridge people add|set|list|assign|unassign|enroll|forget|remove`: whose readings they are.
struct PeopleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "people",
        abstract: "Name the home's people and say which user of a multi-user device each one is.",
        discussion: """
            A blood pressure monitor or a scale that keeps several users gives each reading its user index. The hub \
            never guesses whose a reading is: a reading of an index no person is assigned stays in quarantine \
            (vitalbridge records --quarantine), never delivered nor exported, until you assign the index; it is then \
            released with its own time. A home whose devices keep no users needs none of this.

            A device with a User Data Service (a family scale or monitor) keeps its users itself: enrol a person on \
            it (a new user, or one already there with its consent code), and every sync consents as each enrolled \
            person to take their records. An enrolment that ends keeps the readings measured while it lasted.

            Examples:
              vitalbridge people add Mum
              vitalbridge people assign --mac 004D3208D30B --user-index 1 --person Mum
              vitalbridge whitelist add com.example.mum mumsapp:// --person Mum
              vitalbridge people list
              vitalbridge people unassign --mac 004D3208D30B --user-index 1
              vitalbridge people add Ann --born 1980-05-17 --height 168 --sex female
              vitalbridge people set Ann --height 169
              vitalbridge people enroll Ann --mac 004D3208D316 --user-index 1 --consent 1111
              vitalbridge people forget Ann --mac 004D3208D316
            """,
        subcommands: [
            Add.self, SetData.self, List.self, Assign.self, Unassign.self, Enroll.self, Forget.self, Remove.self,
        ])

    /// What a scale needs to know of a person, as `people add` and `people set` take it.
    struct ProfileOptions: ParsableArguments {
        @Option(help: "The date of birth (yyyy-MM-dd).") var born: String?
        @Option(help: "The height in centimetres (30-300).") var height: Int?
        @Option(help: "female, male or unspecified.") var sex: String?

        var isEmpty: Bool { born == nil && height == nil && sex == nil }

        var profile: PersonProfile {
            get throws {
                do {
                    return try PersonProfile(
                        born: born, heightCentimetres: height, sex: sex, today: Timestamp(Date()).day)
                } catch { throw ValidationError(error.message) }
            }
        }

        func validate() throws { _ = try profile }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a person to the home, with what a scale needs to know of them.",
            discussion: "Example:\n  vitalbridge people add Mum --born 1950-03-02 --height 162 --sex female")
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "The person's name (at most 64 characters).") var name: String
        @OptionGroup var profileOptions: ProfileOptions

        func run() throws {
            let hub = try openHub(homeOptions.home, create: true)
            let profile = try profileOptions.profile
            try refusing("cannot add \(name)") { () throws(StoreError) in
                try hub.store.people.add(name, profile: profile)
            }
            print("added \(name)")
        }
    }

    struct SetData: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Change what a scale needs to know of a person.",
            discussion: """
                Only the values given change. The next sync of each device the person is enrolled on writes them \
                there, over what was changed on the device meanwhile.

                Example:
                  vitalbridge people set Ann --height 169
                """)
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "The person's name.") var name: String
        @OptionGroup var profileOptions: ProfileOptions

        func validate() throws {
            if profileOptions.isEmpty { throw ValidationError("give at least one of --born, --height and --sex") }
        }

        func run() throws {
            let hub = try openHub(homeOptions.home, readOnly: false)
            let change = try profileOptions.profile
            let profile = try refusing("cannot change \(name)") { () throws(StoreError) in
                try hub.store.people.update(name, with: change)
            }
            print("\(name): \(profile)")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the home's people and the user indexes assigned to them.",
            discussion: "Example:\n  vitalbridge people list")
        @OptionGroup var homeOptions: HomeOptions

        func run() throws {
            print(try openHub(homeOptions.home).peopleTable())
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
            commandName: "assign",
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
            commandName: "unassign",
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

    struct Enroll: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enroll",
            abstract: "Make a person a user of a device with a User Data Service (a family scale or monitor).",
            discussion: """
                Without --user-index a new user is registered on the device, with the consent code given or one the \
                hub chooses and shows once. With --user-index, the user already on the device is claimed with its \
                consent code; a wrong code is refused by the device and nothing is assigned. For a person enrolled \
                on the device already, the device is asked to accept the code again (a new --consent replaces the \
                one the home keeps). The home keeps consent codes in its store and never shows them again.

                Examples:
                  vitalbridge people enroll Ann --mac 004D3208D316
                  vitalbridge people enroll Bob --mac 004D3208D316 --user-index 2 --consent 2222
                """)
        @OptionGroup var homeOptions: HomeOptions
        @OptionGroup var transportOptions: TransportOptions
        @Argument(help: "The person (vitalbridge people add).") var person: String
        @Option(help: "The device (12 hex digits).", transform: MACArgument.parse("--mac")) var mac: MACAddress
        @Option(help: "The index of a user already on the device (0-254).") var userIndex: Int?
        @Option(help: "The user's consent code (0-9999).") var consent: Int?

        func validate() throws {
            if let userIndex, !(0...254).contains(userIndex) { throw ValidationError("--user-index must be 0 to 254") }
            if let consent, !(0...9999).contains(consent) { throw ValidationError("--consent must be 0 to 9999") }
            if userIndex != nil, consent == nil {
                throw ValidationError("--user-index claims a user on the device: give its --consent code too")
            }
        }

        func run() async throws {
            let desk = try openHub(homeOptions.home, readOnly: false, transport: transportOptions.choice).desk()
            let enrolled: Enrolled
            do {
                enrolled = try await desk.enroll(
                    person, on: mac, userIndex: userIndex.map(UInt8.init), consentCode: consent.map(UInt16.init))
            } catch {
                throw CommandError(error.message)
            }
            print(enrolled)
        }
    }

    struct Forget: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "forget",
            abstract: "Delete a person's user data on a device and end their enrolment; their readings stay theirs.",
            discussion: "Example:\n  vitalbridge people forget Bob --mac 004D3208D316")
        @OptionGroup var homeOptions: HomeOptions
        @OptionGroup var transportOptions: TransportOptions
        @Argument(help: "The person.") var person: String
        @Option(help: "The device (12 hex digits).", transform: MACArgument.parse("--mac")) var mac: MACAddress

        func run() async throws {
            let desk = try openHub(homeOptions.home, readOnly: false, transport: transportOptions.choice).desk()
            do {
                print(try await desk.forget(person, on: mac))
            } catch {
                throw CommandError(error.message)
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
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
