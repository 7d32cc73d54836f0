import Foundation
public import LiveRelayCore
public import Logging
import NIOSSL
import PostgresNIO
public import Store
import Synchronization

/// LiveRelay's shared state in PostgreSQL, for several workers on one database (SQLite stays the default for
/// one worker): the schema and its migrations, feed leases (one worker polls a feed at a time), and the
/// outbox with claims (workers share a fan-out with `FOR UPDATE SKIP LOCKED`; a row is finished once).
///
/// Connections are pooled by postgres-nio's `PostgresClient`; ``run()`` must run (as a service) while the
/// store is used. The password comes from a secret reference and never reaches a log or an error.
public final class PostgresStore: StateStore {
    /// Where the database is.
    public struct Configuration: Sendable {
        /// `postgres://user@host:port/database` (no password in it; `?sslmode=require` asks for TLS).
        public var url: String
        /// The password, from a secret reference.
        public var password: Secret?
        /// TLS to the database (also when the URL says `sslmode=require`); certificates are verified.
        public var tls: Bool
        /// A CA file for TLS (a private CA); the system's roots when `nil`.
        public var caFile: String?
        /// The PostgreSQL schema LiveRelay's tables live in (created by ``PostgresStore/migrate()``);
        /// `nil`: the database's default (`public`). Lower-case letters, digits and `_`.
        public var schema: String?

        /// This worker's name on its claims; unique among the workers sharing the database.
        public var worker: String
        /// How long an outbox claim lasts (seconds).
        public var claimSeconds: Int
        /// Seconds after its last heartbeat at which a worker counts as gone and its claims are taken over
        /// (heartbeats every fifth of it).
        public var workerTimeout: Int

        public init(
            url: String, password: Secret? = nil, tls: Bool = false, caFile: String? = nil, schema: String? = nil,
            worker: String = PostgresStore.defaultWorkerName, claimSeconds: Int = 60, workerTimeout: Int = 3
        ) {
            self.worker = worker
            self.claimSeconds = claimSeconds
            self.workerTimeout = workerTimeout
            self.schema = schema
            self.url = url
            self.password = password
            self.tls = tls
            self.caFile = caFile
        }
    }

    /// A problem with the database: what was being done and what PostgreSQL said, never the password.
    public typealias Failure = StoreFailure

    let client: PostgresClient
    let logger: Logger
    let schema: String?
    /// One connection's settings, to check the database answers before the pool starts retrying.
    let probe: PostgresConnection.Configuration
    /// `PostgreSQL host:port/database`, for messages.
    public let location: String
    /// This worker's name on the claims it takes (outbox rows, feed leases).
    public let worker: String
    /// How long an outbox claim lasts: a worker that dies loses its rows to another after this.
    public let claimSeconds: Int
    /// Provider tokens, read when the store is opened (see ``open()``) and written through.
    let providerTokens = ProviderTokenMemory()
    /// Seconds after its last heartbeat at which a worker counts as gone.
    public let workerTimeout: Int
    /// This worker's heartbeats and its incarnation (the suffix of its claims' owner).
    let heartbeats: Mutex<(beats: WorkerHeartbeat<ContinuousClock.Instant>, incarnation: String)>
    /// The live workers the last ``workersStatus()`` counted.
    let alive = Mutex<Int?>(nil)

