import BlueZ
import Foundation
import LayeredProtocol
import Logging
import VitalBridge
import VitalDevices
import VitalSimulation
import VitalStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The simulated user of the fleet file, with the QR text of `--scan-qr` taking precedence.
struct SimulatedUser: HubUser {
    let script: UserScript
    let scannedQR: String?

    func cancels(_ stage: Stage) async -> Bool {
        // a measurement cancel is the device's: the user stops it on the device
        stage != .measure && script.cancelAt == stage
    }

    func acceptsConnect(to device: MACAddress) async -> Bool { !script.declineConnect }

    func scanQRCode() async -> String? { scannedQR ?? script.qrCode }
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

/// Everything a hub command needs, made from the home folder: the composition root.
struct Hub {
    let home: Home
    let store: VitalStore
    let fleet: Fleet
    let world: SimulatedWorld
    let whitelist: Whitelist

    /// The hub of `home` answering the callers of `whitelist`; its store is opened read-only when `readOnly`. A
    /// device's saved state is loaded when a request leases the device (``FileLeases``), or by ``restoreWorld()``.
    init(home: Home, whitelist: Whitelist, readOnly: Bool = false) throws(HomeError) {
        self.home = home
        self.whitelist = whitelist
        store = try home.store(readOnly: readOnly)
        fleet = try home.fleet()
        do {
            world = try SimulatedWorld(fleet: fleet, start: LayeredTimestamp(Date()))
        } catch {
            throw HomeError("\(home.fleetPath): \(error)")
        }
    }

    /// Loads every device's saved state, for commands that show the whole world.
    func restoreWorld() async throws {
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

    /// Runs `body` on a connection to device `mac` of the world, under the device's lease (its saved state is
    /// loaded, and saved back when done); the connection is closed after, whatever happened.
    func withConnection<T: Sendable>(
        to mac: MACAddress, _ body: @escaping @Sendable (any BluetoothConnection) async throws -> T
    ) async throws -> T {
        let world = self.world
        return try await FileLeases(home: home, world: world, timeout: Self.deviceWait).withLease(mac) {
            let connection = try await world.connect(to: mac)
            do {
                let result = try await body(connection)
                await connection.disconnect()
                return result
            } catch {
                await connection.disconnect()
                throw error
            }
        }
    }

    /// Makes the fleet's `device` a device of the store if it is not one yet: the ShareVitalSigns and DDS providers
    /// measure on devices no layered request added.
    func remember(_ device: SimulatedDeviceConfiguration) throws(StoreError) {
        guard try store.device(device.mac) == nil else { return }
        try store.saveDevice(StoredDevice(mac: device.mac, model: device.entry.model, addedAt: world.clock.wallTime))
    }

    /// How long a request waits for a device another process uses: `$VITALBRIDGE_DEVICE_WAIT_SECONDS`, else 10 s.
    static var deviceWait: Duration {
        let text = environment("VITALBRIDGE_DEVICE_WAIT_SECONDS")
        guard let seconds = text.flatMap(Double.init), seconds >= 0, seconds <= 3600 else { return .seconds(10) }
        return .milliseconds(Int64(seconds * 1000))
    }

    /// The engine of this hub, reaching devices through `bluez` when given, else the simulated world; `user` answers
    /// its prompts (the fleet's scripted user when absent).
    func bridge(
        scannedQR: String?, handOff: any CallbackHandOff, showProgress: Bool = false, bluez: BlueZCentral? = nil,
        user: (any HubUser)? = nil
    ) -> Bridge {
        let world = self.world
        var progress: @Sendable (SyncProgress) -> Void = { _ in }
        if showProgress, isatty(2) == 1 {
            progress = { update in drawProgress(update) }
        }
        let clock = world.clock
        // the simulated world's time and its devices' saved state, or the real time and nothing for a real transport
        var now: @Sendable () -> LayeredTimestamp = { clock.wallTime }
        if bluez != nil { now = { LayeredTimestamp(Date()) } }
        return Bridge(
            store: store, central: bluez ?? world,
            user: user ?? SimulatedUser(script: fleet.user, scannedQR: scannedQR),
            leases: FileLeases(home: home, world: bluez == nil ? world : nil, timeout: Self.deviceWait),
            whitelist: whitelist,
            handOff: handOff, reservation: ProcessIdentity.reservationOwner(), logger: hubLogger(),
            now: now, progress: progress)
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
