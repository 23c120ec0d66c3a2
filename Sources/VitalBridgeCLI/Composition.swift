import Foundation
import LayeredProtocol
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
        stage != .measure && script.cancelAt == "\(stage)"
    }

    func acceptsConnect(to device: MACAddress) async -> Bool { !script.declineConnect }

    func scanQRCode() async -> String? { scannedQR ?? script.qrCode }
}

/// Device leases across processes: an exclusive `flock` on `locks/<MAC>.lock` in the home folder, waited for up to
/// `timeout`. While holding it, the device's saved state is loaded into the world, and saved back (atomically)
/// when done, so two processes never interleave on one device and never lose each other's changes.
///
/// A saved state that cannot be read or written is the hub's own storage failing: one line on stderr names the
/// file, and the request fails with `ERROR_STORE`.
struct FileLeases: DeviceLeases {
    let home: Home
    let world: SimulatedWorld
    var timeout: Duration = .seconds(10)

    func withLease<T: Sendable>(_ mac: MACAddress, _ body: @Sendable () async throws -> T) async throws -> T {
        let path = home.locksDirectory + "/\(mac).lock"
        let descriptor = open(path, O_CREAT | O_RDWR, 0o644)
        guard descriptor >= 0 else { throw DeviceError(.busy, message: "cannot open the lock of \(mac)") }
        defer { close(descriptor) }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard clock.now < deadline else {
                throw DeviceError(.busy, message: "\(mac) is in use by another request")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        defer { flock(descriptor, LOCK_UN) }
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

    /// The hub of `home`. A device's saved state is loaded when a request leases the device
    /// (``FileLeases``), or by ``restoreWorld()``.
    init(home: Home) throws(HomeError) {
        self.home = home
        store = try home.store()
        fleet = try home.fleet()
        whitelist = try home.whitelist()
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

    /// How long a request waits for a device another process uses: `$VITALBRIDGE_DEVICE_WAIT_SECONDS`, else 10 s.
    static var deviceWait: Duration {
        let text = environment("VITALBRIDGE_DEVICE_WAIT_SECONDS")
        guard let seconds = text.flatMap(Double.init), seconds >= 0, seconds <= 3600 else { return .seconds(10) }
        return .milliseconds(Int64(seconds * 1000))
    }

    func bridge(scannedQR: String?, showProgress: Bool = false) -> Bridge {
        let world = self.world
        var progress: @Sendable (SyncProgress) -> Void = { _ in }
        if showProgress, isatty(2) == 1 {
            progress = { update in drawProgress(update) }
        }
        let clock = world.clock
        return Bridge(
            store: store, central: world, user: SimulatedUser(script: fleet.user, scannedQR: scannedQR),
            leases: FileLeases(home: home, world: world, timeout: Self.deviceWait), whitelist: whitelist,
            now: { clock.wallTime },
            progress: progress)
    }
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
