public import Foundation
public import LiveRelayCore
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
public import Store
import Synchronization

/// Feeds, throttle states, history and provider tokens: as the SQLite store keeps them (see
/// ``StateStore``).
extension PostgresStore {
    /// Connects, brings the schema up to date and reads what providers read synchronously: what a worker
    /// does before it uses the store.
    public func open() async throws(Failure) {
        try await check()
        try await migrate()
        try await forgetOldHeartbeats()
        // The first heartbeat: the claims this worker takes are its own from now on.
        _ = try await heartbeat()
        var tokens: [String: (token: String, issuedAt: Int)] = [:]
        for row in try await rows("reading provider tokens", "SELECT key, token, issued_at FROM provider_token") {
            do {
                let (key, token, issuedAt) = try row.decode((String, String, Int).self)
                tokens[key] = (token, issuedAt)
            } catch {
                throw Failure(path: location, message: "reading provider tokens: \(error)")
            }
        }
        providerTokens.replace(tokens)
    }

    public func facts(feed: String) async throws(Failure) -> [String: Facts] {
        var out: [String: Facts] = [:]
        for row in try await rows("reading facts", "SELECT entity, facts FROM feed_entity WHERE feed = \(feed)") {
            let (entity, text) = try decode(row, (String, String).self, "reading facts")
            out[entity] = try StoredValues.facts(text, of: "\(feed)/\(entity)", location: location)
        }
        return out
    }

    public func facts(of entities: Set<EntityKey>) async throws(Failure) -> [EntityKey: Facts] {
        guard !entities.isEmpty else { return [:] }
        let list = Array(entities)
        var out: [EntityKey: Facts] = [:]
        for row in try await rows(
            "reading facts",
            """
            SELECT f.feed, f.entity, f.facts FROM feed_entity f
            JOIN unnest(\(list.map(\.feed))::text[], \(list.map(\.id))::text[]) AS q(feed, entity)
              ON f.feed = q.feed AND f.entity = q.entity
            """)
        {
            let (feed, id, text) = try decode(row, (String, String, String).self, "reading facts")
            let entity = EntityKey(feed: feed, id: id)
            out[entity] = try StoredValues.facts(text, of: "\(entity)", location: location)
        }
        return out
    }

    public func validators(feed: String) async throws(Failure) -> (etag: String?, lastModified: String?) {
        for row in try await rows(
            "reading validators", "SELECT etag, last_modified FROM feed_state WHERE feed = \(feed)")
        {
            return try decode(row, (String?, String?).self, "reading validators")
        }
        return (nil, nil)
    }

    public func commit(_ commit: FeedCommit) async throws(Failure) {
        let location = location
        try await transaction("saving a poll") { connection in
            if let facts = commit.facts {
                if !commit.removedEntities.isEmpty {
                    try await connection.checkedQuery(
                        """
                        DELETE FROM feed_entity WHERE feed = \(commit.feed)
                          AND entity = ANY(\(commit.removedEntities)::text[])
                        """, logger: logger)
                }
                if !facts.isEmpty {
                    let ids = Array(facts.keys)
                    try await connection.checkedQuery(
                        """
                        INSERT INTO feed_entity (feed, entity, facts, updated_at, fact_changes)
                        SELECT \(commit.feed), e, f, \(commit.now), NULLIF(c, '')
                        FROM unnest(\(ids)::text[], \(ids.map { facts[$0]!.value.jsonString() })::text[],
                          \(ids.map { commit.factChangesText(of: $0) ?? "" })::text[]) AS r(e, f, c)
                        ON CONFLICT (feed, entity) DO UPDATE SET facts = excluded.facts, updated_at = excluded.updated_at,
                          fact_changes = CASE WHEN excluded.fact_changes IS NULL THEN feed_entity.fact_changes
                            ELSE (COALESCE(feed_entity.fact_changes, '{}')::jsonb || excluded.fact_changes::jsonb)::text END
                        """, logger: logger)
                }
            }
            try await connection.checkedQuery(
                """
                INSERT INTO feed_state (feed, etag, last_modified, last_success)
                VALUES (\(commit.feed), \(commit.etag), \(commit.lastModified), \(commit.now))
                ON CONFLICT (feed) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified,
                  last_success = excluded.last_success
                """, logger: logger)
            try await Self.save(commit.activities, connection, logger: logger, location: location)
            try await Self.saveThrottleStates(commit.throttleStates, connection, logger: logger)
            try await Self.saveHistory(commit.history, connection, logger: logger)
        }
    }

