import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import SinkSettings
import VitalCore

/// A connection to a PostgreSQL database that receives a hub's changes exactly once.
///
/// ```swift
/// let sink = try await PostgresSink.connect(address, password: password, logger: logger)
/// try await sink.migrate()
/// let from = try await sink.position(hub: hubID)      // the last `through` committed for this hub
/// try await sink.push(batch)                            // one transaction; idempotent
/// await sink.close()
/// ```
///
/// Each ``push(_:)`` is one transaction: the hub, its devices and people, the changes, and the hub's position
/// (`ChangeBatch`'s `through`) commit together or not at all. A change applies only when it is newer than what
/// the database holds for its reading (its version, the change's sequence, is larger than the row's and than any
/// deletion's), so a batch sent twice, or an older batch after a newer one, changes nothing.
///
/// Calls on one sink run one at a time, in the order they were made. After a lost connection (the server restarted,
/// the network failed) every call throws: connect again.
public actor PostgresSink {
    /// The connection, its queries guarded against a close that would leave them unanswered.
    private let connection: GuardedConnection
    private let address: SinkAddress
    private let logger: Logger
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    private init(connection: PostgresConnection, address: SinkAddress, logger: Logger) {
        self.connection = GuardedConnection(connection: connection)
        self.address = address
        self.logger = logger
    }

    /// Connects to `address` as its user, with `password` when the server asks for one, over TLS as its
    /// `SinkAddress/sslMode` says.
    ///
    /// Throws a `SinkError` (`SinkError/Code/connectionFailed`) whose message names the server and what failed
    /// (the TLS handshake, the password, the database), never the password.
    public static func connect(_ address: SinkAddress, password: String?, logger: Logger) async throws -> PostgresSink {
        let configuration = try configuration(address, password: password)
        do {
            let connection = try await PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration,
                id: Int.random(in: 0...Int(Int32.max)), logger: logger)
            logger.debug("connected to the sink", metadata: ["server": "\(address.serverDescription)"])
            return PostgresSink(connection: connection, address: address, logger: logger)
        } catch {
            throw SinkError(
                .connectionFailed,
                "cannot connect to \(address.serverDescription) as \(address.user) (database \(address.database), sslmode=\(address.sslMode.rawValue)): \(reason(error, password: password))"
            )
        }
    }

    /// PostgresNIO's configuration for `address`.
    static func configuration(_ address: SinkAddress, password: String?) throws(SinkError)
        -> PostgresConnection.Configuration
    {
        switch address.endpoint {
        case .unixSocket:
            return PostgresConnection.Configuration(
                unixSocketPath: address.socketPath!, username: address.user, password: password,
                database: address.database)
        case .tcp(let host, let port):
            // PostgresNIO sends a host name as the TLS server name, which verify-full checks against the
            // certificate; an IP address (no valid server name) is checked against the certificate's IP addresses
            return PostgresConnection.Configuration(
                host: host, port: port, username: address.user, password: password, database: address.database,
                tls: try tls(address))
        }
    }

    /// TLS as libpq's modes mean it: `disable` none; `allow` and `prefer` when the server offers it, unverified;
    /// `require` always, unverified; `verify-ca` always, signed by the trusted CA; `verify-full` also naming the
    /// host.
    static func tls(_ address: SinkAddress) throws(SinkError) -> PostgresConnection.Configuration.TLS {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch address.sslMode {
        case .disable: return .disable
        case .allow, .prefer, .require: configuration.certificateVerification = .none
        case .verifyCA: configuration.certificateVerification = .noHostnameVerification
        case .verifyFull: configuration.certificateVerification = .fullVerification
        }
        if address.sslMode.verifiesCertificate, let file = address.sslRootCertificate {
            configuration.trustRoots = .file(file)
        }
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            let problem =
                if case NIOSSLError.noSuchFilesystemObject = error {
                    "no such file"
                } else {
                    "not PEM certificates (\(brief(error)))"
                }
            let file = address.sslRootCertificate.map { "sslrootcert \($0): \(problem)" } ?? brief(error)
            throw SinkError(.connectionFailed, "cannot set up TLS for \(address.serverDescription): \(file)")
        }
        return address.sslMode == .allow || address.sslMode == .prefer ? .prefer(context) : .require(context)
    }

    /// Creates or updates the schema `vitalbridge`: runs the migrations it lacks and adds the typed columns it
    /// lacks, in one transaction under an advisory lock, so that many hubs migrating at once is safe.
    public func migrate() async throws {
        try await exclusive {
            try await transaction("migrate") { connection, logger in
                try await connection.query("SELECT pg_advisory_xact_lock(\(SinkSchema.migrationLock))", logger: logger)
                try await connection.query("CREATE SCHEMA IF NOT EXISTS vitalbridge", logger: logger)
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS vitalbridge.schema_migrations (
                        version integer PRIMARY KEY,
                        name text NOT NULL,
                        applied_at timestamptz NOT NULL DEFAULT now()
                    )
                    """, logger: logger)
                var applied: Set<Int> = []
                for try await version in try await connection.query(
                    "SELECT version FROM vitalbridge.schema_migrations", logger: logger
                ).decode(Int.self) {
                    applied.insert(version)
                }
                for migration in SinkSchema.migrations {
                    if !applied.contains(migration.version) {
                        for statement in migration.statements {
                            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                        }
                        try await connection.query(
                            "INSERT INTO vitalbridge.schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
                            logger: logger)
                        logger.info(
                            "sink schema migrated",
                            metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
                    }
                    if migration.version == SinkSchema.typedColumnsAfter {
                        try await Self.addTypedColumns(connection, logger: logger)
                    }
                }
            }
        }
    }

    /// Adds each typed column `vitalbridge.readings` lacks (only those: ALTER TABLE locks the table).
    private static func addTypedColumns(_ connection: GuardedConnection, logger: Logger) async throws {
        var present: Set<String> = []
        for try await name in try await connection.query(
            """
            SELECT column_name::text FROM information_schema.columns
            WHERE table_schema = 'vitalbridge' AND table_name = 'readings'
            """, logger: logger
        ).decode(String.self) {
            present.insert(name)
        }
        for column in SinkSchema.typedColumns where !present.contains(column.name) {
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: "ALTER TABLE vitalbridge.readings ADD COLUMN \(column.name) \(column.sqlType)"),
                logger: logger)
        }
    }

    /// The last `ChangeBatch`'s `through` committed for the hub `hub` (a lowercase UUID); 0 when it never pushed.
    public func position(hub: String) async throws -> Int64 {
        try await exclusive {
            do {
                let rows = try await connection.query(
                    "SELECT position FROM vitalbridge.hubs WHERE hub_id = \(hub)::uuid", logger: logger)
                for try await position in rows.decode(Int64.self) { return position }
                return 0
            } catch {
                let missing = (error as? PSQLError)?.serverInfo?[.sqlState] == "42P01" ? " (migrate first)" : ""
                throw SinkError(
                    .queryFailed, "cannot read the position of hub \(hub): \(Self.reason(error))\(missing)")
            }
        }
    }

    /// Commits `batch` in one transaction: the hub (its last push, its position raised to `through`), its devices
    /// and people, then its changes, each applied only when newer than what the database holds for its reading.
    public func push(_ batch: ChangeBatch) async throws {
        let rows = try BatchRows(batch)
        try await exclusive {
            try await transaction("push to") { connection, logger in
                let hub = batch.hubID
                // the hub's row first: its lock serializes pushes of one hub
                try await connection.query(
                    """
                    INSERT INTO vitalbridge.hubs AS h (hub_id) VALUES (\(hub)::uuid)
                    ON CONFLICT (hub_id) DO UPDATE SET last_push = now()
                    """, logger: logger)
                if !batch.devices.isEmpty {
                    try await connection.query(rows.devicesQuery(hub: hub), logger: logger)
                }
                if !batch.people.isEmpty {
                    try await connection.query(
                        """
                        INSERT INTO vitalbridge.people (hub_id, name)
                        SELECT \(hub)::uuid, name FROM unnest(\(ColumnArray(.text(batch.people)))::text[]) AS p(name)
                        ON CONFLICT DO NOTHING
                        """, logger: logger)
                }
                if rows.upsertCount > 0 {
                    try await connection.query(rows.upsertQuery(hub: hub), logger: logger)
                }
                if rows.deletionCount > 0 {
                    try await connection.query(rows.deletionQuery(hub: hub), logger: logger)
                }
                try await connection.query(
                    """
                    UPDATE vitalbridge.hubs SET position = \(batch.through)
                    WHERE hub_id = \(hub)::uuid AND position < \(batch.through)
                    """, logger: logger)
            }
        }
        logger.debug(
            "pushed to the sink",
            metadata: [
                "changes": "\(batch.changes.count)", "through": "\(batch.through)",
                "server": "\(address.serverDescription)",
            ])
    }

    /// How many of this sink's queries wait for their answer now: none between calls.
    var queriesWaiting: Int { connection.waitingQueries }

    /// Closes the connection.
    public func close() async {
        try? await connection.connection.close()
    }

    /// Runs `body` in a transaction; an error rolls it back and becomes a `SinkError` naming `step`.
    private func transaction(
        _ step: String, _ body: (GuardedConnection, Logger) async throws -> Void
    ) async throws {
        do {
            try await connection.query("BEGIN", logger: logger)
            do {
                try await body(connection, logger)
                try await connection.query("COMMIT", logger: logger)
            } catch {
                // on a lost connection the server rolled back already; GuardedConnection fails this at once
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        } catch let error as SinkError {
            throw error
        } catch {
            throw SinkError(
                .queryFailed, "cannot \(step) \(address.serverDescription)/\(address.database): \(Self.reason(error))")
        }
    }

    /// Runs `body` when no other call of this sink runs (an actor lets calls interleave at each `await`; a
    /// transaction must not).
    private func exclusive<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        while busy {
            await withCheckedContinuation { waiting.append($0) }
        }
        busy = true
        defer {
            busy = false
            if !waiting.isEmpty { waiting.removeFirst().resume() }
        }
        return try await body()
    }

    /// A one-line reason for `error`: the server's message and SQLSTATE, or what failed on the way; `password`
    /// (when given) is masked should any text contain it.
    static func reason(_ error: any Error, password: String? = nil) -> String {
        var text: String
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
                text = "the server said: \(message)\(state)"
            } else if error.code == .authMechanismRequiresPassword {
                text = "the server asks for a password, and none was given (--password-file or ~/.pgpass)"
            } else if error.code == .sslUnsupported {
                text = "the server does not offer TLS, which the sslmode requires"
            } else if error.code == .serverClosedConnection {
                text = "the server closed the connection" + (error.underlying.map { " (\(brief($0)))" } ?? "")
            } else if let underlying = error.underlying {
                text = brief(underlying)
            } else {
                text = "\(error.code)"
            }
        } else if let error = error as? SinkError {
            text = error.message
        } else {
            text = brief(error)
        }
        if let password, !password.isEmpty { text = text.replacing(password, with: "***") }
        return text
    }
}
