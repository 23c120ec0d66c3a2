import Foundation

/// A task executor with a thread of its own: work that must answer in time (a simulated BlueZ serving method calls
/// in the test process) runs there, and not on the concurrency runtime's pool, which has one thread a core and which
/// the tests that wait for a child process block while they wait.
public final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    /// One thread, started once, for the whole test process.
    public static let shared = ThreadExecutor()

    private init() {
        let thread = Thread { [unowned self] in self.runJobs() }
        thread.name = "ThreadExecutor"
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}

/// Runs `body`, which blocks (waits for a child process), on a thread of its own, so that the waiting does not hold
/// one of the runtime pool's threads that in-process servers need meanwhile.
public func blockingOffPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Starts `body` on ``ThreadExecutor/shared``; the task's value is how `body` ended and when, read on that thread. A
/// test that bounds how long something takes then measures that, not how long the tests that block the runtime pool's
/// two threads (waiting for a child process) keep its own task from resuming (30 s for a 3 s deadline once, under
/// ThreadSanitizer in CI).
public func startedOnTestThread<T: Sendable>(_ body: @escaping @Sendable () async throws -> T)
    -> Task<(result: Result<T, any Error>, ended: ContinuousClock.Instant), Never>
{
    Task(executorPreference: ThreadExecutor.shared) {
        let result: Result<T, any Error>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        return (result, ContinuousClock.now)
    }
}

extension Result {
    /// The error, when it failed.
    public var error: Failure? {
        guard case .failure(let error) = self else { return nil }
        return error
    }
}
