import Foundation
import GRDB
public import LiveRelayCore

/// Personal subscriptions (``Subscription``): a device's own subscription to an entity, with the parameters
/// its rules read, kept in `personal_subscription`; a deleted one waits in `deleted_subscription` until the
/// worker has ended its activities (``DeletedSubscription``). A personal subscription is not a plain one
/// (`subscription`): shared starts never reach it, and it records no late join.
extension SQLiteStore {
    static func registerSubscriptionsMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v19-subscriptions") { db in
            try db.create(table: "personal_subscription") { t in
                t.column("id", .text).primaryKey()
                t.column("device", .text).notNull()
                t.column("feed", .text).notNull()
                t.column("entity", .text).notNull()
                t.column("parameters", .text).notNull()
                t.column("created_at", .integer).notNull()
                t.column("changed_at", .integer).notNull()
            }
            try db.create(
                index: "personal_subscription_entity", on: "personal_subscription", columns: ["feed", "entity"])
            try db.create(table: "deleted_subscription") { t in
                t.column("id", .text).notNull()
                t.column("device", .text).notNull()
                t.column("feed", .text).notNull()
                t.column("entity", .text).notNull()
                t.column("created_at", .integer).notNull()
                t.column("at", .integer).notNull()
                t.primaryKey(["id", "created_at"])
            }
            try db.create(index: "deleted_subscription_feed", on: "deleted_subscription", columns: ["feed", "at"])
            try db.create(table: "subscription_generation") { t in
                t.column("feed", .text).notNull()
                t.column("entity", .text).notNull()
                t.column("generation", .integer).notNull()
                t.primaryKey(["feed", "entity"])
            }
        }
        // A device's subscriptions to an entity, found at once: a personal start looks its device up among the
        // entity's subscriptions (a million on one symbol), which the entity index alone would scan. And an
        // entity's subscriptions read in id order from the entity index, not sorted after the read.
        migrator.registerMigration("v20-subscription-device") { db in
            try db.create(
                index: "personal_subscription_device", on: "personal_subscription",
                columns: ["device", "feed", "entity"])
            try db.drop(index: "personal_subscription_entity")
            try db.create(
                index: "personal_subscription_entity", on: "personal_subscription", columns: ["feed", "entity", "id"])
        }
        // An entity's running activities without its ended ones (a symbol keeps every alert it ever had).
        migrator.registerMigration("v21-activity-entity-running") { db in
            try db.execute(
                sql: """
                    CREATE INDEX activity_entity_running ON activity (entity_feed, entity_id)
                    WHERE phase IN ('pending', 'active')
                    """)
        }
    }

    /// Counts a write of the entity's subscriptions (``subscriptionGenerations(of:)``).
    static func bumpGeneration(_ entity: EntityKey, _ db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO subscription_generation (feed, entity, generation) VALUES (?, ?, 1)
                ON CONFLICT(feed, entity) DO UPDATE SET generation = generation + 1
                """
        ).execute(arguments: [entity.feed, entity.id])
    }

    public func subscriptionAlerts(of entities: [EntityKey]) async throws(Failure) -> [EntityKey: [SubscriptionAlerts]]
    {
        try await run(
            "counting subscriptions' alerts",
            { db in
                // A start that is not JSON (none is written so) counts as no subscription's.
                let select = try db.cachedStatement(
                    sql: """
                        SELECT id, device, created_at, SUM(phase <> 'ended') AS running, SUM(phase = 'ended') AS ended
                        FROM (
                          SELECT phase, json_extract(s, '$.subscription.id') AS id,
                            json_extract(s, '$.subscription.device') AS device,
                            json_extract(s, '$.subscription.created-at') AS created_at
                          FROM (SELECT phase, CASE WHEN json_valid(start) THEN start END AS s FROM activity
                                WHERE entity_feed = ? AND entity_id = ?))
                        WHERE id IS NOT NULL AND device IS NOT NULL AND created_at IS NOT NULL
                        GROUP BY id, device, created_at
                        """)
                var out: [EntityKey: [SubscriptionAlerts]] = [:]
                for entity in Set(entities) {
                    let counts = try Row.fetchAll(select, arguments: [entity.feed, entity.id]).map { row in
                        SubscriptionAlerts(
                            owner: SubscriptionOwner(
                                id: row["id"], device: row["device"], createdAt: row["created_at"]),
                            running: row["running"], ended: row["ended"])
                    }
                    if !counts.isEmpty { out[entity] = counts }
                }
                return out
            }, write: false)
    }

    public func subscriptionGenerations(of entities: [EntityKey]) async throws(Failure) -> [EntityKey: Int] {
        try await run(
            "reading subscription generations", { db in try Self.generations(of: entities, db) }, write: false)
    }

    static func generations(of entities: [EntityKey], _ db: Database) throws -> [EntityKey: Int] {
        let select = try db.cachedStatement(
            sql: "SELECT generation FROM subscription_generation WHERE feed = ? AND entity = ?")
        var out: [EntityKey: Int] = [:]
        for entity in Set(entities) {
            out[entity] = try Int.fetchOne(select, arguments: [entity.feed, entity.id])
        }
        return out
    }

    /// One read of the file.
    public func subscriptionChanges(of entities: [EntityKey], feed: String, limit: Int) async throws(Failure)
        -> (generations: [EntityKey: Int], deleted: [DeletedSubscription])
    {
        try await run(
            "reading subscription changes",
            { db in (try Self.generations(of: entities, db), try Self.deleted(feed: feed, limit: limit, db)) },
            write: false)
    }

    /// Writes made at once (the token API serving many clients) go in one transaction (``GroupCommit``).
    public func putSubscription(_ subscription: Subscription, now: Int) async throws(Failure) -> SubscriptionWrite {
        let path = self.path
        return try await subscriptionWrites.submit(QueuedSubscriptionPut(subscription: subscription, now: now)) {
            puts throws(StoreFailure) in
            try await self.run(
                "writing a subscription",
                { db in try puts.map { try Self.put($0.subscription, now: $0.now, db, path: path) } }, write: true)
        }
    }

    @discardableResult
    public func importSubscriptions(_ subscriptions: [Subscription], now: Int) async throws(Failure) -> Int {
        let path = self.path
        var refused = 0
        for start in stride(from: 0, to: subscriptions.count, by: 50_000) {
            let chunk = subscriptions[start..<min(start + 50_000, subscriptions.count)]
            refused += try await run(
                "writing subscriptions",
                { db in
                    var refused = 0
                    for subscription in chunk {
                        if case .conflict = try Self.put(subscription, now: now, db, path: path) { refused += 1 }
                    }
                    return refused
                }, write: true)
        }
        return refused
    }

    /// Creates a subscription or changes its parameters (see ``putSubscription(_:now:)``).
    static func put(_ subscription: Subscription, now: Int, _ db: Database, path: String) throws
        -> SubscriptionWrite
    {
        let put = SubscriptionPut.decide(
            subscription, existing: try Self.subscription(id: subscription.id, db, path: path))
        switch put {
        case .insert:
            try db.cachedStatement(
                sql: """
                    INSERT INTO personal_subscription (id, device, feed, entity, parameters, created_at, changed_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                subscription.id, subscription.device, subscription.entity.feed, subscription.entity.id,
                StoredValues.parametersText(subscription.parameters), subscription.createdAt, subscription.createdAt,
            ])
            try Self.bumpGeneration(subscription.entity, db)
        case .update:
            try db.cachedStatement(sql: "UPDATE personal_subscription SET parameters = ?, changed_at = ? WHERE id = ?")
                .execute(arguments: [StoredValues.parametersText(subscription.parameters), now, subscription.id])
            try Self.bumpGeneration(subscription.entity, db)
        case .unchanged, .conflict:
            break
        }
        return put.outcome
    }

    public func subscription(id: String) async throws(Failure) -> Subscription? {
        let path = self.path
        return try await run(
            "reading a subscription", { db in try Self.subscription(id: id, db, path: path) }, write: false)
    }

    @discardableResult
    public func deleteSubscription(id: String, now: Int) async throws(Failure) -> Bool {
        let path = self.path
        return try await run(
            "deleting a subscription",
            { db in
                guard let gone = try Self.subscription(id: id, db, path: path) else { return false }
                try db.execute(sql: "DELETE FROM personal_subscription WHERE id = ?", arguments: [id])
                try Self.bumpGeneration(gone.entity, db)
                // The same id created and deleted again within the second keeps the deletion already waiting.
                try db.execute(
                    sql: """
                        INSERT INTO deleted_subscription (id, device, feed, entity, created_at, at)
                        VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(id, created_at) DO NOTHING
                        """, arguments: [id, gone.device, gone.entity.feed, gone.entity.id, gone.createdAt, now])
                return true
            }, write: true)
    }

    public func subscriptions(of entities: [EntityKey]) async throws(Failure) -> [EntityKey: [Subscription]] {
        let path = self.path
        return try await run(
            "reading subscriptions",
            { db in
                var out: [EntityKey: [Subscription]] = [:]
                let select = try db.cachedStatement(
                    sql: "SELECT * FROM personal_subscription WHERE feed = ? AND entity = ? ORDER BY id")
                let count = try db.cachedStatement(
                    sql: "SELECT COUNT(*) FROM personal_subscription WHERE feed = ? AND entity = ?")
                for entity in Set(entities) {
                    // A cursor: a symbol's million rows are never all held as rows beside their values; and
                    // their values go into room made once, not into arrays that double (two at the peak).
                    var found: [Subscription] = []
                    found.reserveCapacity(try Int.fetchOne(count, arguments: [entity.feed, entity.id]) ?? 0)
                    let rows = try Row.fetchCursor(select, arguments: [entity.feed, entity.id])
                    while let row = try rows.next() { found.append(try Self.subscription(row, path: path)) }
                    if !found.isEmpty { out[entity] = found }
                }
                return out
            }, write: false)
    }

    public func deletedSubscriptions(feed: String, limit: Int) async throws(Failure) -> [DeletedSubscription] {
        try await run(
            "reading deleted subscriptions", { db in try Self.deleted(feed: feed, limit: limit, db) }, write: false)
    }

    static func deleted(feed: String, limit: Int, _ db: Database) throws -> [DeletedSubscription] {
        try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT id, device, feed, entity, created_at, at FROM deleted_subscription WHERE feed = ?
                    ORDER BY at, id, created_at LIMIT ?
                    """), arguments: [feed, limit]
        ).map {
            DeletedSubscription(
                owner: SubscriptionOwner(id: $0["id"], device: $0["device"], createdAt: $0["created_at"]),
                entity: EntityKey(feed: $0["feed"], id: $0["entity"]), at: $0["at"])
        }
    }

    public func finishDeletedSubscriptions(_ deleted: [DeletedSubscription]) async throws(Failure) {
        guard !deleted.isEmpty else { return }
        try await run(
            "forgetting deleted subscriptions",
            { db in
                let delete = try db.cachedStatement(
                    sql: "DELETE FROM deleted_subscription WHERE id = ? AND created_at = ?")
                for gone in deleted { try delete.execute(arguments: [gone.owner.id, gone.owner.createdAt]) }
            }, write: true)
    }

    /// The subscription of this id, if there is one.
    static func subscription(id: String, _ db: Database, path: String) throws -> Subscription? {
        let select = try db.cachedStatement(sql: "SELECT * FROM personal_subscription WHERE id = ?")
        return try Row.fetchOne(select, arguments: [id]).map { try subscription($0, path: path) }
    }

    static func subscription(_ row: Row, path: String) throws(StoreFailure) -> Subscription {
        let id: String = row["id"]
        return Subscription(
            id: id, device: row["device"], entity: EntityKey(feed: row["feed"], id: row["entity"]),
            parameters: try StoredValues.parameters(row["parameters"], subscription: id, location: path),
            createdAt: row["created_at"], changedAt: row["changed_at"])
    }
}

extension StoredValues {
    /// A subscription's parameters as both stores keep them: their canonical JSON text.
    public static func parametersText(_ parameters: JSONValue) -> String { parameters.jsonString() }

    /// A subscription's parameters from their stored text (numbers read exactly, as facts are); text that
    /// does not parse is reported as the subscription being corrupt.
    public static func parameters(_ text: String, subscription id: String, location: String) throws(StoreFailure)
        -> JSONValue
    {
        guard let parameters = try? JSONParser.parse(text, numbers: .decimal) else {
            throw StoreFailure(path: location, message: "subscription \(id) is corrupt")
        }
        return parameters
    }
}

/// A subscription to write, and when.
struct QueuedSubscriptionPut: Sendable {
    var subscription: Subscription
    var now: Int
}
