import Foundation
import GRDB
public import LiveRelayCore

/// Late joins (``LateJoin``): a device that began to follow an entity (or registered the push-to-start token
/// a subscription needs) is kept in `late_join` until a release round has looked whether an activity of
/// the entity runs; `activity.start` keeps what a late joiner's start carries.
extension SQLiteStore {
    static func registerLateJoinMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v18-late-join") { db in
            try db.alter(table: "activity") { t in t.add(column: "start", .text) }
            try db.create(index: "activity_entity", on: "activity", columns: ["entity_feed", "entity_id"])
            try db.create(table: "late_join") { t in
                t.column("feed", .text).notNull()
                t.column("entity", .text).notNull()
                t.column("device", .text).notNull()
                t.column("at", .integer).notNull()
                t.primaryKey(["feed", "entity", "device"])
            }
        }
    }

    /// Records a late join of `device` to each entity it follows (a push-to-start token it registered may
    /// start the activities running there).
    static func joinFollowedEntities(device: String, at now: Int, _ db: Database) throws {
        let entities = try Row.fetchAll(
            db, sql: "SELECT feed, entity FROM subscription WHERE device = ?", arguments: [device]
        ).map { EntityKey(feed: $0["feed"], id: $0["entity"]) }
        try join(device: device, entities: entities, at: now, db)
    }

    /// Records late joins of `device` to `entities` at `now` (a join not yet looked at takes the later time).
    static func join(device: String, entities: [EntityKey], at now: Int, _ db: Database) throws {
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO late_join (feed, entity, device, at) VALUES (?, ?, ?, ?)
                ON CONFLICT(feed, entity, device) DO UPDATE SET at = max(at, excluded.at)
                """)
        for entity in entities { try insert.execute(arguments: [entity.feed, entity.id, device, now]) }
    }

    public func lateJoins(limit: Int) async throws(Failure) -> [LateJoin] {
        try await run(
            "reading late joins",
            { db in
                try Row.fetchAll(
                    db, sql: "SELECT feed, entity, device, at FROM late_join ORDER BY rowid LIMIT ?", arguments: [limit]
                ).map {
                    LateJoin(device: $0["device"], entity: EntityKey(feed: $0["feed"], id: $0["entity"]), at: $0["at"])
                }
            }, write: false)
    }

    public func finishLateJoins(_ joins: [LateJoin]) async throws(Failure) {
        guard !joins.isEmpty else { return }
        try await run(
            "forgetting late joins",
            { db in
                let delete = try db.cachedStatement(
                    sql: "DELETE FROM late_join WHERE feed = ? AND entity = ? AND device = ?")
                for join in joins { try delete.execute(arguments: [join.entity.feed, join.entity.id, join.device]) }
            }, write: true)
    }

    public func activities(of entities: [EntityKey]) async throws(Failure) -> [EntityKey: [ActivityRecord]] {
        try await activities(of: entities, running: false)
    }

    public func runningActivities(of entities: [EntityKey]) async throws(Failure) -> [EntityKey: [ActivityRecord]] {
        try await activities(of: entities, running: true)
    }

    private func activities(of entities: [EntityKey], running: Bool) async throws(Failure)
        -> [EntityKey: [ActivityRecord]]
    {
        let path = self.path
        return try await run(
            "reading activities",
            { db in
                var out: [EntityKey: [ActivityRecord]] = [:]
                let phase = running ? " AND phase IN ('pending', 'active')" : ""
                let select = try db.cachedStatement(
                    sql: "SELECT \(SQLiteStore.activityColumns) FROM activity WHERE entity_feed = ? AND entity_id = ?"
                        + phase + " ORDER BY key")
                for entity in Set(entities) {
                    let rows = try Row.fetchAll(select, arguments: [entity.feed, entity.id])
                    let memo = ParsedText()
                    out[entity] = try rows.map { try SQLiteStore.record($0, path: path, memo: memo) }
                }
                return out
            }, write: false)
    }
}