    public func feedSchedule(feed: String) async throws(Failure) -> SavedFeedSchedule? {
        for row in try await rows(
            "reading a feed's schedule",
            "SELECT failures, not_before, not_before_reason FROM feed_state WHERE feed = \(feed)")
        {
            let (failures, notBefore, reason) = try decode(row, (Int, Int?, String?).self, "reading a feed's schedule")
            return SavedFeedSchedule(failures: failures, notBefore: notBefore, reason: reason)
        }
        return nil
    }

    public func saveFeedSchedule(feed: String, _ schedule: SavedFeedSchedule) async throws(Failure) {
        try await execute(
            "saving a feed's schedule",
            """
            INSERT INTO feed_state (feed, failures, not_before, not_before_reason)
            VALUES (\(feed), \(schedule.failures), \(schedule.notBefore), \(schedule.reason))
            ON CONFLICT (feed) DO UPDATE SET failures = excluded.failures, not_before = excluded.not_before,
              not_before_reason = excluded.not_before_reason
            """)
    }

    // MARK: Throttle states

    public func throttleStates(pendingOnly: Bool) async throws(Failure) -> [ActivityKey: Data] {
        let query: PostgresQuery =
            pendingOnly
            ? "SELECT key, state FROM throttle_state WHERE pending" : "SELECT key, state FROM throttle_state"
        return try await throttleRows(query)
    }

    public func throttleStates(_ keys: [ActivityKey]) async throws(Failure) -> [ActivityKey: Data] {
        guard !keys.isEmpty else { return [:] }
        return try await throttleRows(
            "SELECT key, state FROM throttle_state WHERE key = ANY(\(keys.map(\.rawValue))::text[])")
    }

    private func throttleRows(_ query: PostgresQuery) async throws(Failure) -> [ActivityKey: Data] {
        var out: [ActivityKey: Data] = [:]
        for row in try await rows("reading throttle states", query) {
            let (key, state) = try decode(row, (String, String).self, "reading throttle states")
            out[ActivityKey(key)] = Data(state.utf8)
        }
        return out
    }

    public func saveThrottleStates(_ states: [(key: ActivityKey, json: Data, pending: Bool)]) async throws(Failure) {
        guard !states.isEmpty else { return }
        try await transaction("saving throttle states") { connection in
            try await Self.saveThrottleStates(states, connection, logger: logger)
        }
    }

    static func saveThrottleStates(
        _ states: [(key: ActivityKey, json: Data, pending: Bool)], _ connection: PostgresConnection, logger: Logger
    ) async throws {
        guard !states.isEmpty else { return }
        // The last state per activity wins, as consecutive writes would decide.
        var last: [ActivityKey: Int] = [:]
        for (i, s) in states.enumerated() { last[s.key] = i }
        let kept = last.values.sorted().map { states[$0] }
        try await connection.checkedQuery(
            """
            INSERT INTO throttle_state (key, state, pending)
            SELECT * FROM unnest(\(kept.map(\.key.rawValue))::text[],
              \(kept.map { String(decoding: $0.json, as: UTF8.self) })::text[], \(kept.map(\.pending))::boolean[])
            ON CONFLICT (key) DO UPDATE SET state = excluded.state, pending = excluded.pending
            """, logger: logger)
    }

