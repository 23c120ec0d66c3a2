import ArgumentParser
import Foundation
import VitalBridge
import VitalCore
import VitalDevices
import VitalHome

/// `vitalbridge serve`: the hub working on its own (`HubService`), until SIGINT or SIGTERM.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the hub as a service: sync each device the moment it appears, follow the bands, push to sinks.",
        discussion: """
            Scans for the home's devices and syncs each one through the engine as soon as it is heard (its clock \
            read first; its records stored and queued for every app that asked for it, as a sync by open does), \
            again no sooner than --period while it stays in range; follows the smartbands as band follow does and \
            pushes to the home's sinks as sink follow does. A device that fails is tried again after 5 s, doubling \
            to 15 minutes. One serve per home: a second one, or a band follow or sink follow beside it, refuses. \
            SIGINT or SIGTERM stops it (exit 0): the record being committed is committed. On a simulated home the \
            time is the simulator's: devices come into range on the fleet's presence schedule, and a fleet without \
            a pace runs its time at once, so serve then needs --seconds.

            Examples:
              vitalbridge serve
              vitalbridge serve --period 60 --connections 2
              vitalbridge serve --seconds 3600
            """)

    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var transportOptions: TransportOptions
    @Option(
        help: "Stop after this many seconds of the home's clock (1 to 31536000), once the scan under way ends.")
    var seconds: Int?
    @Option(help: "Minutes before a device that stays in range is synced again (1 to 1440).") var period = 15
    @Option(help: "The most devices connected at once (1 to 32).") var connections = ServiceSettings.defaultConnections

    func validate() throws {
        if let seconds, !(1...31_536_000).contains(seconds) {
            throw ValidationError("--seconds must be 1 to 31536000")
        }
        guard (1...1_440).contains(period) else { throw ValidationError("--period must be 1 to 1440 minutes") }
        guard (1...32).contains(connections) else { throw ValidationError("--connections must be 1 to 32") }
    }

    func run() async throws {
        let stop = SignalWatcher.watch([SIGINT, SIGTERM], secondEnds: false)
        let hub = try openHub(homeOptions.home, readOnly: false, transport: transportOptions.choice)
        let claim = try claimHome(homeOptions.home, for: .serve)
        let (service, end): (HubService, Timestamp?)
        do {
            let settings = ServiceSettings(period: .seconds(period * 60), connections: connections)
            (service, end) = try hub.service(settings: settings, seconds: seconds)
        } catch {
            throw CommandError("\(error)")
        }
        do {
            try await stop.cancelling { try await service.run(until: end) { printLine("\($0)") } }
        } catch {
            throw CommandError("stopped: \(error)")
        }
        withExtendedLifetime(claim) { printLine("stopped") }
    }
}

/// Claims the home `option` names for `job` (``VitalHome/Home/claim(_:)``); keep the claim until the job ends.
func claimHome(_ option: String?, for job: JobClaim.Job) throws -> JobClaim {
    do {
        return try Home(Home.directory(option: option), create: false).claim(job)
    } catch {
        throw CommandError("\(error)")
    }
}