    /// A store for `configuration`; nothing is connected until ``run()`` runs and a query is made.
    public init(_ configuration: Configuration, logger: Logger = Logger(label: "liverelay.postgres"))
        throws(Failure)
    {
        guard let url = URLComponents(string: configuration.url),
            url.scheme == "postgres" || url.scheme == "postgresql",
            let host = url.host, !host.isEmpty, let user = url.user, !user.isEmpty
        else {
            throw Failure(path: "PostgreSQL", message: "the URL must be postgres://user@host[:port]/database")
        }
        if url.password != nil {
            throw Failure(
                path: "PostgreSQL",
                message: "the URL carries a password: give it as a secret reference (password: {\"env\": …})")
        }
        let database = String(url.path.drop(while: { $0 == "/" }))
        let port = url.port ?? 5432
        let wantsTLS =
            configuration.tls || url.queryItems?.contains { $0.name == "sslmode" && $0.value == "require" } == true
        var tls = PostgresClient.Configuration.TLS.disable
        var probeTLS = PostgresConnection.Configuration.TLS.disable
        if wantsTLS {
            var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
            if let caFile = configuration.caFile { tlsConfiguration.trustRoots = .file(caFile) }
            tls = .require(tlsConfiguration)
            do {
                probeTLS = .require(try NIOSSLContext(configuration: tlsConfiguration))
            } catch {
                throw Failure(path: "PostgreSQL", message: "cannot set up TLS: \(error)")
            }
        }
        var pool = PostgresClient.Configuration(
            host: host, port: port, username: user, password: configuration.password?.value,
            database: database.isEmpty ? user : database, tls: tls)
        pool.options.maximumConnections = 20
        if let schema = configuration.schema {
            guard !schema.isEmpty,
                schema.utf8.allSatisfy({ (97...122).contains($0) || (48...57).contains($0) || $0 == 95 })
            else { throw Failure(path: "PostgreSQL", message: "schema: lower-case letters, digits and _ only") }
            pool.options.additionalStartupParameters = [("search_path", schema)]
        }
        // A transaction this worker leaves open (it froze or stalled between two statements) is ended by the
        // server after the heartbeat timeout: its row locks (the shared activity row a settlement updates)
        // would otherwise hold every other worker's settlements until it came back.
        pool.options.additionalStartupParameters.append(
            ("idle_in_transaction_session_timeout", "\(max(3, configuration.workerTimeout) * 1000)"))
        self.schema = configuration.schema
        var probe = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: configuration.password?.value,
            database: database.isEmpty ? user : database, tls: probeTLS)
        probe.options.connectTimeout = .seconds(10)
        if let schema = configuration.schema { probe.options.additionalStartupParameters = [("search_path", schema)] }
        self.probe = probe
        // The pool's own chatter (a lease asked before run() began, each failed connection) stays out of
        // the logs; what fails reaches the caller as a Failure.
        var background = logger
        background.logLevel = .error
        client = PostgresClient(configuration: pool, backgroundLogger: background)
        self.logger = logger
        location = "PostgreSQL \(host):\(port)/\(database.isEmpty ? user : database)"
        worker = configuration.worker
        claimSeconds = configuration.claimSeconds
        workerTimeout = max(2, configuration.workerTimeout)
        let beats = WorkerHeartbeat<ContinuousClock.Instant>(
            interval: .milliseconds(workerTimeout * 200), timeout: .seconds(workerTimeout))
        heartbeats = Mutex((beats, Self.newIncarnation()))
    }

    /// `host-pid`: unique among processes sharing a database.
    public static var defaultWorkerName: String {
        "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
    }

    /// Keeps the connection pool running until the task is cancelled.
    public func run() async { await client.run() }

    /// Runs `body` with the connection pool running beside it as a child task, then shuts the pool down (its
    /// connections closed) once `body` has returned or thrown: the pool lives exactly as long as its users.
    /// A store's pool runs once (this or ``run()``).
    public func whileRunning<T>(_ body: () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self) { pool in
            pool.addTask { await self.run() }
            let outcome: Result<T, any Error>
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            pool.cancelAll()
            return try outcome.get()
        }
    }

    /// Connects once and says at once what went wrong (a wrong password, an unknown database, no server):
    /// the pool retries failed connections for a minute before it gives up.
    public func check() async throws(Failure) {
        do {
            let connection = try await PostgresConnection.connect(
                configuration: probe, id: 0,
                logger: Logger(label: "liverelay.postgres", factory: { _ in SwiftLogNoOpLogHandler() }))
            try await connection.close()
        } catch {
            throw Failure(path: location, message: "cannot connect: \(Self.describe(error))")
        }
    }

    /// Runs `body` in one transaction; a PostgreSQL error becomes a ``Failure`` saying what was being done.
    func transaction<T: Sendable>(_ what: String, _ body: (PostgresConnection) async throws -> T)
        async throws(Failure) -> T
    {
        do {
            // Not PostgresClient.withTransaction: its ROLLBACK on a connection the server has closed never
            // returns (see ``PostgresConnection/checkedQuery(_:logger:)``).
            return try await client.withConnection { connection in
                try await connection.checkedQuery("BEGIN", logger: logger)
                do {
                    let value = try await body(connection)
                    try await connection.checkedQuery("COMMIT", logger: logger)
                    return value
                } catch {
                    _ = try? await connection.checkedQuery("ROLLBACK", logger: logger)
                    throw error
                }
            }
        } catch {
            if let failure = error as? Failure { throw failure }
            throw Failure(path: location, message: "\(what): \(Self.describe(error))")
        }
    }

    /// Runs one statement outside a transaction.
    func run<T: Sendable>(_ what: String, _ body: (PostgresClient) async throws -> T) async throws(Failure) -> T {
        do {
            return try await body(client)
        } catch {
            if let failure = error as? Failure { throw failure }
            throw Failure(path: location, message: "\(what): \(Self.describe(error))")
        }
    }

    /// PostgreSQL's own message for an error, else the error.
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            // A TLS or network failure says what it was (a certificate not verified, a refused connection).
            if let underlying = error.underlying { return "\(error.code): \(underlying)" }
            return "\(error.code)"
        }
        let text = "\(error)"
        if text.contains("connectionCreationCircuitBreakerTripped") {
            return "cannot connect: every connection was refused or failed (check the host, port, user, password "
                + "and TLS)"
        }
        return text
    }
}
