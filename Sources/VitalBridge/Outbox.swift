import Logging
import VitalCore
import VitalStore

/// A destination of the change feed, connected: what the outbox needs of a sink. VitalSinks' PostgreSQL sink is
/// one; the command line composes it.
///
/// A destination keeps, per hub, the feed's sequence it has committed (``position(hub:)``), and commits each batch
/// with its `through` in one transaction, so that a batch it has already is harmless to send again.
public protocol ChangeSink: Sendable {
    /// The sequence of hub `hubID`'s feed the destination has committed up to; 0 when it has nothing of the hub.
    func position(hub hubID: String) async throws -> Int64
    /// Commits `batch`: its changes and its `through`, together or not at all.
    func push(_ batch: ChangeBatch) async throws
    /// Ends the connection.
    func close() async
    /// Which owners' latest readings the next batch must bring (`ChangeBatch.latest`), for a destination that shows
    /// current values (`.none` for one that does not). A batch asked for `.every` is pushed even without changes.
    var latestScope: LatestScope { get }
    /// Whether the connection is known to have ended between pushes (a broker that closed it): a follower then
    /// connects again without waiting for new changes.
    var isClosed: Bool { get }
}

/// Why a push to a sink failed: the sink's name and a one-line message that holds no secret and no health value.
public struct OutboxError: Error, CustomStringConvertible, Sendable {
    public var sink: String
    public var message: String

    public init(sink: String, message: String) {
        self.sink = sink
        self.message = message
    }

    public var description: String { "sink \(sink): \(message)" }
}

/// What a push did.
public struct OutboxPush: Hashable, Sendable {
    /// The changes sent and committed.
    public var pushed: Int
    /// The feed's sequence the destination has committed afterwards: the feed's end when the push returns.
    public var position: Int64

    public init(pushed: Int, position: Int64) {
        self.pushed = pushed
        self.position = position
    }
}

extension OutboxPush {
    /// What `sink push` and `sink follow` print of a push to `sink`:
    /// `clinic: pushed 3 changes; it has the feed up to 42`.
    public func line(sink: String) -> String {
        "\(sink): pushed \(pushed) change\(pushed == 1 ? "" : "s"); it has the feed up to \(position)"
    }
}

/// What ``Outbox/follow(_:connect:poll:events:)`` reports as it goes.
public enum OutboxEvent: Hashable, Sendable {
    /// `changes` changes were committed by sink `sink`, which is now at `position`.
    case pushed(sink: String, changes: Int, position: Int64)
    /// A push to `sink` failed for `message`; it is tried again after `retryIn`.
    case failed(sink: String, message: String, retryIn: Duration)

    /// What `sink follow` prints of the event: a push as ``OutboxPush/line(sink:)`` says it, or
    /// `clinic: <why>; trying again in 2.0 seconds`.
    public var line: String {
        switch self {
        case .pushed(let sink, let changes, let position):
            OutboxPush(pushed: changes, position: position).line(sink: sink)
        case .failed(let sink, let message, let retryIn): "\(sink): \(message); trying again in \(retryIn)"
        }
    }
}

/// The outbox: pushes the hub's change feed to its sinks, exactly once per change and destination.
///
/// Every change is queued for every sink by the transaction that makes it (the store's feed), and `open` never
/// waits for a sink: the outbox sends what is queued later, in batches, oldest first. It starts from the position
/// the destination itself reports (so a batch the destination committed before a crash is not sent again, and a
/// destination that lost data is sent it again), and moves the sink's position in the home only after the
/// destination committed a batch. A batch sent twice (a crash between the destination's commit and the home's) is
/// harmless: the destination is keyed by (hub, reading, version) and counts what it has as delivered.
public struct Outbox: Sendable {
    /// The changes sent in one transaction of the destination.
    public static let defaultBatchSize = 1_000
    /// The first wait before a failed sink is tried again, and the longest.
    public static let firstBackoff = Duration.seconds(1)
    public static let longestBackoff = Duration.seconds(60)

    let store: VitalStore
    let now: @Sendable () -> Timestamp
    let clock: any Clock<Duration>
    let batchSize: Int
    let logger: Logger

    /// An outbox of `store`'s feed.
    ///
    /// - Parameters:
    ///   - store: the home's store.
    ///   - now: the time a success or failure is recorded at.
    ///   - clock: the clock ``follow(_:connect:poll:events:)`` waits on.
    ///   - batchSize: the changes per transaction of the destination.
    ///   - logger: hears failures (never a health value, never a secret).
    public init(
        store: VitalStore, now: @escaping @Sendable () -> Timestamp, clock: any Clock<Duration>,
        batchSize: Int = Outbox.defaultBatchSize, logger: Logger
    ) {
        self.store = store
        self.now = now
        self.clock = clock
        self.batchSize = batchSize
        self.logger = logger
    }

    /// Pushes everything queued for `sink` through a connection `connect` makes, then closes it. A failure (of the
    /// connection, the destination or the store) is recorded in the home as the sink's last error and thrown;
    /// what was committed before it stays committed, and the rest stays queued.
    public func push(_ sink: SinkRecord, connect: () async throws -> any ChangeSink) async throws(OutboxError)
        -> OutboxPush
    {
        let connection: any ChangeSink
        do {
            connection = try await connect()
        } catch {
            throw failure(sink, "\(error)")
        }
        do {
            let result = try await push(sink, over: connection)
            await connection.close()
            return result
        } catch {
            await connection.close()
            throw error
        }
    }

