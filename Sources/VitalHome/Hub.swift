import BlueZ
import DBus
import Foundation
import LayeredProtocol
import Logging
import VitalBridge
import VitalCore
import VitalDevices
import VitalSimulation
import VitalStore

/// How the hub reaches devices: the simulated world, or real Bluetooth through BlueZ.
public enum Transport: String, CaseIterable, Sendable {
    /// The home's simulated world.
    case simulated
    /// Real devices through BlueZ.
    case bluez
}

/// What the command line asked for, resolved against the home when it asked nothing.
public struct TransportChoice: Equatable, Sendable {
    /// The transport asked for, if any.
    public var transport: Transport?
    /// The adapter asked for, if any.
    public var adapter: String?

    /// A choice of `transport` and `adapter`; neither: the home decides.
    public init(transport: Transport? = nil, adapter: String? = nil) {
        self.transport = transport
        self.adapter = adapter
    }

    /// The transport for `home`: the one asked for; else BlueZ with the home's adapter, if it names one; else the
    /// simulator.
    public func resolved(in home: Home) throws(HomeError) -> (Transport, adapter: String?) {
        if transport == .simulated { return (.simulated, nil) }
        var adapter = self.adapter
        if adapter == nil { adapter = try home.adapter() }
        if transport == .bluez || adapter != nil { return (.bluez, adapter) }
        return (.simulated, nil)
    }
}

/// The simulated user of the fleet file: cancels where it says, and answers only the questions it scripts.
public struct SimulatedUser: HubUser {
    /// What the fleet file scripts the user to do.
    public let script: UserScript

    /// The user `script` describes.
    public init(script: UserScript) { self.script = script }

    public func cancels(_ stage: Stage) async -> Bool {
        // a measurement cancel is the device's: the user stops it on the device
        stage != .measure && script.cancelAt == stage
    }

    public func confirmConnect(to device: MACAddress) async -> PromptAnswer<Void> {
        switch script.declineConnect {
        case nil: .unavailable
        case true?: .declined
        case false?: .answered(())
        }
    }

    public func scanQRCode() async -> PromptAnswer<String> { script.qrCode.map { .answered($0) } ?? .unavailable }

    public func chooseDevice(among candidates: [DeviceCandidate]) async -> PromptAnswer<MACAddress> {
        script.chooseDevice.map { .answered($0) } ?? .unavailable
    }
}

/// How a home reaches its devices: one value, chosen once per home and request (``TransportChoice``).
public enum HubTransport: Sendable {
    /// The home's simulated world, scripted by its fleet file, each device's state saved in the home.
    case simulated(fleet: Fleet, world: SimulatedWorld)
    /// Real devices through BlueZ: nothing simulated is built, read or written.
    case bluez(BlueZCentral)

    /// The transport as the engine reaches devices through it.
    public var central: any BluetoothCentral {
        switch self {
        case .simulated(_, let world): world
        case .bluez(let central): central
        }
    }

    /// The simulated world, on a simulated home only.
    public var world: SimulatedWorld? {
        guard case .simulated(_, let world) = self else { return nil }
        return world
    }

    /// The time what is stored is dated by: the simulated world's, or the real one.
    public var now: @Sendable () -> Timestamp {
        switch self {
        case .simulated(_, let world):
            let clock = world.clock
            return { clock.wallTime }
        case .bluez: return { Timestamp(Date()) }
        }
    }
}

/// Everything a hub command needs, made from the home folder: the composition root.
public struct Hub: Sendable {
    /// The home folder.
    public let home: Home
    /// The home's store.
    public let store: VitalStore
    /// The callers the hub answers.
    public let whitelist: Whitelist
    /// How the hub reaches devices.
    public let transport: HubTransport
    /// Where the engine and the transport log.
    public let logger: Logger
    /// Told, one line each, what the hub's own files and dialogs could not do (the CLI writes it on stderr).
    public let report: @Sendable (String) -> Void

