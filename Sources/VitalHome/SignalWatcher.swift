import Foundation
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// The process's one signal watcher: the signals a command catches (SIGINT; SIGTERM too for the commands that run
/// until stopped) become one event its handler gets, on a thread of the watcher's own, never in the signal handler.
///
/// The C handler only writes the signal's number to a pipe; the watcher's thread reads it. The first signal marks
/// the watcher ``SignalWatcher/signalled`` and runs the handler (one given later runs at once). With `secondEnds`, each signal
/// then has its default action again, so a second Ctrl-C ends the process as usual; without it, later signals are
/// caught and change nothing. One watcher is started per process.
public final class SignalWatcher: Sendable {
    private struct State {
        var signalled = false
        var handler: (@Sendable () -> Void)?
    }

    private let state = Locked(State())

    private init() {}

    /// Whether a signal came.
    public var signalled: Bool { state.withLock { $0.signalled } }

    /// Starts catching `signals` (unblocking them: a program that started this one, such as a test runner, may have
    /// blocked them, and that is inherited).
    public static func watch(_ signals: [Int32], secondEnds: Bool) -> SignalWatcher {
        let watcher = SignalWatcher()
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return watcher }
        signalPipe = ends[1]
        var mask = sigset_t()
        sigemptyset(&mask)
        for number in signals {
            sigaddset(&mask, number)
            signal(number) { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalPipe, &byte, 1)
            }
        }
        pthread_sigmask(SIG_UNBLOCK, &mask, nil)
        let reader = ends[0]
        Thread.detachNewThread {
            var byte: UInt8 = 0
            var first = true
            while true {
                let count = read(reader, &byte, 1)
                if count < 0 && errno == EINTR { continue }
                guard count == 1 else { return }
                guard first else { continue }
                first = false
                if secondEnds { for number in signals { signal(number, SIG_DFL) } }
                let handler = watcher.state.withLock { state in
                    state.signalled = true
                    return state.handler
                }
                handler?()
            }
        }
        return watcher
    }

    /// `body` runs at the first signal, or now if it came already.
    public func onSignal(_ body: @escaping @Sendable () -> Void) {
        let now = state.withLock { state in
            state.handler = body
            return state.signalled
        }
        if now { body() }
    }

    /// Runs `body` as a task, cancelled at the first signal (at once if one came already), and returns what it
    /// returns or throws: a command that runs until it is stopped.
    public func cancelling<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task { try await body() }
        onSignal { task.cancel() }
        return try await task.value
    }
}

/// The pipe the signal handler writes to (set once, before the handler is installed).
nonisolated(unsafe) private var signalPipe: Int32 = -1
