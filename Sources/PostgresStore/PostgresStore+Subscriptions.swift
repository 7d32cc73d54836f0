public import LiveRelayCore
import PostgresNIO
public import Store

/// Personal subscriptions and their deletions, as the SQLite store keeps them (see ``StateStore``), and the
/// registry's look at one device, which follows an entity through a plain subscription or a personal one.
extension PostgresStore {
    static let subscriptionColumns = "id, device, feed, entity, parameters, created_at, changed_at"

    public func putSubscription(_ subscription: Subscription, now: Int) async throws(Failure) -> SubscriptionWrite {
        let s = subscription
        let parameters = StoredValues.parametersText(s.parameters)
        let what = "writing a subscription"
        return try await transaction(what) { connection in
            // A deletion committed between the insert that found the id taken and the read of its row leaves
            // nothing to read: the insert is tried again.
            for _ in 0..<3 {
                let inserted = try await connection.rows(
                    """
                    INSERT INTO personal_subscription (id, device, feed, entity, parameters, created_at, changed_at)
                    VALUES (\(s.id), \(s.device), \(s.entity.feed), \(s.entity.id), \(parameters), \(s.createdAt),
                      \(s.createdAt))
                    ON CONFLICT (id) DO NOTHING RETURNING id
                    """, logger: logger)
                if !inserted.isEmpty {
                    try await connection.checkedQuery(Self.bumpGeneration(s.entity), logger: logger)
                    return .created
                }
                guard
                    let row = try await connection.rows(
                        """
                        SELECT \(unescaped: Self.subscriptionColumns) FROM personal_subscription WHERE id = \(s.id)
                        FOR UPDATE
                        """, logger: logger
                    ).first
                else { continue }
                let put = SubscriptionPut.decide(s, existing: try self.subscription(row, what))
                if put == .update {
                    try await connection.checkedQuery(
                        """
                        UPDATE personal_subscription SET parameters = \(parameters), changed_at = \(now)
                        WHERE id = \(s.id)
                        """, logger: logger)
                    try await connection.checkedQuery(Self.bumpGeneration(s.entity), logger: logger)
                }
                return put.outcome
            }
            throw Failure(path: location, message: "\(what): subscription \(s.id) kept changing under the write")
        }
    }

    @discardableResult
    public func importSubscriptions(_ subscriptions: [Subscription], now: Int) async throws(Failure) -> Int {
        // (One write each: an import through PostgreSQL is for token files and tests, not for millions.)
        var refused = 0
        for subscription in subscriptions {
            if case .conflict = try await putSubscription(subscription, now: now) { refused += 1 }
        }
        return refused
    }

    public func subscription(id: String) async throws(Failure) -> Subscription? {
        let what = "reading a subscription"
        for row in try await rows(
            what, "SELECT \(unescaped: Self.subscriptionColumns) FROM personal_subscription WHERE id = \(id)")
        {
            return try subscription(row, what)
        }
        return nil
    }

    @discardableResult
    public func deleteSubscription(id: String, now: Int) async throws(Failure) -> Bool {
        // One statement: the row goes and its deletion is kept together. The same id created and deleted again
        // within the second keeps the deletion already waiting.
        try await !rows(
            "deleting a subscription",
            """
            WITH gone AS (
              DELETE FROM personal_subscription WHERE id = \(id) RETURNING id, device, feed, entity, created_at),
            kept AS (
              INSERT INTO deleted_subscription (id, device, feed, entity, created_at, at)
              SELECT id, device, feed, entity, created_at, \(now) FROM gone ON CONFLICT (id, created_at) DO NOTHING),
            bumped AS (
              INSERT INTO subscription_generation (feed, entity, generation) SELECT feed, entity, 1 FROM gone
              ON CONFLICT (feed, entity) DO UPDATE SET generation = subscription_generation.generation + 1)
            SELECT id FROM gone
            """
        ).isEmpty
    }

    public func subscriptions(of entities: [EntityKey]) async throws(Failure) -> [EntityKey: [Subscription]] {
        let unique = Array(Set(entities))
        guard !unique.isEmpty else { return [:] }
        let what = "reading subscriptions"
        var out: [EntityKey: [Subscription]] = [:]
        for row in try await rows(
            what,
            """
            SELECT \(unescaped: Self.subscriptionColumns) FROM personal_subscription p
            JOIN unnest(\(unique.map(\.feed))::text[], \(unique.map(\.id))::text[]) AS r(f, e)
              ON p.feed = r.f AND p.entity = r.e
            ORDER BY p.id COLLATE "C"
            """)
        {
            let subscription = try subscription(row, what)
            out[subscription.entity, default: []].append(subscription)
        }
        return out
    }

    /// Counts a write of the entity's subscriptions (``subscriptionGenerations(of:)``).
    static func bumpGeneration(_ entity: EntityKey) -> PostgresQuery {
        """
        INSERT INTO subscription_generation (feed, entity, generation) VALUES (\(entity.feed), \(entity.id), 1)
        ON CONFLICT (feed, entity) DO UPDATE SET generation = subscription_generation.generation + 1
        """
    }