    /// The hub of `home` answering the callers of `whitelist`, reaching devices through the transport `choice`
    /// resolves to for the home; its store is opened read-only when `readOnly`. A simulated device's saved state is
    /// loaded when a request leases the device (``FileLeases``), or by ``restoreWorld()``.
    public init(
        home: Home, whitelist: Whitelist, readOnly: Bool = false, transport choice: TransportChoice = TransportChoice(),
        scanDuration: Duration = Hub.scanDuration, logger: Logger, report: @escaping @Sendable (String) -> Void
    ) throws(HomeError) {
        self.home = home
        self.whitelist = whitelist
        self.logger = logger
        self.report = report
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
                BlueZCentral(bus: .system, adapter: adapter, scanDuration: scanDuration, logger: logger))
        }
    }

    /// The simulated world, or an error saying that the home reaches real devices, for the commands that show or
    /// serve the simulator.
    public func simulatedWorld() throws(HomeError) -> SimulatedWorld {
        guard let world = transport.world else {
            throw HomeError("the home reaches real devices through BlueZ: it has no simulated fleet")
        }
        return world
    }

    /// Loads every device's saved state, for commands that show the whole world.
    public func restoreWorld() async throws {
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
    public var leases: FileLeases {
        FileLeases(home: home, world: transport.world, timeout: Self.deviceWait, report: report)
    }

    /// The engine's desk for one device of the home outside any request (information, reset, live samples, a
    /// smartband's commands, removal), through the home's transport and under its leases, on the real clock.
    public var desk: DeviceDesk {
        DeviceDesk(
            store: store, central: transport.central, leases: leases, clock: ContinuousClock(), now: transport.now,
            logger: logger)
    }

    /// How long an add scans for devices on a BlueZ home: `$VITALBRIDGE_SCAN_SECONDS` (0.1 to 60), else 5 s, time for
    /// a device that advertises once a second or less often to be seen several times.
    public static var scanDuration: Duration { scanDuration(setting: environment("VITALBRIDGE_SCAN_SECONDS")) }

    /// The scan window `setting` names (seconds, 0.1 to 60); 5 s when it is absent or names none.
    public static func scanDuration(setting: String?) -> Duration {
        guard let seconds = setting.flatMap(Double.init), seconds >= 0.1, seconds <= 60 else { return .seconds(5) }
        return .milliseconds(Int64(seconds * 1000))
    }

    /// How long a request waits for a device another process uses: `$VITALBRIDGE_DEVICE_WAIT_SECONDS`, else 10 s.
    public static var deviceWait: Duration {
        let text = environment("VITALBRIDGE_DEVICE_WAIT_SECONDS")
        guard let seconds = text.flatMap(Double.init), seconds >= 0, seconds <= 3600 else { return .seconds(10) }
        return .milliseconds(Int64(seconds * 1000))
    }

    /// Who answers the hub's questions when no person is at a terminal: a dialog on the desktop when a graphical
    /// session and zenity or kdialog are there, else the fleet's scripted user on a simulated home, else nobody.
    public var unattendedUser: any HubUser {
        if let desktop = DesktopUser.available(report: report) { return desktop }
        if case .simulated(let fleet, _) = transport { return SimulatedUser(script: fleet.user) }
        return NobodyToAsk()
    }

    /// The engine of this hub, answering through `handOff` and telling a sync's `progress`; `user` answers its
    /// questions (``unattendedUser`` when absent).
    public func bridge(
        handOff: any CallbackHandOff, progress: @escaping @Sendable (SyncProgress) -> Void = { _ in },
        user: (any HubUser)? = nil
    ) -> Bridge {
        Bridge(
            store: store, central: transport.central, user: user ?? unattendedUser, leases: leases,
            whitelist: whitelist, handOff: handOff, reservation: ProcessIdentity.reservationOwner(),
            providers: ProviderSettings(board: SVSFiles.board, ddsSources: DDSSources.Registry(home: home)),
            logger: logger, now: transport.now, progress: progress)
    }
}

extension Hub {
    /// Handles one request URL (layered, ShareVitalSigns or Welltory DDS) in the home at `directory`, answering
    /// through `handOff`: what `vitalbridge open` does.
    ///
    /// The whitelist decides where an answer may go: when the home's folder or whitelist cannot be used, nothing
    /// is answered (`HubOutcome.refused`); when its store or fleet cannot, a layered request the whitelist routes is
    /// answered `ERROR_STORE` (`Bridge.answerUnusableHome`).
    /// With `interrupt`, a person at the terminal answers the prompts and Ctrl-C cancels the stage that runs.
    ///
    /// The store is left open for the rest of the process. Every reading and delivery is already committed to
    /// SQLite's write-ahead log with a full sync, and the next process to open the store reads the log back, as it
    /// would after a crash; closing would only spend time on cleanup (GRDB's observers, a dispatch queue) that
    /// matters to a long-lived process.
    public static func open(
        _ url: String, platform: Platform, caller: String?, scannedQR: String?, home directory: String,
        transport: TransportChoice, handOff: any CallbackHandOff, interrupt: Interrupt?,
        progress: @escaping @Sendable (SyncProgress) -> Void, logger: Logger,
        report: @escaping @Sendable (String) -> Void
    ) async -> HubOutcome {
        let folder: Home
        let whitelist: Whitelist
        do {
            folder = try Home(directory, create: true)
            whitelist = try folder.whitelist()
        } catch {
            return .refused("cannot use the home folder: \(error)")
        }
        do {
            let hub = try Hub(home: folder, whitelist: whitelist, transport: transport, logger: logger, report: report)
            _ = Unmanaged.passRetained(hub.store)
            let bridge = hub.bridge(
                handOff: handOff, progress: progress,
                user: interrupt.map { TerminalUser(interrupt: $0, report: report) })
            return await Interrupt.run(cancelledBy: interrupt) {
                await bridge.handle(url: url, platform: platform, caller: caller, scannedQR: scannedQR)
            }
        } catch {
            guard ProviderProtocol(of: url) == nil else { return .refused("cannot use the home folder: \(error)") }
            return await Bridge.answerUnusableHome(
                url: url, platform: platform, caller: caller, whitelist: whitelist, error: error, handOff: handOff,
                logger: logger)
        }
    }
}
