#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value that threads share, read and changed only under a `pthread_mutex_t`.
///
/// VitalBridge uses this in place of the standard library's `Synchronization.Mutex`. On Linux, `Mutex` waits on a
/// futex inside the Swift runtime, which ThreadSanitizer neither instruments nor intercepts, so TSan sees no order
/// between two threads that took the same `Mutex` and reports their accesses as races (`bash Tests/tsan.sh` found
/// seven such reports). TSan intercepts `pthread_mutex_lock`, so with this lock its reports are real ones.
///
/// ```swift
/// let seen = Locked<Set<String>>([])
/// let isNew = seen.withLock { $0.insert("/org/bluez/hci0/dev_00_4D_32_08_D2_F4").inserted }
/// ```
public final class Locked<Value> {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Read and written only between `pthread_mutex_lock` and `pthread_mutex_unlock` of `mutex`.
    private var value: Value

    /// A lock guarding `value`.
    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock, and returns what it returns.
    ///
    /// `body` must not call `withLock` on the same lock: the mutex is not recursive.
    public func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

extension Locked: @unchecked Sendable where Value: Sendable {}
