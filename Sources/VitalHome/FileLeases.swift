import Foundation
import VitalBridge
import VitalCore
import VitalDevices
import VitalSimulation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Device leases across processes: an exclusive `flock` on `locks/<MAC>.lock` in the home folder, waited for up to
/// `timeout`. While holding it, a simulated device's saved state is loaded into the world, and saved back
/// (atomically) when done, so two processes never interleave on one device and never lose each other's changes. A
/// real device (`world` is `nil`) keeps its own memory: only the lock is taken. A device the hub forgets
/// (``forgetting(_:_:)``) has its saved state removed instead, under the same lock.
///
/// A saved state that cannot be read or written is the hub's own storage failing: `report` gets one line that names
/// the file (the CLI writes it on stderr), and the request fails with `ERROR_STORE`.
public struct FileLeases: DeviceLeases {
    /// The home whose `locks` and `world` folders the leases use.
    public let home: Home
    /// The simulated world whose devices' state the lease loads and saves; `nil` for a real transport.
    public let world: SimulatedWorld?
    /// How long a request waits for a device another process holds.
    public var timeout: Duration
    /// Told, in one line, why a lock or a saved state could not be used.
    public let report: @Sendable (String) -> Void

    /// Leases in `home`, loading and saving the devices of `world` (when simulated), waiting up to `timeout`.
    public init(
        home: Home, world: SimulatedWorld?, timeout: Duration = .seconds(10),
        report: @escaping @Sendable (String) -> Void
    ) {
        self.home = home
        self.world = world
        self.timeout = timeout
        self.report = report
    }

    public func withLease<T: Sendable>(_ mac: MACAddress, _ body: @Sendable () async throws -> T) async throws -> T {
        try await locked(mac) {
            guard let world else { return try await body() }
            do {
                if let saved = try home.deviceState(mac) {
                    try await world.restore(saved, for: mac)
                }
            } catch {
                report("cannot use the saved state of \(mac): \(error)")
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
                    report("cannot save the state of \(mac): \(error)")
                    throw error
                }
            }
            return try result.get()
        }
    }

    /// Runs `body` while holding device `mac`, then, on a simulated home and still holding it, removes its saved
    /// state (``Home/statePath(_:)``): the device starts again as the fleet file scripts it. A real device
    /// (`world` is `nil`) keeps its own memory, and nothing simulated is touched. The saved state is not loaded.
    ///
    /// The lock file stays: another process may be waiting on it, and with `flock` a waiter holding the removed
    /// file would take its lease while a third process locks a new file of the same name.
    public func forgetting<T: Sendable>(_ mac: MACAddress, _ body: @Sendable () async throws -> T) async throws -> T {
        try await locked(mac) {
            let result = try await body()
            guard world != nil else { return result }
            let path = home.statePath(mac)
            if unlink(path) != 0, errno != ENOENT {
                let error = HomeError("cannot remove the saved state \(path): \(String(cString: strerror(errno)))")
                report("\(error)")
                throw error
            }
            return result
        }
    }

    /// Runs `body` holding the lock of device `mac`: an exclusive `flock` on its lock file, waited for up to
    /// ``timeout``.
    private func locked<T: Sendable>(_ mac: MACAddress, _ body: () async throws -> T) async throws -> T {
        let path = home.locksDirectory + "/\(mac).lock"
        let descriptor = open(path, O_CREAT | O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let why = errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno))
            let error = HomeError("cannot open the lock \(path): \(why)")
            report("\(error)")
            throw error
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            let error = HomeError("\(path) is not a regular file; the hub uses only regular files as locks")
            report("\(error)")
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
        return try await body()
    }
}