    /// Pushes everything queued for `sink` over `connection`, which stays open.
    public func push(_ sink: SinkRecord, over connection: any ChangeSink) async throws(OutboxError) -> OutboxPush {
        do {
            let end = try store.feed.end()
            var position = try await connection.position(hub: end.hubID)
            guard position <= end.sequence else {
                throw OutboxError(
                    sink: sink.name,
                    message:
                        "the destination has this hub's feed up to \(position), past this home's end (\(end.sequence)): "
                        + "is the home a restored copy? Nothing was sent")
            }
            var pushed = 0
            while true {
                let scope = connection.latestScope
                let batch = try store.sinks.changeBatch(after: position, limit: batchSize, latest: scope)
                // every owner's latest goes even when the destination has every change
                guard !batch.changes.isEmpty || scope == .every else { break }
                try await connection.push(batch)
                position = batch.through
                pushed += batch.changes.count
                try store.sinks.recordPush(named: sink.name, position: position, at: now())
                if batch.changes.isEmpty { break }
            }
            if pushed == 0 { try store.sinks.recordPush(named: sink.name, position: position, at: now()) }
            return OutboxPush(pushed: pushed, position: position)
        } catch let error as OutboxError {
            throw failure(sink, error.message)
        } catch {
            throw failure(sink, "\(error)")
        }
    }

    /// Records `message` as `sink`'s last error and returns it as an ``OutboxError``.
    private func failure(_ sink: SinkRecord, _ message: String) -> OutboxError {
        logger.warning("a push to a sink failed", metadata: ["sink": "\(sink.name)", "why": "\(message)"])
        do {
            try store.sinks.recordFailure(named: sink.name, message: message, at: now())
        } catch {
            logger.error("the sink's failure could not be recorded", metadata: ["why": "\(error)"])
        }
        return OutboxError(sink: sink.name, message: message)
    }

    /// Keeps pushing to `sinks` as the feed grows, until the task is cancelled: each sink is pushed when the feed
    /// has changes it lacks, over a connection kept open between pushes; a sink that fails is tried again after a
    /// backoff that doubles up to ``longestBackoff``, the others go on.
    ///
    /// - Throws: `StoreError` with code `schema` when a newer release upgraded the store since it was
    ///   opened: the follower stops before reading, pushing or recording anything more.
    /// - Parameters:
    ///   - sinks: the sinks to follow.
    ///   - connect: makes a connection to a sink.
    ///   - poll: how often the feed's end is read.
    ///   - events: hears each push and failure.
    public func follow(
        _ sinks: [SinkRecord], connect: @escaping (SinkRecord) async throws -> any ChangeSink, poll: Duration,
        events: @escaping @Sendable (OutboxEvent) -> Void = { _ in }
    ) async throws(StoreError) {
        struct State {
            var connection: (any ChangeSink)?
            /// The feed's end at its last success; `nil` before the first.
            var pushedThrough: Int64?
            var backoff = Outbox.firstBackoff
            var waitLeft = Duration.zero
        }
        var states = Array(repeating: State(), count: sinks.count)
        while !Task.isCancelled {
            do {
                try store.checkSchema()
            } catch {
                // a newer release upgraded the store: nothing more is read, pushed or recorded
                guard error.code != .schema else {
                    for state in states { await state.connection?.close() }
                    throw error
                }
                logger.error("the store's schema cannot be read", metadata: ["why": "\(error)"])
            }
            let end: Int64
            do {
                end = try store.feed.end().sequence
            } catch {
                logger.error("the change feed cannot be read", metadata: ["why": "\(error)"])
                end = .max
            }
            for (index, sink) in sinks.enumerated() where !Task.isCancelled {
                var state = states[index]
                defer { states[index] = state }
                if state.waitLeft > .zero {
                    state.waitLeft -= poll
                    continue
                }
                if let open = state.connection, open.isClosed {
                    // ended between pushes (a broker restarted): connected again now, not at the next change
                    await open.close()
                    state.connection = nil
                    state.pushedThrough = nil
                }
                guard state.pushedThrough.map({ $0 < end }) ?? true else { continue }
                do {
                    let connection: any ChangeSink
                    if let open = state.connection {
                        connection = open
                    } else {
                        do {
                            connection = try await connect(sink)
                        } catch {
                            throw failure(sink, "\(error)")
                        }
                        state.connection = connection
                    }
                    let result = try await push(sink, over: connection)
                    if result.pushed > 0 {
                        events(.pushed(sink: sink.name, changes: result.pushed, position: result.position))
                    }
                    state.pushedThrough = result.position
                    state.backoff = Self.firstBackoff
                } catch {
                    await state.connection?.close()
                    state.connection = nil
                    let message = (error as? OutboxError)?.message ?? "\(error)"
                    events(.failed(sink: sink.name, message: message, retryIn: state.backoff))
                    state.waitLeft = state.backoff
                    state.backoff = min(state.backoff * 2, Self.longestBackoff)
                }
            }
            do {
                try await clock.sleep(for: poll, tolerance: nil)
            } catch {
                break
            }
        }
        for state in states { await state.connection?.close() }
    }
}
