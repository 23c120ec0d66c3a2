import Foundation
import VitalBridge
import VitalCore
import VitalSimulation
import VitalStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The long-running jobs of a home, one owner each: `vitalbridge serve` serves its devices, follows its bands and
/// pushes to its sinks; `band follow` and `sink follow` each do one of those alone. Two `serve` on one home, or a
/// `serve` beside a `band follow` or `sink follow`, would sync, follow or push twice: the second refuses, in one
/// line saying who holds the home.
///
/// Two `flock` files in the home's `locks` folder say who runs: `serve.lock`, which a `serve` holds exclusively
/// (and writes its process id in), and `jobs.lock`, which a `serve` holds exclusively and each follower shared (so
/// that followers run beside each other, as they always could). A lock ends with its process, however it ends.
public final class JobClaim: Sendable {
    private let descriptors: [Int32]

    init(_ descriptors: [Int32]) { self.descriptors = descriptors }

    deinit { for descriptor in descriptors { close(descriptor) } }

    /// What a job is, for the line that refuses another.
    public enum Job: Sendable {
        /// `vitalbridge serve`.
        case serve
        /// A follower: `band follow` or `sink follow` (the command's words).
        case follower(String)
    }
}

extension Home {
    /// Claims the home for `job` for as long as the returned claim lives (keep it until the job ends).
    ///
    /// - Throws: ``HomeError`` in one line when another job holds what `job` needs: another `serve` (naming its
    ///   process id), a follower when `job` is a `serve`, or a `serve` when `job` is a follower; or when a lock file
    ///   cannot be used.
    public func claim(_ job: JobClaim.Job) throws(HomeError) -> JobClaim {
        switch job {
        case .serve:
            let serve = try openLock("serve.lock")
            guard Self.lockExclusively(serve) else {
                let holder = serveHolder(serve)
                close(serve)
                throw HomeError("another vitalbridge serve\(holder) runs on this home: one serve per home")
            }
            let jobs: Int32
            do {
                jobs = try openLock("jobs.lock")
            } catch {
                close(serve)
                throw error
            }
            guard flock(jobs, LOCK_EX | LOCK_NB) == 0 else {
                close(serve)
                close(jobs)
                throw HomeError(
                    "a band follow or sink follow runs on this home: stop it first, serve follows the bands and the "
                        + "sinks itself")
            }
            let pid = "\(getpid())\n"
            _ = ftruncate(serve, 0)
            _ = pid.withCString { pwrite(serve, $0, strlen($0), 0) }
            return JobClaim([serve, jobs])
        case .follower(let command):
            let jobs = try openLock("jobs.lock")
            guard flock(jobs, LOCK_SH | LOCK_NB) == 0 else {
                close(jobs)
                let holder = (try? openLock("serve.lock")).map { descriptor in
                    defer { close(descriptor) }
                    return serveHolder(descriptor)
                }
                throw HomeError(
                    "this home's vitalbridge serve\(holder ?? "") follows its bands and sinks itself: stop it to run "
                        + "\(command) (systemctl --user stop vitalbridge.service)")
            }
            return JobClaim([jobs])
        }
    }

    /// Whether a `vitalbridge serve` runs on this home, and its process id when it wrote one; reads only (a home
    /// no serve ever ran on has no lock to read). Its brief shared lock is what a starting serve waits out
    /// (for 200 ms).
    public func runningServe() -> (running: Bool, pid: Int32?) {
        let descriptor = open(locksDirectory + "/serve.lock", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return (false, nil) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return (false, nil) }
        guard flock(descriptor, LOCK_SH | LOCK_NB) != 0 else {
            flock(descriptor, LOCK_UN)
            return (false, nil)
        }
        return (true, processID(in: descriptor))
    }

    /// ` (pid N)` as the running serve wrote it in its lock, or nothing when it cannot be read.
    private func serveHolder(_ descriptor: Int32) -> String {
        processID(in: descriptor).map { " (pid \($0))" } ?? ""
    }

