import ArgumentParser
import BlueZ
import Foundation
import VitalCore
import VitalDevices
import VitalHome

/// `vitalbridge pair --mac M`: pairs a real device through BlueZ, with the hub's own pairing agent.
struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair a Bluetooth device through BlueZ and mark it trusted, answering its pairing dialogue here.",
        discussion: """
            For a BlueZ home (vitalbridge init --adapter hci0). While it runs, the hub is BlueZ's pairing agent: \
            a passkey the hub must show is printed ('Enter 123456 on the device …'), a passkey the device shows or \
            a PIN is asked for on the terminal, and a passkey both show is confirmed with y/n (--yes accepts it). \
            Prompts go to standard error and answers are read from standard input; at its end nothing is \
            accepted. Prints one line: 'paired MAC (bonded, trusted)'. A failure (a wrong passkey, a declined \
            dialogue, a device BlueZ does not hear, no adapter, no bus) prints one line naming it and exits 1.

            Examples:
              vitalbridge pair --mac 00:4D:32:08:D3:10
              vitalbridge pair --mac 004D3208D310 --yes --home ~/vitalbridge-home
            """)

    @OptionGroup var homeOptions: HomeOptions

    @Option(
        name: .customLong("mac"),
        help: ArgumentHelp(
            "The device's Bluetooth address: 12 hexadecimal digits, with or without colons.", valueName: "address"),
        transform: reading(
            BlueZNames.mac(written:),
            else: "--mac must be a Bluetooth address: 12 hexadecimal digits, or 6 pairs separated by colons"))
    var device: MACAddress

    @Flag(help: "Accept a passkey the device shows for comparison without asking.")
    var yes = false

    func run() async throws {
        let hub = try openHub(homeOptions.home)
        do {
            print(try await hub.pair(device, user: TerminalPairingUser(acceptsComparison: yes)).summary)
        } catch {
            throw CommandError("\(error)")
        }
    }
}
