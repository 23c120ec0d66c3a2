import ArgumentParser
import Foundation
import VitalBridge
import VitalCore
import VitalDevices
import VitalHome

/// `vitalbridge device …`: one device of the hub, outside any caller's request, through the engine's
/// ``DeviceDesk``: what it says about itself, its factory reset, its live samples.
struct DeviceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Show a device's information, reset it, or stream its live samples.",
        discussion: """
            The device must be a device of the hub (add it first with a layered request, cmd 1). What it still \
            holds is stored before anything may erase it.

            Examples:
              vitalbridge device info --mac 004D3208D2F4
              vitalbridge device reset --mac 004D3208D2F4 --yes
              vitalbridge device live --mac 004D3208D2F4 --seconds 30
            """,
        subcommands: [Info.self, Reset.self, Live.self])
}

/// `--home`, `--transport`/`--adapter` and `--mac` of every device command.
struct DeviceOptions: ParsableArguments {
    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var transportOptions: TransportOptions

    @Option(
        name: .customLong("mac"), help: "The device's MAC address (12 hexadecimal digits).",
        transform: MACArgument.parse("--mac"))
    var address: MACAddress

    /// The engine's desk for the home, its store opened read-only when `readOnly`.
    func desk(readOnly: Bool) throws -> DeviceDesk {
        try openHub(homeOptions.home, readOnly: readOnly, transport: transportOptions.choice).desk()
    }

    /// Runs `body`, turning the desk's refusal into one line on stderr and exit 1: its message, which names the
    /// device (a broken setting's rule: `refused: ` and the field); `advice` says how to add a device the hub does
    /// not know.
    func refusing<T>(
        advice: (() async -> String)? = nil, _ body: () async throws(DeviceDeskError) -> T
    ) async throws -> T {
        do {
            return try await body()
        } catch {
            if error.code == .unknownDevice, let advice {
                throw CommandError("\(address) is not a device of this hub: \(await advice())")
            }
            throw CommandError(error.code == .setting ? "refused: \(error.message)" : error.message)
        }
    }
}

extension DeviceCommand {
    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "info",
            abstract: "Show the device's model, serial number, firmware and battery (read-only).",
            discussion: "Example:\n  vitalbridge device info --mac 004D3208D2F4")
        @OptionGroup var device: DeviceOptions

        func run() async throws {
            let desk = try device.desk(readOnly: true)
            let report = try await device.refusing { () throws(DeviceDeskError) in
                try await desk.info(device.address)
            }
            print(report.info.line(model: report.model))
        }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset",
            abstract: "Store what the device holds, then restore its factory settings (PO3, smartbands).",
            discussion: "Example:\n  vitalbridge device reset --mac 004D3208D2F4 --yes")
        @OptionGroup var device: DeviceOptions
        @Flag(help: "Confirm: the device's settings and memory are erased.") var yes = false

        func validate() throws {
            if !yes { throw ValidationError("a reset erases the device: confirm with --yes") }
        }

        func run() async throws {
            let desk = try device.desk(readOnly: false)
            let stored = try await device.refusing { () throws(DeviceDeskError) in
                try await desk.reset(device.address)
            }
            print("stored \(stored) record(s), then reset the device")
        }
    }

    struct Live: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "live",
            abstract: "Print the device's live samples as JSON lines until it is done, --seconds pass, or Ctrl-C.",
            discussion: """
                A PO3 or pulse oximeter sends {"spo2","bpm","pi"} and {"wave"}; a blood pressure monitor \
                {"cuffPressure"} (mmHg); a heart-rate sensor {"bpm","rr"} (RR intervals in ms). The stream ends \
                with the device's measurement (its reading is stored), after --seconds, or at Ctrl-C (exit 0).

                Example:
                  vitalbridge device live --mac 004D3208D2F4 --seconds 30
                """)
        @OptionGroup var device: DeviceOptions
        @Option(help: "Stop after this many seconds, 1 to 3600 (a heart-rate sensor records this long).")
        var seconds: Int?

        func validate() throws {
            if let seconds, !(1...3600).contains(seconds) { throw ValidationError("--seconds must be 1 to 3600") }
        }

        func run() async throws {
            let stop = SignalWatcher.watch([SIGINT, SIGTERM], secondEnds: false)
            let desk = try device.desk(readOnly: false)
            let (mac, seconds) = (device.address, seconds)
            let ending: LiveEnding
            do {
                ending = try await stop.cancelling {
                    try await desk.live(mac, seconds: seconds) { sample in
                        _ = writeAll(Array((sample.json + "\n").utf8), to: 1)
                    }
                }
            } catch let error as DeviceDeskError {
                throw CommandError(error.message)
            }
            switch ending {
            case .measured: printError("the measurement ended; its reading is stored")
            case .stopped: printError("stopped")
            }
        }
    }
}
