import BlueZ
import Foundation
import LayeredProtocol
import Logging
import VitalBridge
import VitalCore
import VitalDevices
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

/// Device leases across processes: an exclusive `flock` on `locks/<MAC>.lock` in the home folder, waited for up to
/// `timeout`. While holding it, a simulated device's saved state is loaded into the world, and saved back
/// (atomically) when done, so two processes never interleave on one device and never lose each other's changes. A
/// real device (`world` is `nil`) keeps its own memory: only the lock is taken.
///
/// A saved state that cannot be read or written is the hub's own storage failing: one line on stderr names the
/// file, and the request fails with `ERROR_STORE`.
struct FileLeases: DeviceLeases {
    let home: Home
    /// The simulated world whose devices' state the lease loads and saves; `nil` for a real transport.
    let world: SimulatedWorld?
    var timeout: Duration = .seconds(10)

    func withLease<T: Sendable>(_ mac: MACAddress, _ body: @Sendable () async throws -> T) async throws -> T {
        let path = home.locksDirectory + "/\(mac).lock"
        let descriptor = open(path, O_CREAT | O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let why = errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno))
            let error = HomeError("cannot open the lock \(path): \(why)")
            printError("\(error)")
            throw error
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            let error = HomeError("\(path) is not a regular file; the hub uses only regular files as locks")
            printError("\(error)")
            throw error
        }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard clock.now < deadline else {
                throw DeviceError(.busy, message: "\(mac) is in use by another request")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        defer { flock(descriptor, LOCK_UN) }
        guard let world else { return try await body() }
        do {
            if let saved = try home.deviceState(mac) {
                try await world.restore(saved, for: mac)
            }
        } catch {
            printError("cannot use the saved state of \(mac): \(error)")
            throw error
        }
        let result: Result<T, any Error>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        if let state = await world.deviceState(of: mac) {
            do {
                try home.save(state, of: mac)
            } catch {
                printError("cannot save the state of \(mac): \(error)")
                throw error
            }
        }
        return try result.get()
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
    var now: @Sendable () -> LayeredTimestamp {
        switch self {
        case .simulated(_, let world):
            let clock = world.clock
            return { clock.wallTime }
        case .bluez: return { LayeredTimestamp(Date()) }
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
                    fleet: fleet, world: try SimulatedWorld(fleet: fleet, start: LayeredTimestamp(Date())))
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
    var leases: FileLeases { FileLeases(home: home, world: transport.world, timeout: Self.deviceWait) }

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

/// Hands a callback over by writing it, with a newline, to standard output in full (`write(2)` straight to the
/// descriptor, so nothing stays in a buffer); a closed or full output is an error, and the readings stay pending.
struct StandardOutputHandOff: CallbackHandOff {
    func handOver(_ url: String) async throws {
        guard writeAll(Array((url + "\n").utf8), to: 1) else {
            throw HomeError("cannot write to standard output: \(String(cString: strerror(errno)))")
        }
    }
}

/// A hand-off that only accepts: the demo shows each callback itself.
struct ShownHandOff: CallbackHandOff {
    func handOver(_ url: String) async throws {}
}

/// This process as the owner of reservations: its id and start time (`/proc/<pid>/stat`, field 22), so that a
/// reservation left by a process that has ended is returned to pending at once, even if its id was reused.
enum ProcessIdentity {
    /// How long a reservation lasts if its owner's end cannot be seen: 60 s, far longer than a hand-off takes.
    static let lifetime = 60.0

    static func reservationOwner() -> ReservationOwner {
        let pid = getpid()
        return ReservationOwner(
            owner: "\(pid):\(startTime(of: pid) ?? "?")", lifetime: lifetime,
            isAbandoned: { owner in isGone(owner) })
    }

    /// Whether the process an owner (`<pid>:<start time>#<request>`) names has ended.
    static func isGone(_ owner: String) -> Bool {
        let process = owner.prefix { $0 != "#" }
        let parts = process.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let pid = Int32(parts[0]), pid > 0 else { return false }
        if kill(pid, 0) != 0 && errno == ESRCH { return true }
        guard parts[1] != "?", let start = startTime(of: pid) else { return false }
        return start != parts[1]
    }

    /// The start time of process `pid` in clock ticks since boot, from `/proc/<pid>/stat`; `nil` without `/proc`.
    static func startTime(of pid: Int32) -> String? {
        let descriptor = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[..<count], as: UTF8.self)
        // the command name (field 2) is in parentheses and may hold spaces: fields 3… follow the last ')'
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? String(fields[19]) : nil
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
