public import LiveRelayCore
import Logging
import PostgresNIO
public import Store

/// The token registry, as the SQLite store keeps it (see ``StateStore``); provider addresses are in
/// `PostgresStore+Addresses.swift`.
extension PostgresStore {
    @discardableResult
    public func registerPushToStartToken(
        device: String, attributesType: String, token: String, environment: PushEnvironment, now: Int
    ) async throws(Failure) -> Bool {
        let token = ActivityTokenAdmission.normalized(token)
        return try await transaction("registering a push-to-start token") { connection in
            let old = try await connection.rows(
                """
                SELECT token FROM push_to_start_token WHERE device = \(device) AND attributes_type = \(attributesType)
                FOR UPDATE
                """, logger: logger
            ).first.map { try $0.decode(String.self) }
            let effects = PushToStartRotation.decide(
                token: token, previous: old, dropped: try await Self.isDropped(token, connection, logger: logger))
            guard effects.stores else { return false }
            if effects.lateJoins {
                try await connection.checkedQuery(
                    """
                    INSERT INTO late_join (feed, entity, device, at)
                    SELECT feed, entity, device, \(now) FROM subscription WHERE device = \(device)
                    ON CONFLICT (feed, entity, device) DO UPDATE SET at = GREATEST(late_join.at, excluded.at)
                    """, logger: logger)
            }
            if let old = effects.movesWaitingStartsFrom {
                try await connection.checkedQuery(
                    """
                    UPDATE outbox o SET target = \(token) WHERE kind = 'push-to-start' AND target = \(old)
                      AND NOT EXISTS (SELECT 1 FROM outbox x WHERE x.activity = o.activity AND x.target = \(token))
                    """, logger: logger)
                try await connection.checkedQuery(
                    "DELETE FROM outbox WHERE kind = 'push-to-start' AND target = \(old)", logger: logger)
            }
            try await connection.checkedQuery(
                """
                INSERT INTO push_to_start_token (device, attributes_type, token, environment, updated_at)
                VALUES (\(device), \(attributesType), \(token), \(environment.rawValue), \(now))
                ON CONFLICT (device, attributes_type) DO UPDATE SET token = excluded.token,
                  environment = excluded.environment, updated_at = excluded.updated_at
                """, logger: logger)
            return true
        }
    }

    @discardableResult
    public func registerActivityToken(
        activity: ActivityKey, device: String, token: String, environment: PushEnvironment, now: Int
    ) async throws(Failure) -> ActivityTokenRegistration {
        let report = ActivityTokenReport(activity: activity, device: device, token: token, environment: environment)
        return try await transaction("registering an activity token") { connection in
            try await admitActivityTokens([report], now: now, connection)[0]
        }
    }

    public func removePushToStartToken(device: String, attributesType: String) async throws(Failure) {
        try await execute(
            "removing a push-to-start token",
            "DELETE FROM push_to_start_token WHERE device = \(device) AND attributes_type = \(attributesType)")
    }

    public func removeActivityToken(activity: ActivityKey, device: String) async throws(Failure) {
        try await execute(
            "removing an activity token",
            "DELETE FROM activity_token WHERE activity = \(activity.rawValue) AND device = \(device)")
    }

    /// Imports tokens in one transaction, as ``registerActivityToken(activity:device:token:environment:now:)``
    /// would one by one. Returns how many were stored.
    @discardableResult
    public func importActivityTokens(
        _ tokens: [(activity: ActivityKey, device: String, token: String, environment: PushEnvironment)], now: Int
    ) async throws(Failure) -> Int {
        guard !tokens.isEmpty else { return 0 }
        let reports = tokens.map {
            ActivityTokenReport(activity: $0.activity, device: $0.device, token: $0.token, environment: $0.environment)
        }
        return try await transaction("importing activity tokens") { connection in
            try await admitActivityTokens(reports, now: now, connection).count { $0 == .stored }
        }
    }