    public func subscriptionAlerts(of entities: [EntityKey]) async throws(Failure) -> [EntityKey: [SubscriptionAlerts]]
    {
        let unique = Array(Set(entities))
        guard !unique.isEmpty else { return [:] }
        let what = "counting subscriptions' alerts"
        var out: [EntityKey: [SubscriptionAlerts]] = [:]
        for row in try await rows(
            what,
            """
            SELECT f, e, o->>'id', o->>'device', (o->>'created-at')::bigint,
              count(*) FILTER (WHERE phase <> 'ended'), count(*) FILTER (WHERE phase = 'ended')
            FROM (SELECT r.f, r.e, a.phase, a.start::jsonb->'subscription' AS o FROM activity a
                  JOIN unnest(\(unique.map(\.feed))::text[], \(unique.map(\.id))::text[]) AS r(f, e)
                    ON a.entity_feed = r.f AND a.entity_id = r.e
                  WHERE a.start IS NOT NULL) s
            WHERE o->>'id' IS NOT NULL AND o->>'device' IS NOT NULL AND o->>'created-at' IS NOT NULL
            GROUP BY 1, 2, 3, 4, 5
            """)
        {
            let (feed, entity, id, device, createdAt, running, ended) = try decode(
                row, (String, String, String, String, Int, Int, Int).self, what)
            out[EntityKey(feed: feed, id: entity), default: []].append(
                SubscriptionAlerts(
                    owner: SubscriptionOwner(id: id, device: device, createdAt: createdAt), running: running,
                    ended: ended))
        }
        return out
    }

    public func subscriptionGenerations(of entities: [EntityKey]) async throws(Failure) -> [EntityKey: Int] {
        let unique = Array(Set(entities))
        guard !unique.isEmpty else { return [:] }
        let what = "reading subscription generations"
        var out: [EntityKey: Int] = [:]
        for row in try await rows(
            what,
            """
            SELECT g.feed, g.entity, g.generation FROM subscription_generation g
            JOIN unnest(\(unique.map(\.feed))::text[], \(unique.map(\.id))::text[]) AS r(f, e)
              ON g.feed = r.f AND g.entity = r.e
            """)
        {
            let (feed, entity, generation) = try decode(row, (String, String, Int).self, what)
            out[EntityKey(feed: feed, id: entity)] = generation
        }
        return out
    }

    public func deletedSubscriptions(feed: String, limit: Int) async throws(Failure) -> [DeletedSubscription] {
        let what = "reading deleted subscriptions"
        var out: [DeletedSubscription] = []
        for row in try await rows(
            what,
            """
            SELECT id, device, entity, created_at, at FROM deleted_subscription WHERE feed = \(feed)
            ORDER BY at, id COLLATE "C", created_at LIMIT \(limit)
            """)
        {
            let (id, device, entity, createdAt, at) = try decode(row, (String, String, String, Int, Int).self, what)
            out.append(
                DeletedSubscription(
                    owner: SubscriptionOwner(id: id, device: device, createdAt: createdAt),
                    entity: EntityKey(feed: feed, id: entity), at: at))
        }
        return out
    }

    public func finishDeletedSubscriptions(_ deleted: [DeletedSubscription]) async throws(Failure) {
        guard !deleted.isEmpty else { return }
        try await execute(
            "forgetting deleted subscriptions",
            """
            DELETE FROM deleted_subscription d
            USING unnest(\(deleted.map(\.owner.id))::text[], \(deleted.map(\.owner.createdAt))::bigint[]) AS r(i, c)
            WHERE d.id = r.i AND d.created_at = r.c
            """)
    }

    /// A subscription from its row (``subscriptionColumns``).
    func subscription(_ row: PostgresRow, _ what: String) throws(Failure) -> Subscription {
        let (id, device, feed, entity, parameters, createdAt, changedAt) = try decode(
            row, (String, String, String, String, String, Int, Int).self, what)
        return Subscription(
            id: id, device: device, entity: EntityKey(feed: feed, id: entity),
            parameters: try StoredValues.parameters(parameters, subscription: id, location: location),
            createdAt: createdAt, changedAt: changedAt)
    }

    // MARK: One device's registry rows

    /// The push-to-start tokens for `attributesType` of each of `devices` that follows `entity` through a plain
    /// subscription or a personal one, in one statement (one device's: the start of its own activity, or of a
    /// late joiner's; several: ``OneDeviceStarts``); only those of `environment` unless it is `nil`.
    static func pushToStartTokens(
        entity: EntityKey, attributesType: String, environment: PushEnvironment?, followers devices: [String]
    ) -> PostgresQuery {
        """
        SELECT t.device, t.token, t.environment, c.device IS NOT NULL
        FROM push_to_start_token t
        LEFT JOIN channel_subscriber c ON c.device = t.device
        WHERE t.device = ANY(\(devices)::text[]) AND t.attributes_type = \(attributesType)
          AND (\(environment?.rawValue)::text IS NULL OR t.environment = \(environment?.rawValue))
          AND (EXISTS (SELECT 1 FROM subscription s
              WHERE s.feed = \(entity.feed) AND s.entity = \(entity.id) AND s.device = t.device)
            OR EXISTS (SELECT 1 FROM personal_subscription p
              WHERE p.feed = \(entity.feed) AND p.entity = \(entity.id) AND p.device = t.device))
        ORDER BY t.device COLLATE "C"
        """
    }

    /// `device` (one row) when it follows `entity` through a plain subscription or a personal one; no row else.
    static func follower(_ device: String, of entity: EntityKey) -> PostgresQuery {
        """
        SELECT \(device)::text
        WHERE EXISTS (SELECT 1 FROM subscription WHERE feed = \(entity.feed) AND entity = \(entity.id) AND device = \(device))
          OR EXISTS (SELECT 1 FROM personal_subscription
            WHERE feed = \(entity.feed) AND entity = \(entity.id) AND device = \(device))
        """
    }
}
