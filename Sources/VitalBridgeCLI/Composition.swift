import BlueZ
import DBus
import Foundation
import LayeredProtocol
import Logging
import VitalBridge
import VitalCore
import VitalDevices
import VitalHome
import VitalSimulation
import VitalStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The simulated user of the fleet file: cancels where it says, and answers only the questions it scripts.
struct SimulatedUser: HubUser {
    let script: UserScript

    func cancels(_ stage: Stage) async -> Bool {
        // a measurement cancel is the device's: the user stops it on the device
        stage != .measure && script.cancelAt == stage
    }

    func confirmConnect(to device: MACAddress) async -> PromptAnswer<Void> {
        switch script.declineConnect {
        case nil: .unavailable
        case true?: .declined
        case false?: .answered(())
        }
    }

    func scanQRCode() async -> PromptAnswer<String> { script.qrCode.map { .answered($0) } ?? .unavailable }

    func chooseDevice(among candidates: [DeviceCandidate]) async -> PromptAnswer<MACAddress> {
        script.chooseDevice.map { .answered($0) } ?? .unavailable
    }
}

/// How a home reaches its devices: one value, chosen once per home and request (``TransportChoice``).
enum HubTransport {
    /// The home's simulated world, scripted by its fleet file, each device's state saved in the home.
    case simulated(fleet: Fleet, world: SimulatedWorld)
    /// Real devices through BlueZ: nothing simulated is built, read or written.
    case bluez(BlueZCentral)

    var central: any BluetoothCentral {
        switch self {
        case .simulated(_, let world): world
        case .bluez(let central): central
        }
    }

    /// The simulated world, on a simulated home only.
    var world: SimulatedWorld? {
        guard case .simulated(_, let world) = self else { return nil }
        return world
    }

    /// The time what is stored is dated by: the simulated world's, or the real one.
    var now: @Sendable () -> Timestamp {
        switch self {
        case .simulated(_, let world):
            let clock = world.clock
            return { clock.wallTime }
        case .bluez: return { Timestamp(Date()) }
        }
    }
}

/// Everything a hub command needs, made from the home folder: the composition root.
struct Hub {
    let home: Home
    let store: VitalStore
    let whitelist: Whitelist
    let transport: HubTransport

    /// The hub of `home` answering the callers of `whitelist`, reaching devices through the transport `choice`
    /// resolves to for the home; its store is opened read-only when `readOnly`. A simulated device's saved state is
    /// loaded when a request leases the device (``FileLeases``), or by ``restoreWorld()``.
    init(
        home: Home, whitelist: Whitelist, readOnly: Bool = false, transport choice: TransportChoice = TransportChoice(),
        scanDuration: Duration = .seconds(5)
    ) throws(HomeError) {
        self.home = home
        self.whitelist = whitelist
        store = try home.store(readOnly: readOnly)
        switch try choice.resolved(in: home) {
        case (.simulated, _):
            let fleet = try home.fleet()
            do {
                transport = .simulated(
                    fleet: fleet, world: try SimulatedWorld(fleet: fleet, start: Timestamp(Date())))
            } catch {
                throw HomeError("\(home.fleetPath): \(error)")
            }
        case (.bluez, let adapter):
            transport = .bluez(
                BlueZCentral(bus: .system, adapter: adapter, scanDuration: scanDuration, logger: hubLogger()))
        }
    }

    /// The simulated world, or an error saying that the home reaches real devices, for the commands that show or
    /// serve the simulator.
    func simulatedWorld() throws(HomeError) -> SimulatedWorld {
        guard let world = transport.world else {
            throw HomeError("the home reaches real devices through BlueZ: it has no simulated fleet")
        }
        return world
    }

    /// Loads every device's saved state, for commands that show the whole world.
    func restoreWorld() async throws {
        let world = try simulatedWorld()
        for device in world.configurations {
            if let saved = try home.deviceState(device.mac) {
                do {
                    try await world.restore(saved, for: device.mac)
                } catch {
                    throw HomeError("\(home.statePath(device.mac)): \(error)")
                }
            }
        }
    }

    /// Device leases across processes; on a simulated home they load and save each device's state.
    var leases: FileLeases {
        FileLeases(home: home, world: transport.world, timeout: Self.deviceWait, report: printError)
    }

    /// How long a request waits for a device another process uses: `$VITALBRIDGE_DEVICE_WAIT_SECONDS`, else 10 s.
    static var deviceWait: Duration {
        let text = environment("VITALBRIDGE_DEVICE_WAIT_SECONDS")
        guard let seconds = text.flatMap(Double.init), seconds >= 0, seconds <= 3600 else { return .seconds(10) }
        return .milliseconds(Int64(seconds * 1000))
    }

    /// Who answers the hub's questions when no person is at a terminal: a dialog on the desktop when a graphical
    /// session and zenity or kdialog are there, else the fleet's scripted user on a simulated home, else nobody.
    var unattendedUser: any HubUser {
        if let desktop = DesktopUser.available() { return desktop }
        if case .simulated(let fleet, _) = transport { return SimulatedUser(script: fleet.user) }
        return NobodyToAsk()
    }

    /// The engine of this hub, answering through `handOff`; `user` answers its questions (``unattendedUser`` when
    /// absent).
    func bridge(handOff: any CallbackHandOff, showProgress: Bool = false, user: (any HubUser)? = nil) -> Bridge {
        var progress: @Sendable (SyncProgress) -> Void = { _ in }
        if showProgress, isatty(2) == 1 {
            progress = { update in drawProgress(update) }
        }
        return Bridge(
            store: store, central: transport.central, user: user ?? unattendedUser, leases: leases,
            whitelist: whitelist, handOff: handOff, reservation: ProcessIdentity.reservationOwner(),
            providers: ProviderSettings(board: SVSFiles.board, ddsSources: DDSSources.Registry(home: home)),
            logger: hubLogger(), now: transport.now, progress: progress)
    }
}

/// The engine's logger: one line per event on standard error, at `$VITALBRIDGE_LOG_LEVEL` (`trace` … `critical`),
/// else `notice`, which shows why a request failed and nothing of a successful one.
func hubLogger() -> Logger {
    var logger = Logger(label: "vitalbridge") { label in StreamLogHandler.standardError(label: label) }
    logger.logLevel = environment("VITALBRIDGE_LOG_LEVEL").flatMap(Logger.Level.init(rawValue:)) ?? .notice
    return logger
}

/// A progress bar on stderr: `sync [##########          ] 50% (512/1024)`.
func drawProgress(_ progress: SyncProgress) {
    let width = 30
    let filled = Int(progress.fraction * Double(width))
    let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
    let total = progress.expected.map { "/\($0)" } ?? ""
    let percent = progress.expected == nil ? "" : " \(Int(progress.fraction * 100))%"
    let line = "\rsync [\(bar)]\(percent) (\(progress.stored)\(total))"
    FileHandle.standardError.write(Data(line.utf8))
    if let expected = progress.expected, progress.stored >= expected {
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
