import Logging
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// A PostgresNIO connection whose queries fail when the connection closes before they are answered.
///
/// PostgresNIO writes a query to its channel without a promise for the write, so a query written after the channel
/// closed is dropped and never answered: awaiting it waits forever. That happened here when the server terminated
/// the backend (`pg_terminate_backend`) and the sink's `ROLLBACK` followed the failed statement: `sink push` hung
/// with nothing left to wake it. Checking `isClosed` first narrows the window, but a close can still come between
/// the check and the write (a server restarting between two batches). So each query here also listens for the connection's close; a query the close
/// overtakes fails 0.1 s after it unless it was answered meanwhile (its own error, the server's reason, says more).
struct GuardedConnection: Sendable {
    let connection: PostgresConnection

    /// How long a query the connection's close overtook may still be answered.
    static let grace = TimeAmount.milliseconds(100)

    /// `query`'s rows; a ``SinkError`` (``SinkError/Code/connectionFailed``) when the connection closed first.
    @discardableResult
    func query(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        let connection = self.connection
        guard !connection.isClosed else { throw Self.closed }
        let eventLoop = connection.eventLoop
        let answer = eventLoop.makePromise(of: PostgresRowSequence.self)
        let answered = NIOLockedValueBox(false)
        @Sendable func complete(_ outcome: Result<PostgresRowSequence, any Error>) {
            let first = answered.withLockedValue { answered in
                defer { answered = true }
                return !answered
            }
            if first { answer.completeWith(outcome) }
        }
        Task {
            do {
                complete(.success(try await connection.query(query, logger: logger)))
            } catch {
                complete(.failure(error))
            }
        }
        connection.closeFuture.whenComplete { _ in
            eventLoop.scheduleTask(in: Self.grace) { complete(.failure(Self.closed)) }
        }
        return try await answer.futureResult.get()
    }

    static let closed = SinkError(.connectionFailed, "the server closed the connection")
}
