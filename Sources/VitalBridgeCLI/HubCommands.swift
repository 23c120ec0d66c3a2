import ArgumentParser
import Foundation
import VitalBridge
import VitalCore
import VitalDevices
import VitalHome
import VitalSimulation
import VitalStore

/// Opens the hub in the home folder `option` names (``Home/directory(option:)``), or exits 1 with one line saying
/// why. Only commands that write create a home (`create`); the others open its store to read (upgraded first when
/// an older release wrote it).
func openHub(
    _ option: String?, create: Bool = false, readOnly: Bool? = nil, transport: TransportChoice = TransportChoice(),
    scanDuration: Duration = Hub.scanDuration
) throws -> Hub {
    do {
        let home = try Home(Home.directory(option: option), create: create)
        return try Hub(
            home: home, whitelist: try home.whitelist(), readOnly: readOnly ?? !create, transport: transport,
            scanDuration: scanDuration, logger: hubLogger(), report: printError)
    } catch {
        throw CommandError("cannot use the home folder: \(error)")
    }
}

/// `vitalbridge init`: creates a home.
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a VitalBridge home (private folder, store, whitelist, fleet), or check an existing one.",
        discussion: """
            With --adapter, the home reaches real devices through that BlueZ adapter from then on (its commands \
            default to --transport bluez); --adapter none goes back to the simulator.

            Examples:
              vitalbridge init --home ~/vitalbridge-home
              vitalbridge init --adapter hci0
            """)

    @OptionGroup var homeOptions: HomeOptions

    @Option(help: ArgumentHelp("The BlueZ adapter the home uses (hci0), or none.", valueName: "name"))
    var adapter: String?

    func validate() throws {
        if let adapter, adapter != "none" { try TransportOptions.check(adapter: adapter) }
    }

    func run() throws {
        let hub = try openHub(homeOptions.home, create: true)
        do {
            if let adapter { try hub.home.setAdapter(adapter == "none" ? nil : adapter) }
        } catch {
            throw CommandError("cannot use the home folder: \(error)")
        }
        print("VitalBridge home at \(hub.home.directory)")
        if let adapter = try? hub.home.adapter() { print("devices are reached through BlueZ, adapter \(adapter)") }
    }
}

/// `vitalbridge devices [list]` and `vitalbridge devices remove`: the devices the hub knows.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the devices the hub has added or talked to, or remove one.",
        discussion: """
            Without a subcommand, lists them (devices list).

            Examples:
              vitalbridge devices --home /tmp/hub
              vitalbridge devices remove 004D3208D2F4
              vitalbridge devices remove 004D3208D2F4 --delete-readings --yes
            """,
        subcommands: [List.self, Remove.self], defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the devices the hub has added or talked to.",
            discussion: "Example:\n  vitalbridge devices --home /tmp/hub")

        @OptionGroup var homeOptions: HomeOptions

        func run() throws {
            guard let devices = try openHub(homeOptions.home).deviceTable() else {
                print(
                    "no devices yet: add one with vitalbridge open 'ihealth-layer://?cmd=1&addtype=0&devicemodel=100&scheme=vitalbridge-demo'"
                )
                return
            }
            print(devices)
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Forget a device: no longer served nor offered; its readings stay unless --delete-readings.",
            discussion: """
                The hub forgets the device as if it had never been added: it leaves the devices list, nothing of it \
                is pending for any caller, and a request for it is one for a new device (an add, or a sync that \
                meets it for the first time). It waits for a request that uses the device to finish, and on a \
                simulated home the device's saved memory is reset to its fleet file; a real device is not touched.

                Its readings stay in the store, in records, exports and the change feed; a caller that asks for \
                the device again, once it is added again, gets only the readings it was never handed. With \
                --delete-readings \
                each is deleted as records delete does it, with the reason 'device MAC removed': never delivered \
                nor exported again, and the change feed and every sink receive the deletion; the device sending \
                them again does not bring them back. At a terminal it asks first; elsewhere --yes confirms (without \
                it the command is refused, exit 2). A MAC the hub does not know exits 1.

                Examples:
                  vitalbridge devices remove 004D3208D2F4
                  vitalbridge devices remove 004D3208D2F4 --delete-readings
                  vitalbridge devices remove --home /tmp/hub 004D3208D2F4 --delete-readings --yes
                """)

        @OptionGroup var homeOptions: HomeOptions

        @Argument(help: "The device's MAC address (12 hexadecimal digits).", transform: MACArgument.parse("<mac>"))
        var mac: MACAddress

        @Flag(help: "Delete its readings too, through the change feed (the sinks receive the deletions).")
        var deleteReadings = false

        @Flag(help: "Confirm --delete-readings without being asked.")
        var yes = false

        func validate() throws {
            if deleteReadings, !yes, !TerminalUser.isAttached {
                throw ValidationError("--delete-readings deletes the device's readings: confirm with --yes")
            }
        }

        func run() async throws {
            let (mac, yes) = (mac, yes)
            let hub = try openHub(homeOptions.home, readOnly: false)
            do {
                let removed = try await hub.desk().remove(mac, deletingReadings: deleteReadings) { count in
                    yes || TerminalUser.confirms("Delete the \(count) readings of \(mac)? [y/N] ")
                }
                print(removed.line)
            } catch {
                throw CommandError(error.message)
            }
        }
    }
}

/// `--device` and `--since`: which stored readings a command reads.
struct ReadingFilter: ParsableArguments {
    @Option(help: "Only this device's readings (12 hex digits).")
    var device: String?

    @Option(help: "Only readings taken at or after this UTC time (yyyy-MM-dd HH:mm:ss).")
    var since: String?

    var mac: MACAddress? { device.flatMap { MACAddress($0) } }
    var from: Timestamp? { since.flatMap { Timestamp(parsing: $0) } }

    func validate() throws {
        if let device, MACAddress(device) == nil { throw ValidationError("--device must be 12 hexadecimal digits") }
        if let since, Timestamp(parsing: since) == nil {
            throw ValidationError("--since must be yyyy-MM-dd HH:mm:ss")
        }
    }
}

/// `vitalbridge fleet show`.
struct FleetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet", abstract: "Show the simulated devices.", subcommands: [Show.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract:
                "List the fleet's devices with the users each keeps of its User Data Service's slots and what it still "
                + "stores (a smartband: its unacknowledged items).",
            discussion: "Example:\n  vitalbridge fleet show --home /tmp/hub")
        @OptionGroup var homeOptions: HomeOptions

        func run() async throws {
            let hub = try openHub(homeOptions.home)
            do {
                print(try await hub.fleetTable())
            } catch {
                throw CommandError("cannot use the home folder: \(error)")
            }
        }
    }
}
