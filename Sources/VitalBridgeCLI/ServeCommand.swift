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
    @Option(help: "Stop after this many seconds of the home's clock (1 to 31536000).") var seconds: Int?
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
        let serving = Task { try await service.run(until: end) { printLine("\($0)") } }
        stop.onSignal { serving.cancel() }
        do {
            try await serving.value
        } catch {
            throw CommandError("stopped: \(error)")
        }
        withExtendedLifetime(claim) { printLine("stopped") }
    }
}

/// `vitalbridge sync`: reads what a device holds, or every device, without a caller's request.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Read and store what a device holds (--mac), or every device of the hub (--all).",
        discussion: """
            The same sync a layered request (cmd 2) runs, under the device's lease: its clock read first, its \
            records after the last one kept stored and queued for every app that asked for the device. On a \
            terminal a progress line shows the records stored of the count the device announced. A device that \
            keeps no records (a heart-rate sensor) is skipped by --all; one that fails does not stop the others, \
            and the command then exits 1.

            Examples:
              vitalbridge sync --mac 004D3208D2F4
              vitalbridge sync --all
            """)

    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var transportOptions: TransportOptions
    @Option(help: "The device's MAC address (12 hexadecimal digits).", transform: MACArgument.parse("--mac"))
    var mac: MACAddress?
    @Flag(help: "Every device of the hub.") var all = false

    func validate() throws {
        guard (mac == nil) != !all else { throw ValidationError("give either --mac or --all") }
    }

    func run() async throws {
        let hub = try openHub(homeOptions.home, readOnly: false, transport: transportOptions.choice)
        let desk = DeviceDesk(
            store: hub.store, central: hub.transport.central, leases: hub.leases, clock: ContinuousClock(),
            now: hub.transport.now, logger: hub.logger)
        let onTerminal = isatty(2) == 1
        let draw: @Sendable (SyncProgress) -> Void = { if onTerminal { drawProgress($0) } }
        if let mac {
            do {
                print("\(mac): \(try await desk.sync(mac, progress: draw))")
            } catch {
                throw CommandError(error.message)
            }
            return
        }
        let outcomes: [DeviceSyncOutcome]
        do {
            outcomes = try await desk.syncAll { _, progress in draw(progress) }
        } catch {
            throw CommandError(error.message)
        }
        for outcome in outcomes {
            switch outcome.result {
            case .success(let sync): print("\(outcome.mac): \(sync)")
            case .failure(let error): print("\(outcome.mac): \(outcome.isSkipped ? "skipped" : "failed"): \(error)")
            }
        }
        let failed = outcomes.filter { !$0.isSkipped && (try? $0.result.get()) == nil }.count
        if outcomes.isEmpty { print("no devices yet: add one first (vitalbridge devices)") }
        if failed > 0 { throw CommandError("\(failed) of \(outcomes.count) devices failed") }
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