    /// Reads what ``ActivityTokenAdmission`` decides on (the dropped tokens and ended activities among the
    /// reports) and writes the rows it keeps, 50,000 to a statement.
    private func admitActivityTokens(_ reports: [ActivityTokenReport], now: Int, _ connection: PostgresConnection)
        async throws -> [ActivityTokenRegistration]
    {
        let activities = Array(Set(reports.map(\.activity.rawValue)))
        // A large import asks two things first, in one statement. When no token was ever dropped (a new
        // registry), its tokens are not sent to be looked up (a slice of 50,000: 3 MB to encode, send and
        // parse). When its activities hold no token yet (a new match's), its rows go in as they are: there is
        // nothing to conflict with, and the upsert's conflict handling costs half as much again (50,000 rows:
        // 260-275 ms against 170); a row another writer stored meanwhile fails the plain insert, and the upsert
        // runs instead.
        let (anyDropped, holdTokens) =
            reports.count < Self.largeImport
            ? (true, true) : try await Self.largeImportFacts(activities, connection, logger: logger)
        var dropped = Set<String>()
        if anyDropped {
            let tokens = Array(Set(reports.map { ActivityTokenAdmission.normalized($0.token) }))
            for row in try await connection.rows(
                "SELECT token FROM dropped_token WHERE token = ANY(\(tokens)::text[])", logger: logger)
            {
                dropped.insert(try row.decode(String.self))
            }
        }
        var ended = Set<ActivityKey>()
        for row in try await connection.rows(
            """
            SELECT key FROM activity WHERE key = ANY(\(activities)::text[])
              AND phase = \(ActivityPhase.ended.rawValue)
            """, logger: logger)
        {
            ended.insert(ActivityKey(try row.decode(String.self)))
        }
        let (verdicts, rows) = ActivityTokenAdmission.decide(reports, dropped: dropped, ended: ended)
        var fresh = !holdTokens
        for start in stride(from: 0, to: rows.count, by: 50_000) {
            let chunk = Array(rows[start..<min(start + 50_000, rows.count)])
            if fresh {
                try await connection.checkedQuery("SAVEPOINT fresh_tokens", logger: logger)
                do {
                    try await connection.checkedQuery(Self.insertTokens(chunk, now: now, upsert: false), logger: logger)
                    try await connection.checkedQuery("RELEASE SAVEPOINT fresh_tokens", logger: logger)
                    continue
                } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                    try await connection.checkedQuery("ROLLBACK TO SAVEPOINT fresh_tokens", logger: logger)
                    fresh = false
                }
            }
            try await connection.checkedQuery(Self.insertTokens(chunk, now: now, upsert: true), logger: logger)
        }
        // Without fresh statistics a fan-out's chunk query sorts every device after the frontier (60 ms a chunk
        // at 200,000) until autovacuum looks, up to a minute later: measured now, for the columns that query
        // reads (with the token's 64 characters it took 10-12 ms at 20,000 rows, without them 4-5).
        if rows.count >= Self.analyzeAfterImporting {
            try await connection.checkedQuery("ANALYZE activity_token (activity, device, environment)", logger: logger)
        }
        return verdicts
    }

    /// The imported rows after which the token table's statistics are measured again at once.
    static let analyzeAfterImporting = 1000

    /// The reports from which an import is large: it asks whether any token was ever dropped before looking
    /// its tokens up, and whether its activities hold tokens before inserting its rows.
    static let largeImport = 100

    /// Whether any token was ever dropped, and whether any of `activities` holds an update token.
    private static func largeImportFacts(_ activities: [String], _ connection: PostgresConnection, logger: Logger)
        async throws -> (anyDropped: Bool, holdTokens: Bool)
    {
        let rows = try await connection.rows(
            """
            SELECT EXISTS (SELECT 1 FROM dropped_token),
              EXISTS (SELECT 1 FROM activity_token WHERE activity = ANY(\(activities)::text[]))
            """, logger: logger)
        return try rows.first?.decode((Bool, Bool).self) ?? (true, true)
    }

    /// The statement storing `rows`: an insert, or with `upsert` one that replaces the token of a device the
    /// activity holds already.
    private static func insertTokens(_ rows: [ActivityTokenReport], now: Int, upsert: Bool) -> PostgresQuery {
        var query: PostgresQuery = """
            INSERT INTO activity_token (activity, device, token, environment, updated_at)
            SELECT a, d, t, e, \(now) FROM unnest(\(rows.map(\.activity.rawValue))::text[],
              \(rows.map(\.device))::text[], \(rows.map(\.token))::text[],
              \(rows.map(\.environment.rawValue))::text[]) AS r(a, d, t, e)
            """
        if upsert {
            query.sql += """

                ON CONFLICT (activity, device) DO UPDATE SET token = excluded.token,
                  environment = excluded.environment, updated_at = excluded.updated_at
                """
        }
        return query
    }

    public func subscribe(device: String, to entity: EntityKey, now: Int) async throws(Failure) {
        // A new follower of an entity whose activity already runs joins it late.
        try await execute(
            "subscribing a device",
            """
            WITH added AS (
              INSERT INTO subscription (feed, entity, device) VALUES (\(entity.feed), \(entity.id), \(device))
              ON CONFLICT DO NOTHING RETURNING feed, entity, device)
            INSERT INTO late_join (feed, entity, device, at) SELECT feed, entity, device, \(now) FROM added
            ON CONFLICT (feed, entity, device) DO UPDATE SET at = GREATEST(late_join.at, excluded.at)
            """)
    }

    public func unsubscribe(device: String, from entity: EntityKey) async throws(Failure) {
        try await transaction("unsubscribing a device") { connection in
            try await connection.checkedQuery(
                "DELETE FROM subscription WHERE feed = \(entity.feed) AND entity = \(entity.id) AND device = \(device)",
                logger: logger)
            try await connection.checkedQuery(
                "DELETE FROM late_join WHERE feed = \(entity.feed) AND entity = \(entity.id) AND device = \(device)",
                logger: logger)
        }
    }

    public func pushToStartTokens(entity: EntityKey, attributesType: String, environment: PushEnvironment?)
        async throws(Failure) -> [RegisteredToken]
    {
        try await tokens(
            "reading push-to-start tokens",
            Self.pushToStartTokens(entity: entity, attributesType: attributesType, environment: environment))
    }

    public func activityTokens(activity: ActivityKey, environment: PushEnvironment?) async throws(Failure)
        -> [RegisteredToken]
    {
        try await tokens("reading activity tokens", Self.activityTokens(activity: activity, environment: environment))
    }

    /// The push-to-start tokens of the devices subscribed to `entity`; with `device`, see
    /// ``pushToStartTokens(entity:attributesType:environment:followers:)``.
    static func pushToStartTokens(
        entity: EntityKey, attributesType: String, environment: PushEnvironment?, device: String? = nil
    ) -> PostgresQuery {
        if let device {
            return pushToStartTokens(
                entity: entity, attributesType: attributesType, environment: environment, followers: [device])
        }
        return """
            SELECT t.device, t.token, t.environment, c.device IS NOT NULL
            FROM push_to_start_token t
            JOIN subscription s ON s.device = t.device
            LEFT JOIN channel_subscriber c ON c.device = t.device
            WHERE s.feed = \(entity.feed) AND s.entity = \(entity.id) AND t.attributes_type = \(attributesType)
              AND (\(environment?.rawValue)::text IS NULL OR t.environment = \(environment?.rawValue))
            ORDER BY t.device COLLATE "C"
            """
    }

    static func activityTokens(activity: ActivityKey, environment: PushEnvironment?) -> PostgresQuery {
        """
        SELECT t.device, t.token, t.environment, c.device IS NOT NULL
        FROM activity_token t LEFT JOIN channel_subscriber c ON c.device = t.device
        WHERE t.activity = \(activity.rawValue)
          AND (\(environment?.rawValue)::text IS NULL OR t.environment = \(environment?.rawValue))
        ORDER BY t.device COLLATE "C"
        """
    }

    private func tokens(_ what: String, _ query: PostgresQuery) async throws(Failure) -> [RegisteredToken] {
        try registered(try await rows(what, query), what)
    }

    func registered(_ rows: [PostgresRow], _ what: String) throws(Failure) -> [RegisteredToken] {
        var out: [RegisteredToken] = []
        out.reserveCapacity(rows.count)
        for row in rows {
            let (device, token, environment, subscriber) = try decode(row, (String, String, String, Bool).self, what)
            out.append(
                RegisteredToken(
                    device: device, token: token, environment: PushEnvironment(rawValue: environment),
                    channelSubscriber: subscriber))
        }
        return out
    }

    public func dropToken(_ token: String, reason: String, now: Int) async throws(Failure) {
        let token = token.lowercased()
        try await executeAll(
            "dropping a token",
            [
                "DELETE FROM push_to_start_token WHERE token = \(token)",
                "DELETE FROM activity_token WHERE token = \(token)",
                """
                INSERT INTO dropped_token (token, reason, dropped_at) VALUES (\(token), \(reason), \(now))
                ON CONFLICT DO NOTHING
                """,
            ])
    }

    public func isDropped(_ token: String) async throws(Failure) -> Bool {
        try await run("reading dropped tokens") { client in
            try await client.withConnection { connection in
                try await Self.isDropped(token.lowercased(), connection, logger: logger)
            }
        }
    }

    private static func isDropped(_ token: String, _ connection: PostgresConnection, logger: Logger) async throws
        -> Bool
    {
        try await !connection.rows("SELECT 1 FROM dropped_token WHERE token = \(token)", logger: logger).isEmpty
    }

    public func registryRows(_ query: RegistryQuery) async throws(Failure) -> RegistryRows {
        try await registryRows([query])[0]
    }

    /// Answers many registry queries (a release round's pushes) in one transaction: the queries of
    /// ``OneDeviceStarts``' groups in one statement per group (a poll that starts 1,000 personal alerts, one
    /// read), the others a statement or two each, with no `BEGIN` and `COMMIT` of their own. Provider
    /// addresses are read after it, for the queries that ask for them.
    public func registryRows(_ queries: [RegistryQuery]) async throws(Failure) -> [RegistryRows] {
        guard !queries.isEmpty else { return [] }
        let starts = OneDeviceStarts(queries)
        let grouped = Set(starts.groups.flatMap(\.queries))
        let found = try await transaction("reading push targets") { connection in
            var groups: [[PostgresRow]] = []
            for (group, devices, _) in starts.groups {
                groups.append(
                    try await connection.rows(
                        Self.pushToStartTokens(
                            entity: group.entity, attributesType: group.attributesType,
                            environment: group.environment, followers: devices),
                        logger: logger))
            }
            var each: [Int: (tokens: [PostgresRow], subscribers: [String])] = [:]
            for (i, query) in queries.enumerated() where !grouped.contains(i) {
                each[i] = try await Self.read(query, connection, logger: logger)
            }
            return (groups, each)
        }
        var out = [RegistryRows](repeating: RegistryRows(), count: queries.count)
        for (g, (_, _, indices)) in starts.groups.enumerated() {
            let tokens = try registered(found.0[g], "reading push targets")
            for (i, rows) in OneDeviceStarts.answers(indices, of: queries, tokens: tokens) { out[i] = rows }
        }
        for (i, read) in found.1 {
            out[i].tokens = try registered(read.tokens, "reading push targets")
            out[i].subscribers = read.subscribers
            guard let registry = queries[i].registry else { continue }
            var devices = out[i].subscribers
            var seen = Set(devices)
            for token in out[i].tokens where seen.insert(token.device).inserted { devices.append(token.device) }
            out[i].addresses = try await addresses(provider: registry, devices: devices)
            out[i].activityAddress = try await activityAddress(activity: queries[i].activity, provider: registry)
        }
        return out
    }

    /// One query's tokens and subscribers, on `connection`.
    private static func read(_ query: RegistryQuery, _ connection: PostgresConnection, logger: Logger) async throws
        -> (tokens: [PostgresRow], subscribers: [String])
    {
        var tokens: [PostgresRow] = []
        switch query.tokens {
        case .pushToStart(let entity, let attributesType)?:
            tokens = try await connection.rows(
                pushToStartTokens(
                    entity: entity, attributesType: attributesType, environment: query.environment,
                    device: query.device),
                logger: logger)
        case .activity(let activity)?:
            tokens = try await connection.rows(
                activityTokens(activity: activity, environment: query.environment), logger: logger)
        case nil:
            break
        }
        var subscribers: [String] = []
        if let entity = query.subscribers {
            for row in try await connection.rows(
                subscribedDevices(entity: entity, device: query.device), logger: logger)
            {
                subscribers.append(try row.decode(String.self))
            }
        }
        return (tokens, subscribers)
    }
}
