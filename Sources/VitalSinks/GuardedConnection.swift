import Logging
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO
import SinkSettings

/// A PostgresNIO connection whose queries fail when the connection closes before they are answered.
///
/// PostgresNIO writes a query to its channel without a promise for the write, so a query written after the channel
/// closed is dropped and never answered: awaiting it waits forever. That happened here when the server terminated
/// the backend (`pg_terminate_backend`) and the sink's `ROLLBACK` followed the failed statement: `sink push` hung
/// with nothing left to wake it. Checking `isClosed` first narrows the window, but a close can still come between
/// the check and the write (a server restarting between two batches). So the queries in flight are kept here, and
/// the connection's close fails each 0.1 s after it unless it was answered meanwhile (its own error, the server's
/// reason, says more).
///
/// One listener on the close serves every query: a listener per query would keep each query's answer (its rows,
/// its buffers) alive until the connection closed, memory that grew with every batch of a long push.
final class GuardedConnection: Sendable {
    /// The queries waiting for their answer, by number, and whether the connection has closed.
    private struct Waiting {
        var next = 0
        var queries: [Int: @Sendable (Result<PostgresRowSequence, any Error>) -> Void] = [:]
        var closed = false
    }

    let connection: PostgresConnection
    private let waiting = NIOLockedValueBox(Waiting())

    /// How long a query the connection's close overtook may still be answered.
    static let grace = TimeAmount.milliseconds(100)

    init(connection: PostgresConnection) {
        self.connection = connection
        connection.closeFuture.whenComplete { [waiting] _ in
            waiting.withLockedValue { $0.closed = true }
            connection.eventLoop.scheduleTask(in: Self.grace) {
                let overtaken = waiting.withLockedValue { waiting in
                    defer { waiting.queries = [:] }
                    return Array(waiting.queries.values)
                }
                for fail in overtaken { fail(.failure(Self.closed)) }
            }
        }
    }

    /// How many queries wait for their answer now.
    var waitingQueries: Int { waiting.withLockedValue { $0.queries.count } }

    /// `query`'s rows; a `SinkError` (`SinkError/Code/connectionFailed`) when the connection closed first.
    @discardableResult
    func query(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        let connection = self.connection
        guard !connection.isClosed else { throw Self.closed }
        let answer = connection.eventLoop.makePromise(of: PostgresRowSequence.self)
        let waiting = self.waiting
        let (number, closed) = waiting.withLockedValue { waiting in
            defer { waiting.next += 1 }
            waiting.queries[waiting.next] = { answer.completeWith($0) }
            return (waiting.next, waiting.closed)
        }
        /// Completes the answer unless the close did first.
        @Sendable func complete(_ outcome: Result<PostgresRowSequence, any Error>) {
            if waiting.withLockedValue({ $0.queries.removeValue(forKey: number) }) != nil {
                answer.completeWith(outcome)
            }
        }
        if closed {
            // the close's listener ran between the check above and the registration: it cannot see this query
            connection.eventLoop.scheduleTask(in: Self.grace) { complete(.failure(Self.closed)) }
        }
        Task {
            do {
                complete(.success(try await connection.query(query, logger: logger)))
            } catch {
                complete(.failure(error))
            }
        }
        return try await answer.futureResult.get()
    }

    static let closed = SinkError(.connectionFailed, "the server closed the connection")
}
