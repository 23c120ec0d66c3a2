import Locking
import VitalCore

/// The simulated world's time: it moves only when the simulation says so (radio connection events, a
/// measurement's duration), never by sleeping, so a test that runs 75 seconds of radio traffic finishes at once.
///
/// As a `Clock`, `sleep(until:)` advances the time to the deadline and returns immediately.
public final class VirtualClock: Clock, Sendable {
    public struct Instant: InstantProtocol, Hashable, Sendable {
        /// Time since the clock started.
        public var offset: Duration

        public init(offset: Duration) { self.offset = offset }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    /// The wall-clock time at which the clock started.
    public let start: Timestamp
    private let elapsed = Locked(Duration.zero)

    public init(start: Timestamp) { self.start = start }

    public var now: Instant { Instant(offset: elapsed.withLock { $0 }) }
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// The virtual time elapsed since the clock started.
    public var elapsedTime: Duration { elapsed.withLock { $0 } }

    /// The wall-clock time now, to the second.
    public var wallTime: Timestamp {
        Timestamp(secondsSince1970: start.secondsSince1970 + elapsedTime.components.seconds)
    }

    /// Moves time forward by `duration`.
    public func advance(by duration: Duration) {
        elapsed.withLock { $0 += duration }
    }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        elapsed.withLock { $0 = max($0, deadline.offset) }
    }
}

/// The world's time as a clock a long-running job waits on (`vitalbridge serve`): a wait lets its length of the
/// world's time pass, at once when the fleet sets no pace, else after that length divided by the pace in real time,
/// so that devices come into range on their schedules as the job waits.
///
/// ```swift
/// let clock = world.pacedClock            // a fleet with "pace": 60
/// try await clock.sleep(for: .seconds(60)) // a second of real time; the world's clock is a minute later
/// ```
public struct PacedClock: Clock, Sendable {
    public typealias Instant = VirtualClock.Instant

    /// The world's clock.
    public let clock: VirtualClock
    /// Seconds of the world's time a second of real time lets pass; `nil`: nothing waits.
    public let pace: Double?

    public init(_ clock: VirtualClock, pace: Double?) {
        self.clock = clock
        self.pace = pace
    }

    public var now: Instant { clock.now }
    public var minimumResolution: Duration { clock.minimumResolution }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        if let pace {
            let left = deadline.offset - clock.elapsedTime
            if left > .zero { try await Task.sleep(for: left / pace) }
        }
        try await clock.sleep(until: deadline)
    }
}
