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

    /// The SIG health services and their profiles' names.
    static let profiles: [(UInt16, String)] = [
        (0x1810, "Blood Pressure"), (0x1808, "Glucose"), (0x181D, "Weight Scale"), (0x181B, "Body Composition"),
        (0x1809, "Health Thermometer"), (0x1822, "Pulse Oximeter"), (0x180D, "Heart Rate"),
    ]

    func run() async throws {
        let transport = try openHub(
            homeOptions.home, transport: transportOptions.choice, scanDuration: .seconds(seconds)
        ).transport
        let central = transport.central
        if case .bluez(let bluez) = transport {
            // a scan that cannot start only logs why and hears nothing: say why BlueZ cannot be used instead
            do {
                _ = try await bluez.adapters()
            } catch {
                throw CommandError("cannot scan through BlueZ: \(error.message)")
            }
        }
        var rows: [[String]] = []
        var seen = Set<MACAddress>()
        for await advertisement in central.scan(for: Self.profiles.map(\.0))
        where seen.insert(advertisement.mac).inserted {
            let profiles = Self.profiles.filter { advertisement.services.contains($0.0) }
            let model = DeviceModel.allCases.first { central.reaches($0) && advertisement.isDevice(of: $0) }
            rows.append([
                advertisement.mac.description, advertisement.localName,
                profiles.map { "\($0.1) (0x\(String($0.0, radix: 16, uppercase: true)))" }.joined(separator: ", "),
                advertisement.isPaired ? "yes" : "no", String(advertisement.rssi),
                model.map { String($0.rawValue) } ?? "-",
            ])
        }
        guard !rows.isEmpty else {
            print("no health device in range")
            return
        }
        print(table(["MAC", "name", "profile", "paired", "RSSI", "devicemodel"], rows))
    }
}
