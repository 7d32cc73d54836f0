import PostgresNIO
public import Store

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
        (
            // Everything else the worker keeps, as the SQLite store keeps it (same tables, same columns).
            "v3-state",
            [
                """
                CREATE TABLE feed_entity (
                  feed text NOT NULL, entity text NOT NULL, facts text NOT NULL, updated_at bigint NOT NULL,
                  PRIMARY KEY (feed, entity))
                """,
                """
                CREATE TABLE feed_state (
                  feed text PRIMARY KEY, etag text, last_modified text, last_success bigint,
                  failures integer NOT NULL DEFAULT 0, not_before bigint, not_before_reason text)
                """,
                """
                CREATE TABLE activity (
                  key text PRIMARY KEY, attributes_type text NOT NULL, phase text NOT NULL, state text NOT NULL,
                  last_timestamp bigint NOT NULL, entity_feed text, entity_id text, started_at bigint, facts text,
                  sent_at bigint, timers text, timer_due bigint)
                """,
                "CREATE INDEX activity_timer_due ON activity (timer_due) WHERE phase IN ('pending', 'active')",
                "CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL)",
                "CREATE TABLE throttle_state (key text PRIMARY KEY, state text NOT NULL, pending boolean NOT NULL)",
                "CREATE INDEX throttle_state_pending ON throttle_state (key) WHERE pending",
                """
                CREATE TABLE push_to_start_token (
                  device text NOT NULL, attributes_type text NOT NULL, token text NOT NULL, environment text NOT NULL,
                  updated_at bigint NOT NULL, PRIMARY KEY (device, attributes_type))
                """,
                "CREATE INDEX push_to_start_token_token ON push_to_start_token (token)",
                """
                CREATE TABLE activity_token (
                  activity text NOT NULL, device text NOT NULL, token text NOT NULL, environment text NOT NULL,
                  updated_at bigint NOT NULL, PRIMARY KEY (activity, device))
                """,
                "CREATE INDEX activity_token_token ON activity_token (token)",
                """
                CREATE TABLE subscription (
                  feed text NOT NULL, entity text NOT NULL, device text NOT NULL, PRIMARY KEY (feed, entity, device))
                """,
                "CREATE TABLE dropped_token (token text PRIMARY KEY, reason text NOT NULL, dropped_at bigint NOT NULL)",
                """
                CREATE TABLE device_address (
                  device text NOT NULL, provider text NOT NULL, address text, "user" text, updated_at bigint NOT NULL,
                  PRIMARY KEY (device, provider))
                """,
                """
                CREATE TABLE activity_address (
                  activity text NOT NULL, provider text NOT NULL, address text NOT NULL, PRIMARY KEY (activity, provider))
                """,
                """
                CREATE TABLE dropped_address (
                  provider text NOT NULL, address text NOT NULL, reason text NOT NULL, dropped_at bigint NOT NULL,
                  PRIMARY KEY (provider, address))
                """,
                "CREATE TABLE provider_token (key text PRIMARY KEY, token text NOT NULL, issued_at bigint NOT NULL)",
                """
                CREATE TABLE activity_start (
                  activity text NOT NULL, device text NOT NULL, started_at bigint NOT NULL, PRIMARY KEY (activity, device))
                """,
                """
                CREATE TABLE activity_history (
                  seq bigserial PRIMARY KEY, activity text NOT NULL, at bigint NOT NULL, kind text NOT NULL,
                  body text NOT NULL)
                """,
                "CREATE INDEX activity_history_activity ON activity_history (activity, seq)",
                "CREATE INDEX activity_history_at ON activity_history (at)",
                """
                CREATE TABLE activity_channel (
                  activity text PRIMARY KEY, provider text NOT NULL, channel text NOT NULL UNIQUE,
                  storage_policy integer NOT NULL, created_at bigint NOT NULL, delete_at bigint,
                  subscribers integer NOT NULL DEFAULT 0)
                """,
                "CREATE INDEX activity_channel_delete ON activity_channel (delete_at) WHERE delete_at IS NOT NULL",
                "CREATE TABLE channel_subscriber (device text PRIMARY KEY, updated_at bigint NOT NULL)",
                "CREATE INDEX outbox_activity ON outbox (activity)",
            ]
        ),
        (
            "v4-start-pace",
            [
                "CREATE TABLE start_pace (key text PRIMARY KEY, sends text NOT NULL, last bigint NOT NULL)",
                "CREATE INDEX start_pace_last ON start_pace (last)",
            ]
        ),
        (
            // Each worker incarnation's heartbeat, on the database's clock in milliseconds: a lapsed one's claims
            // are taken over.
            "v5-worker-heartbeat",
            [
                """
                CREATE TABLE worker_heartbeat (
                  owner text PRIMARY KEY, worker text NOT NULL, started_at bigint NOT NULL, seen_at bigint NOT NULL)
                """,
                "CREATE INDEX outbox_claimed_by ON outbox (claimed_by) WHERE claimed_by IS NOT NULL",
            ]
        ),
        (
            // `activity.changed-at`, `activity.delivered-state` and the facts quiet rules name (see SQLite's
            // v16-activity-changes).
            "v6-activity-changes",
            [
                """
                ALTER TABLE activity ADD COLUMN changed_at bigint, ADD COLUMN delivered_state text,
                  ADD COLUMN delivered_timestamp bigint
                """,
                "UPDATE activity SET changed_at = last_timestamp",
                "ALTER TABLE feed_entity ADD COLUMN fact_changes text",
            ]
        ),
        (
            // What a late joiner's start carries, the activities by entity, and the late joins (see SQLite's
            // v18-late-join).
            "v7-late-join",
            [
                "ALTER TABLE activity ADD COLUMN start text",
                "CREATE INDEX activity_entity ON activity (entity_feed, entity_id)",
                """
                CREATE TABLE late_join (
                  seq bigserial, feed text NOT NULL, entity text NOT NULL, device text NOT NULL, at bigint NOT NULL,
                  PRIMARY KEY (feed, entity, device))
                """,
            ]
        ),
        (
            // Personal subscriptions and the deletions whose activities are still to end (see SQLite's
            // v19-subscriptions).
            "v8-subscriptions",
            [
                """
                CREATE TABLE personal_subscription (
                  id text PRIMARY KEY, device text NOT NULL, feed text NOT NULL, entity text NOT NULL,
                  parameters text NOT NULL, created_at bigint NOT NULL, changed_at bigint NOT NULL)
                """,
                "CREATE INDEX personal_subscription_entity ON personal_subscription (feed, entity)",
                """
                CREATE TABLE deleted_subscription (
                  id text NOT NULL, device text NOT NULL, feed text NOT NULL, entity text NOT NULL,
                  created_at bigint NOT NULL, at bigint NOT NULL, PRIMARY KEY (id, created_at))
                """,
                "CREATE INDEX deleted_subscription_feed ON deleted_subscription (feed, at)",
                """
                CREATE TABLE subscription_generation (
                  feed text NOT NULL, entity text NOT NULL, generation bigint NOT NULL, PRIMARY KEY (feed, entity))
                """,
            ]
        ),
        (
            // A device's subscriptions to an entity, found at once, and an entity's read in id order from its
            // index (see SQLite's v20-subscription-device).
            "v9-subscription-device",
            [
                "CREATE INDEX personal_subscription_device ON personal_subscription (device, feed, entity)",
                "DROP INDEX personal_subscription_entity",
                "CREATE INDEX personal_subscription_entity ON personal_subscription (feed, entity, id COLLATE \"C\")",
            ]
        ),
        (
            // An entity's running activities without its ended ones (see SQLite's v21-activity-entity-running).
            "v10-activity-entity-running",
            [
                "CREATE INDEX activity_entity_running ON activity (entity_feed, entity_id) WHERE phase IN ('pending', 'active')"
            ]
        ),
        (
            // A fan-out stored once, and the chunks of it workers claim (see PostgresStore+FanOuts.swift).
            "v11-outbox-fan-out",
            [
                """
                CREATE TABLE outbox_fan_out (
                  activity text PRIMARY KEY, push text NOT NULL, "timestamp" bigint NOT NULL, provider text NOT NULL,
                  environment text, next_attempt bigint NOT NULL, seq bigint NOT NULL, frontier text NOT NULL)
                """,
                "CREATE INDEX outbox_fan_out_due ON outbox_fan_out (next_attempt, seq)",
                """
                CREATE TABLE outbox_fan_out_chunk (
                  activity text NOT NULL, "timestamp" bigint NOT NULL, first text NOT NULL, last text NOT NULL,
                  cursor text NOT NULL, claimed_by text, claim_expires bigint,
                  PRIMARY KEY (activity, "timestamp", last))
                """,
                "CREATE INDEX outbox_fan_out_chunk_claimed_by ON outbox_fan_out_chunk (claimed_by)",
            ]
        ),
        (
            // Text compared byte by byte, as SQLite and Swift compare it, whatever the database's default
            // collation. Under a linguistic one (en_US.UTF-8, a usual default) every B-tree step of a token
            // import, a fan-out chunk's read and a claim called strcoll: the goal's database CPU was up to a third
            // higher, its token import's insert 1.5-1.8 times as long (BENCHMARKS.md). Their indexes are rebuilt.
            "v12-binary-collation",
            binaryCollation([
                "activity": [
                    "key", "attributes_type", "phase", "state", "entity_feed", "entity_id", "facts", "timers",
                    "delivered_state", "start",
                ],
                "activity_address": ["activity", "provider", "address"],
                "activity_channel": ["activity", "provider", "channel"],
                "activity_history": ["activity", "kind", "body"],
                "activity_start": ["activity", "device"],
                "activity_token": ["activity", "device", "token", "environment"],
                "channel_subscriber": ["device"],
                "deleted_subscription": ["id", "device", "feed", "entity"],
                "device_address": ["device", "provider", "address", "user"],
                "dropped_address": ["provider", "address", "reason"],
                "dropped_token": ["token", "reason"],
                "feed_entity": ["feed", "entity", "facts", "fact_changes"],
                "feed_lease": ["feed", "worker"],
                "feed_state": ["feed", "etag", "last_modified", "not_before_reason"],
                "late_join": ["feed", "entity", "device"],
                "meta": ["key", "value"],
                "outbox": [
                    "activity", "target", "kind", "device", "environment", "push", "address_device", "address_user",
                    "address_activity", "provider", "channel", "claimed_by",
                ],
                "outbox_fan_out": ["activity", "push", "provider", "environment", "frontier"],
                "outbox_fan_out_chunk": ["activity", "first", "last", "cursor", "claimed_by"],
                "personal_subscription": ["id", "device", "feed", "entity", "parameters"],
                "provider_token": ["key", "token"],
                "push_to_start_token": ["device", "attributes_type", "token", "environment"],
                "start_pace": ["key", "sends"],
                "subscription": ["feed", "entity", "device"],
                "subscription_generation": ["feed", "entity"],
                "throttle_state": ["key", "state"],
                "worker_heartbeat": ["owner", "worker"],
            ])
        ),
    ]

    /// One `ALTER TABLE` a table giving each of its text `columns` the "C" collation (a catalog change for a
    /// column no index holds; the table's indexes rebuilt once).
    private static func binaryCollation(_ columns: KeyValuePairs<String, [String]>) -> [String] {
        columns.map { table, names in
            "ALTER TABLE \(table) "
                + names.map { "ALTER COLUMN \"\($0)\" TYPE text COLLATE \"C\"" }.joined(separator: ", ")
        }
    }

    /// Brings the schema up to date and returns the steps it applied (none when it was). Workers starting
    /// together take turns (an advisory lock), so each step runs once.
    @discardableResult
    public func migrate() async throws(Failure) -> [String] {
        try await transaction("migrating the schema") { connection in
            try await connection.checkedQuery("SELECT pg_advisory_xact_lock(7451120)", logger: logger)
            if let schema {
                try await connection.checkedQuery(
                    PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(schema)"), logger: logger)
            }
            try await connection.checkedQuery(
                "CREATE TABLE IF NOT EXISTS liverelay_migration (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
                logger: logger)
            var applied = Set<String>()
            for try await id in try await connection.checkedQuery("SELECT id FROM liverelay_migration", logger: logger)
                .decode(String.self)
            {
                applied.insert(id)
            }
            var done: [String] = []
            for migration in Self.migrations where !applied.contains(migration.id) {
                for statement in migration.statements {
                    try await connection.checkedQuery(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.checkedQuery(
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
                "SELECT id FROM liverelay_migration ORDER BY applied_at, id COLLATE \"C\"", logger: logger
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
        guard let schema else { throw Failure(path: location, message: "no schema of its own to drop") }
        try await execute(
            "dropping schema \(schema)", PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(schema) CASCADE"))
    }
}
