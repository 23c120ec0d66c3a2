import ArgumentParser
import Foundation
import SimulatedBlueZ
import VitalCore
import VitalHome
import VitalSimulation

/// `vitalbridge simulate`: serves a simulated fleet on a D-Bus bus as BlueZ serves real devices.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Serve the simulated devices as a BlueZ-compatible org.bluez service on a D-Bus bus.",
        discussion: """
            Runs until stopped (SIGINT or SIGTERM). Any BlueZ client on that bus (vitalbridge open --transport bluez,
            bleak, bluetoothctl's D-Bus API) then finds an adapter /org/bluez/hci0 and the fleet's devices. It prints
            one line when it serves. The devices' memories live in this process: they are not saved to a home.

            Example:
              dbus-daemon --session --print-address --fork   # a private bus
              vitalbridge simulate --bus unix:path=/tmp/bus --fleet fleet.json
            """)

    @Option(
        help: ArgumentHelp("The D-Bus address of the bus to serve on, e.g. unix:path=/tmp/bus.", valueName: "address"))
    var bus: String

    @Option(help: ArgumentHelp("A fleet file (JSON); the built-in fleet when absent.", valueName: "file"))
    var fleet: String?

    @Option(
        help: ArgumentHelp(
            "Real seconds per second of the devices' time for what they send by themselves (heartbeats): 1 is real time, 0.01 a hundred times faster.",
            valueName: "factor"))
    var pace: Double = 1

    func validate() throws {
        guard pace.isFinite, pace >= 0, pace <= 100 else { throw ValidationError("--pace must be between 0 and 100") }
        guard !bus.isEmpty, !bus.utf8.contains(0) else { throw ValidationError("--bus must be a D-Bus address") }
    }

    func run() async throws {
        let devices: Fleet
        if let path = fleet {
            do {
                devices = try Fleet(json: try Home.readFile(path, limit: Home.Limit.fleet))
            } catch {
                throw CommandError("cannot use the fleet: \(path): \(error)")
            }
        } else {
            devices = Fleet.default
        }
        let server: SimulatedBlueZ
        do {
            let world = try SimulatedWorld(fleet: devices, start: Timestamp(Date()))
            server = try await SimulatedBlueZ(world: world, bus: bus, pace: pace)
        } catch {
            throw CommandError("cannot serve on \(bus): \(error)")
        }
        // written at once, unbuffered: a script waits for this line before it starts a client
        FileHandle.standardOutput.write(
            Data("serving \(devices.devices.count) simulated devices as org.bluez on \(bus)\n".utf8))
        do {
            try await server.run()
        } catch {
            throw CommandError("the bus failed: \(error)")
        }
    }
}