    // MARK: History

    static func saveHistory(_ write: HistoryWrite?, _ connection: PostgresConnection, logger: Logger) async throws {
        guard let write, !write.rows.isEmpty else { return }
        try await connection.checkedQuery("DELETE FROM activity_history WHERE at < \(write.keepFrom)", logger: logger)
        let rows = write.rows.filter { $0.at >= write.keepFrom }
        guard !rows.isEmpty else { return }
        try await connection.checkedQuery(
            """
            INSERT INTO activity_history (activity, at, kind, body)
            SELECT a, t, k, b FROM unnest(\(rows.map(\.activity))::text[], \(rows.map(\.at))::bigint[],
              \(rows.map(\.kind.rawValue))::text[], \(rows.map { String(decoding: $0.body, as: UTF8.self) })::text[])
              WITH ORDINALITY AS r(a, t, k, b, n)
            ORDER BY n
            """, logger: logger)
    }

    public func history(activity: String, from: Int, limit: Int) async throws(Failure) -> (
        rows: [HistoryRow], truncated: Bool
    ) {
        let found = try await rows(
            "reading an activity's history",
            """
            SELECT at, kind, body FROM activity_history WHERE activity = \(activity) AND at >= \(from)
            ORDER BY seq DESC LIMIT \(limit + 1)
            """)
        var kept: [HistoryRow] = []
        for row in found.prefix(limit).reversed() {
            let (at, kind, body) = try decode(row, (Int, String, String).self, "reading an activity's history")
            if let kind = HistoryRow.Kind(rawValue: kind) {
                kept.append(HistoryRow(activity: activity, at: at, kind: kind, body: Data(body.utf8)))
            }
        }
        return (kept, found.count > limit)
    }

    // MARK: Provider tokens

    public func providerToken(key: String) async -> (token: String, issuedAt: Int)? { providerTokens.get(key) }

    /// Saves the token unless another worker saved one issued less than 20 minutes before it, and returns
    /// the one to use. Awaited off the provider's lock; if the database does not answer within 5 seconds
    /// (or fails), the token minted here is used.
    public func saveProviderToken(key: String, token: String, issuedAt: Int) async -> (token: String, issuedAt: Int) {
        var use = (token: token, issuedAt: issuedAt)
        let answer = await withTaskGroup(of: Result<(token: String, issuedAt: Int)?, Failure>?.self) { group in
            group.addTask {
                do throws(Failure) {
                    try await self.execute(
                        "saving a provider token",
                        """
                        INSERT INTO provider_token (key, token, issued_at) VALUES (\(key), \(token), \(issuedAt))
                        ON CONFLICT (key) DO UPDATE SET token = excluded.token, issued_at = excluded.issued_at
                        WHERE provider_token.issued_at <= excluded.issued_at - 1200
                        """)
                    let found = try await self.rows(
                        "reading the provider token", "SELECT token, issued_at FROM provider_token WHERE key = \(key)")
                    guard let row = found.first else { return .success(nil) }
                    let (kept, at) = try self.decode(row, (String, Int).self, "reading the provider token")
                    return .success((kept, at))
                } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(5))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        switch answer {
        case .success(let kept?)?:
            use = kept
        case .success(nil)?:
            break
        case .failure(let error)?:
            // The token works from memory; APNs may refuse it if another worker minted one just before.
            logger.warning("provider token not shared: \(error)")
        case nil:
            logger.warning("provider token not shared: the database did not answer within 5 seconds")
        }
        providerTokens.set(key, use)
        return use
    }

    /// Decodes a row, a failure saying what was being read.
    func decode<each T: PostgresDecodable>(_ row: PostgresRow, _ type: (repeat each T).Type, _ what: String)
        throws(Failure) -> (repeat each T)
    {
        do {
            return try row.decode(type)
        } catch {
            throw Failure(path: location, message: "\(what): \(error)")
        }
    }
}
