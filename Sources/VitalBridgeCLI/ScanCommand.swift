import ArgumentParser
import BlueZ
import Foundation
import VitalCore
import VitalDevices
import VitalHome

/// `vitalbridge scan`: the health devices in range.
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "List the health devices in range, with the Bluetooth profile each advertises.",
        discussion: """
            Listens for devices that advertise a Bluetooth SIG health service (blood pressure, glucose, weight \
            scale, body composition, thermometer, pulse oximeter, heart rate) and prints one row each: MAC, \
            name, profile, whether it is paired, signal strength, and the devicemodel a request for it uses (- \
            when no model of the catalog speaks to it through this transport). Nothing is stored.

            Examples:
              vitalbridge scan
              vitalbridge scan --transport bluez --seconds 10
            """)

    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var transportOptions: TransportOptions

    @Option(help: ArgumentHelp("How long to listen with BlueZ, 1–60 s.", valueName: "seconds"))
    var seconds: Int = 5

    func validate() throws {
        guard (1...60).contains(seconds) else { throw ValidationError("--seconds must be between 1 and 60") }
    }

    func run() async throws {
        let hub = try openHub(homeOptions.home, transport: transportOptions.choice, scanDuration: .seconds(seconds))
        let heard: TextTable
        do {
            heard = try await hub.healthDeviceTable()
        } catch {
            throw CommandError("\(error)")
        }
        print(heard.rows.isEmpty ? "no health device in range" : heard.description)
    }
}
