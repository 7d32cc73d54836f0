import Foundation
import GRDB
public import LiveRelayCore

/// The token registry, in the same SQLite file as the rest of the state:
/// - push-to-start tokens, one per device and attributes type (a new one replaces the old: rotation);
/// - update tokens, one per activity and device, as the app reports them once an activity runs;
/// - subscriptions: which devices follow which entity (a match), so a start reaches them;
/// - dropped tokens: a token APNs declared dead is removed and remembered, and never stored again.
extension SQLiteStore {
    static func registerTokenRegistryMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v3-tokens") { db in
            try db.create(table: "push_to_start_token") { t in
                t.column("device", .text).notNull()
                t.column("attributes_type", .text).notNull()
                t.column("token", .text).notNull()
                t.column("environment", .text).notNull()
                t.column("updated_at", .integer).notNull()
                t.primaryKey(["device", "attributes_type"])
            }
            try db.create(table: "activity_token") { t in
                t.column("activity", .text).notNull()
                t.column("device", .text).notNull()
                t.column("token", .text).notNull()
                t.column("environment", .text).notNull()
                t.column("updated_at", .integer).notNull()
                t.primaryKey(["activity", "device"])
            }
            try db.create(table: "subscription") { t in
                t.column("feed", .text).notNull()
                t.column("entity", .text).notNull()
                t.column("device", .text).notNull()
                t.primaryKey(["feed", "entity", "device"])
            }
            try db.create(table: "dropped_token") { t in
                t.column("token", .text).primaryKey()
                t.column("reason", .text).notNull()
                t.column("dropped_at", .integer).notNull()
            }
        }
    }

    /// Stores (or rotates) a device's push-to-start token for an attributes type. Returns `false`, storing
    /// nothing, when the token was dropped before.
    @discardableResult
    public func registerPushToStartToken(
        device: String, attributesType: String, token: String, environment: PushEnvironment, now: Int
    ) async throws(Failure) -> Bool {
        let token = ActivityTokenAdmission.normalized(token)
        return try await write("registering a push-to-start token") { db in
            let old = try String.fetchOne(
                db, sql: "SELECT token FROM push_to_start_token WHERE device = ? AND attributes_type = ?",
                arguments: [device, attributesType])
            let effects = PushToStartRotation.decide(
                token: token, previous: old, dropped: try Self.isDropped(token, db))
            guard effects.stores else { return false }
            if effects.lateJoins { try Self.joinFollowedEntities(device: device, at: now, db) }
            if let old = effects.movesWaitingStartsFrom {
                try db.execute(
                    sql: "UPDATE OR IGNORE outbox SET token = ? WHERE kind = 'push-to-start' AND token = ?",
                    arguments: [token, old])
                try db.execute(sql: "DELETE FROM outbox WHERE kind = 'push-to-start' AND token = ?", arguments: [old])
            }
            try db.execute(
                sql: """
                    INSERT INTO push_to_start_token (device, attributes_type, token, environment, updated_at)
                    VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(device, attributes_type) DO UPDATE SET token = excluded.token,
                    environment = excluded.environment, updated_at = excluded.updated_at
                    """, arguments: [device, attributesType, token, environment.rawValue, now])
            return true
        }
    }

    /// Stores (or rotates) the update token a device reported for an activity; stores nothing for a token
    /// dropped before or an activity that has ended (a token arriving after the end would get nothing).
    @discardableResult
    public func registerActivityToken(
        activity: ActivityKey, device: String, token: String, environment: PushEnvironment, now: Int
    ) async throws(Failure) -> ActivityTokenRegistration {
        let report = ActivityTokenReport(activity: activity, device: device, token: token, environment: environment)
        return try await write("registering an activity token") { db in
            try Self.admitActivityTokens([report], now: now, db)[0]
        }
    }

    /// Removes a device's push-to-start token for an attributes type (the app turned Live Activities off).
    public func removePushToStartToken(device: String, attributesType: String) async throws(Failure) {
        try await write("removing a push-to-start token") { db in
            try db.execute(
                sql: "DELETE FROM push_to_start_token WHERE device = ? AND attributes_type = ?",
                arguments: [device, attributesType])
        }
    }

    /// Removes a device's update token for an activity (the activity ended on the device).
    public func removeActivityToken(activity: ActivityKey, device: String) async throws(Failure) {
        try await write("removing an activity token") { db in
            try db.execute(
                sql: "DELETE FROM activity_token WHERE activity = ? AND device = ?",
                arguments: [activity.rawValue, device])
        }
    }

    /// Imports many activity tokens in one transaction (a token file, a migration from another system, a
    /// benchmark), as ``registerActivityToken(activity:device:token:environment:now:)`` would one by one.
    /// Returns how many were stored.
    @discardableResult
    public func importActivityTokens(
        _ tokens: [(activity: ActivityKey, device: String, token: String, environment: PushEnvironment)], now: Int
    ) async throws(Failure) -> Int {
        let reports = tokens.map {
            ActivityTokenReport(activity: $0.activity, device: $0.device, token: $0.token, environment: $0.environment)
        }
        return try await write("importing activity tokens") { db in
            try Self.admitActivityTokens(reports, now: now, db).count { $0 == .stored }
        }
    }

    /// Reads what ``ActivityTokenAdmission`` decides on (the dropped tokens and ended activities among the
    /// reports) and writes the rows it keeps.
    private static func admitActivityTokens(_ reports: [ActivityTokenReport], now: Int, _ db: Database) throws
        -> [ActivityTokenRegistration]
    {
        let isDropped = try db.cachedStatement(sql: "SELECT EXISTS(SELECT 1 FROM dropped_token WHERE token = ?)")
        var dropped = Set<String>()
        // No token looked up one by one when none was ever dropped (a first import of a large file).
        let anyDropped = try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM dropped_token)") ?? true
        for token in anyDropped ? Set(reports.map { ActivityTokenAdmission.normalized($0.token) }) : []
        where try Bool.fetchOne(isDropped, arguments: [token]) ?? false {
            dropped.insert(token)
        }
        let phase = try db.cachedStatement(sql: "SELECT phase FROM activity WHERE key = ?")
        var ended = Set<ActivityKey>()
        for activity in Set(reports.map(\.activity))
        where try String.fetchOne(phase, arguments: [activity.rawValue]) == ActivityPhase.ended.rawValue {
            ended.insert(activity)
        }
        let (verdicts, rows) = ActivityTokenAdmission.decide(reports, dropped: dropped, ended: ended)
        let insert = try RowWriter(
            db,
            sql: """
                INSERT INTO activity_token (activity, device, token, environment, updated_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(activity, device) DO UPDATE SET token = excluded.token,
                environment = excluded.environment, updated_at = excluded.updated_at
                """)
        for row in rows {
            try insert.write {
                $0.text(row.activity.rawValue)
                $0.text(row.device)
                $0.text(row.token)
                $0.text(row.environment.rawValue)
                $0.integer(now)
            }
        }
        return verdicts
    }

    /// Makes a device follow an entity: starts for it go to the device's push-to-start tokens.
    public func subscribe(device: String, to entity: EntityKey, now: Int) async throws(Failure) {
        try await write("subscribing a device") { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO subscription (feed, entity, device) VALUES (?, ?, ?)",
                arguments: [entity.feed, entity.id, device])
            // A new follower of an entity whose activity already runs joins it late.
            if db.changesCount > 0 {
                try Self.join(device: device, entities: [entity], at: now, db)
            }
        }
    }

    /// Stops a device following an entity.
    public func unsubscribe(device: String, from entity: EntityKey) async throws(Failure) {
        try await write("unsubscribing a device") { db in
            try db.execute(
                sql: "DELETE FROM subscription WHERE feed = ? AND entity = ? AND device = ?",
                arguments: [entity.feed, entity.id, device])
            try db.execute(
                sql: "DELETE FROM late_join WHERE feed = ? AND entity = ? AND device = ?",
                arguments: [entity.feed, entity.id, device])
        }
    }

    /// The push-to-start tokens for `attributesType` of the devices subscribed to `entity`, by device;
    /// only those of `environment` unless it is `nil`.
    public func pushToStartTokens(entity: EntityKey, attributesType: String, environment: PushEnvironment?)
        async throws(Failure) -> [RegisteredToken]
    {
        try await read("reading push-to-start tokens") { db in
            try Self.pushToStartTokens(db, entity: entity, attributesType: attributesType, environment: environment)
        }
    }

    /// With `device`, that device's tokens when it follows the entity through a plain subscription or a
    /// personal one (the start of its own activity); without, those of the plain subscribers alone.
    static func pushToStartTokens(
        _ db: Database, entity: EntityKey, attributesType: String, environment: PushEnvironment?,
        device: String? = nil
    ) throws -> [RegisteredToken] {
        if let device {
            return try pushToStartTokens(
                db, entity: entity, attributesType: attributesType, environment: environment, devices: [device])
        }
        return try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT t.device, t.token, t.environment, c.device IS NOT NULL AS channel_subscriber
                    FROM push_to_start_token t
                    JOIN subscription s ON s.device = t.device
                    LEFT JOIN channel_subscriber c ON c.device = t.device
                    WHERE s.feed = ? AND s.entity = ? AND t.attributes_type = ? AND (? IS NULL OR t.environment = ?)
                    ORDER BY t.device
                    """),
            arguments: [entity.feed, entity.id, attributesType, environment?.rawValue, environment?.rawValue]
        ).map(Self.registered)
    }

    /// The push-to-start tokens for `attributesType` of each of `devices` that follows `entity` through a plain
    /// subscription or a personal one, in one statement (one device's: the start of its own activity, or of a
    /// late joiner's).
    static func pushToStartTokens(
        _ db: Database, entity: EntityKey, attributesType: String, environment: PushEnvironment?, devices: [String]
    ) throws -> [RegisteredToken] {
        // Read through a cursor by position: a poll that starts 1,000 alerts reads 1,000 rows here, and a copy
        // of each row with its columns looked up by name took longer than the statement.
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT t.device, t.token, t.environment, c.device IS NOT NULL AS channel_subscriber
                    FROM push_to_start_token t
                    LEFT JOIN channel_subscriber c ON c.device = t.device
                    WHERE t.device IN (SELECT value FROM json_each(?)) AND t.attributes_type = ?
                    AND (? IS NULL OR t.environment = ?)
                    AND (EXISTS (SELECT 1 FROM subscription s WHERE s.feed = ? AND s.entity = ? AND s.device = t.device)
                      OR EXISTS (SELECT 1 FROM personal_subscription p
                        WHERE p.feed = ? AND p.entity = ? AND p.device = t.device))
                    ORDER BY t.device
                    """),
            arguments: [
                list(devices), attributesType, environment?.rawValue, environment?.rawValue, entity.feed, entity.id,
                entity.feed, entity.id,
            ])
        var tokens: [RegisteredToken] = []
        tokens.reserveCapacity(devices.count)
        while let row = try rows.next() {
            tokens.append(
                RegisteredToken(
                    device: row[0], token: row[1], environment: PushEnvironment(rawValue: row[2]),
                    channelSubscriber: row[3]))
        }
        return tokens
    }

    /// The update tokens of an activity, by device; only those of `environment` unless it is `nil`.
    public func activityTokens(activity: ActivityKey, environment: PushEnvironment?) async throws(Failure)
        -> [RegisteredToken]
    {
        try await read("reading activity tokens") { db in
            try Self.activityTokens(db, activity: activity, environment: environment)
        }
    }

    static func activityTokens(_ db: Database, activity: ActivityKey, environment: PushEnvironment?) throws
        -> [RegisteredToken]
    {
        try Row.fetchAll(
            db,
            sql: """
                SELECT t.device, t.token, t.environment, c.device IS NOT NULL AS channel_subscriber
                FROM activity_token t LEFT JOIN channel_subscriber c ON c.device = t.device
                WHERE t.activity = ? AND (? IS NULL OR t.environment = ?) ORDER BY t.device
                """, arguments: [activity.rawValue, environment?.rawValue, environment?.rawValue]
        ).map(Self.registered)
    }

    /// Removes a token wherever it is registered and remembers it, so it is never stored or used again.
    public func dropToken(_ token: String, reason: String, now: Int) async throws(Failure) {
        let token = token.lowercased()
        try await write("dropping a token") { db in
            try db.execute(sql: "DELETE FROM push_to_start_token WHERE token = ?", arguments: [token])
            try db.execute(sql: "DELETE FROM activity_token WHERE token = ?", arguments: [token])
            try db.execute(
                sql: "INSERT OR IGNORE INTO dropped_token (token, reason, dropped_at) VALUES (?, ?, ?)",
                arguments: [token, reason, now])
        }
    }

    /// Whether a token was dropped.
    public func isDropped(_ token: String) async throws(Failure) -> Bool {
        try await read("reading dropped tokens") { db in try Self.isDropped(token.lowercased(), db) }
    }

    private static func isDropped(_ token: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM dropped_token WHERE token = ?)", arguments: [token])
            ?? false
    }

    private static func registered(_ row: Row) -> RegisteredToken {
        RegisteredToken(
            device: row["device"], token: row["token"], environment: PushEnvironment(rawValue: row["environment"]),
            channelSubscriber: row["channel_subscriber"])
    }
}

extension SQLiteStore {
    fileprivate func read<T: Sendable>(_ what: String, _ body: @Sendable (Database) throws -> T) async throws(Failure)
        -> T
    {
        try await run(what, body, write: false)
    }

    fileprivate func write<T: Sendable>(_ what: String, _ body: @Sendable (Database) throws -> T) async throws(Failure)
        -> T
    {
        try await run(what, body, write: true)
    }
}
