#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A task executor that runs jobs on the one thread that calls `run(_:)`.
///
/// A `vitalbridge` process handles one command and ends. Run through this executor, its task, the tasks it starts
/// and the default actors it calls (the engine, the simulated world) all run on the main thread, so the process never
/// starts the concurrency runtime's thread pool: for `vitalbridge open` that pool's threads and the hops between them
/// cost more than a measurement. A job enqueued from another thread (a `Task.sleep` ending) wakes the main thread.
final class CallingThreadExecutor: TaskExecutor, @unchecked Sendable {
    /// Guards `jobs`; `ready` is signalled when a job arrives.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let ready = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var jobs: [UnownedJob] = []

    private init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(ready, nil)
    }

    /// The process's executor: tasks that must run on the main thread too are started on it.
    static let shared = CallingThreadExecutor()

    /// Runs `operation` on the calling thread; it must end the process (every command ends with `exit`).
    static func run(_ operation: @escaping @Sendable () async -> Never) -> Never {
        #if VITALBRIDGE_THREAD_POOL
            // The trial build of `Benchmarks/speed-tricks.sh` (`-Xswiftc -DVITALBRIDGE_THREAD_POOL`): the command
            // runs on the concurrency runtime's thread pool, as without this executor, to measure what it saves.
            Task { await operation() }
        #else
            Task(executorPreference: shared) { await operation() }
        #endif
        shared.runJobs()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pthread_mutex_lock(mutex)
        jobs.append(job)
        pthread_cond_signal(ready)
        pthread_mutex_unlock(mutex)
    }

    /// Runs jobs as they arrive, oldest first, waiting when there are none.
    private func runJobs() -> Never {
        var batch: [UnownedJob] = []
        while true {
            pthread_mutex_lock(mutex)
            while jobs.isEmpty { pthread_cond_wait(ready, mutex) }
            swap(&batch, &jobs)  // the two buffers trade places: no copy, no allocation once both have grown
            pthread_mutex_unlock(mutex)
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