    /// The process id a serve wrote in its lock, if it can be read.
    private func processID(in descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0, let text = String(bytes: buffer[..<count], encoding: .utf8),
            let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { return nil }
        return pid
    }

    /// Takes `descriptor`'s lock exclusively, trying for up to 200 ms: a `doctor` looking holds it shared for a
    /// moment.
    private static func lockExclusively(_ descriptor: Int32) -> Bool {
        for _ in 0..<20 {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
            usleep(10_000)
        }
        return false
    }

    /// Claims sink `name` for one publisher, for as long as the returned claim lives: an exclusive `flock` on
    /// `locks/sink-NAME.lock`. A second `sink push`, or a `sink push` beside the `serve` or `sink follow` that
    /// publishes to the sink, would publish its changes twice.
    ///
    /// - Throws: ``HomeError`` in one line when another process publishes to the sink, or the lock cannot be used.
    public func claimSink(_ name: String) throws(HomeError) -> JobClaim {
        let descriptor = try openLock("sink-\(name).lock")
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw HomeError(
                "another vitalbridge (serve, sink follow or sink push) publishes to sink \(name) now: one at a time")
        }
        return JobClaim([descriptor])
    }

    /// Opens the lock file `name` of the home's `locks` folder, creating both (never through a symbolic link, and
    /// only a regular file).
    private func openLock(_ name: String) throws(HomeError) -> Int32 {
        if !Self.exists(locksDirectory) { try Self.makeDirectory(locksDirectory, intermediates: false) }
        let path = locksDirectory + "/" + name
        let descriptor = open(path, O_CREAT | O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let why = errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno))
            throw HomeError("cannot open the lock \(path): \(why)")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw HomeError("\(path) is not a regular file; the hub uses only regular files as locks")
        }
        return descriptor
    }
}

extension Hub {
    /// The engine's desk on this hub, for its devices outside any request (information, reset, live samples, a
    /// smartband's commands, sync, add, measure, removal, serve): its store, transport and leases, waiting on `clock`
    /// (the real one unless given), dating by the transport's time.
    public func desk(clock: any Clock<Duration> = ContinuousClock()) -> DeviceDesk {
        DeviceDesk(
            store: store, central: transport.central, leases: leases, clock: clock, now: transport.now, logger: logger)
    }

    /// The hub working on its own (`HubService`) with `settings`, for `seconds` of the home's clock
    /// (until stopped when `nil`): through the home's transport and leases, waiting on the home's clock (the
    /// simulated world's, paced by its fleet, or the real one), and pushing to every sink of the home (read once, as
    /// `sink follow` reads them) in batches of `batchSize`. Returns the service and the end to run it until.
    ///
    /// - Throws: ``HomeError`` on a simulated home whose fleet sets no pace when `seconds` is `nil` (its time would
    ///   run at once, for ever); the store's error when its sinks cannot be read.
    public func service(settings: ServiceSettings, seconds: Int?, batchSize: Int = Outbox.defaultBatchSize) throws
        -> (service: HubService, end: Timestamp?)
    {
        if let world = transport.world, world.pace == nil, seconds == nil {
            throw HomeError(
                "the fleet sets no pace, so its time runs at once: give --seconds, or a pace in \(home.fleetPath)")
        }
        let desk = desk(clock: transport.world?.pacedClock ?? ContinuousClock())
        var settings = settings
        // a world whose time runs at once must not move on while a device is being synced
        settings.settles = transport.world.map { $0.pace == nil } ?? false
        let sinks = try store.sinks.all()
        let following =
            sinks.isEmpty
            ? nil
            : SinkFollowing(
                outbox: outbox(batchSize: batchSize), sinks: sinks,
                connect: { try await connect($0, longRunning: true) })
        let end = seconds.map { Timestamp(secondsSince1970: transport.now().secondsSince1970 + Int64($0)) }
        return (HubService(desk: desk, settings: settings, sinks: following), end)
    }
}
