import PostgresNIO

extension PostgresStore {
    /// The schema, step by step; each step runs once, in order, in its own transaction. Never edit a step
    /// that has shipped: add one.
    static let migrations: [(id: String, statements: [String])] = [
        (
            "v1-feed-leases",
            [
                """
                CREATE TABLE feed_lease (
                  feed text PRIMARY KEY,
                  worker text NOT NULL,
                  expires_at bigint NOT NULL)
                """
            ]
        ),
        (
            "v1-outbox",
            [
                """
                CREATE TABLE outbox (
                  activity text NOT NULL,
                  target text NOT NULL,
                  kind text NOT NULL,
                  device text,
                  environment text,
                  push text NOT NULL,
                  "timestamp" bigint NOT NULL,
                  attempts integer NOT NULL DEFAULT 0,
                  next_attempt bigint NOT NULL,
                  seq bigserial,
                  address_device text,
                  address_user text,
                  address_activity text,
                  provider text,
                  channel text,
                  claimed_by text,
                  claim_expires bigint,
                  PRIMARY KEY (activity, target))
                """,
                "CREATE INDEX outbox_due ON outbox (next_attempt, seq)",
            ]
        ),
        ("v2-outbox-channel-policy", ["ALTER TABLE outbox ADD COLUMN channel_policy integer"]),
    ]

    /// Brings the schema up to date and returns the steps it applied (none when it was). Workers starting
    /// together take turns (an advisory lock), so each step runs once.
    @discardableResult
    public func migrate() async throws(Failure) -> [String] {
        try await transaction("migrating the schema") { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(7451120)", logger: logger)
            if let schema {
                try await connection.query(
                    PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(schema)"), logger: logger)
            }
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS liverelay_migration (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
                logger: logger)
            var applied = Set<String>()
            for try await id in try await connection.query("SELECT id FROM liverelay_migration", logger: logger)
                .decode(String.self)
            {
                applied.insert(id)
            }
            var done: [String] = []
            for migration in Self.migrations where !applied.contains(migration.id) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO liverelay_migration (id) VALUES (\(migration.id))", logger: logger)
                done.append(migration.id)
            }
            return done
        }
    }

    /// The steps applied so far, in order.
    public func appliedMigrations() async throws(Failure) -> [String] {
        try await run("reading the migrations") { client in
            var ids: [String] = []
            for try await id in try await client.query(
                "SELECT id FROM liverelay_migration ORDER BY applied_at, id", logger: logger
            ).decode(String.self) {
                ids.append(id)
            }
            return ids
        }
    }
}

extension PostgresStore {
    /// Drops the store's schema with everything in it: for tests and benchmarks, which each make one of their own.
    public func dropSchema() async throws(Failure) {
        guard let schema else { throw Failure("no schema of its own to drop") }
        try await run("dropping schema \(schema)") { client in
            try await client.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(schema) CASCADE"), logger: logger)
        }
    }
}
