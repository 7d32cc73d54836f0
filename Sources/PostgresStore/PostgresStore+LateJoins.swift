public import LiveRelayCore
import PostgresNIO
public import Store

/// Late joins and the activities of an entity, as the SQLite store keeps them (see ``StateStore``); the joins
/// themselves are written by `subscribe` and `registerPushToStartToken`.
extension PostgresStore {
    public func lateJoins(limit: Int) async throws(Failure) -> [LateJoin] {
        var out: [LateJoin] = []
        for row in try await rows(
            "reading late joins", "SELECT feed, entity, device, at FROM late_join ORDER BY seq LIMIT \(limit)")
        {
            let (feed, entity, device, at) = try decode(row, (String, String, String, Int).self, "reading late joins")
            out.append(LateJoin(device: device, entity: EntityKey(feed: feed, id: entity), at: at))
        }
        return out
    }

    public func finishLateJoins(_ joins: [LateJoin]) async throws(Failure) {
        guard !joins.isEmpty else { return }
        try await execute(
            "forgetting late joins",
            """
            DELETE FROM late_join l USING unnest(\(joins.map(\.entity.feed))::text[], \(joins.map(\.entity.id))::text[],
              \(joins.map(\.device))::text[]) AS r(f, e, d)
            WHERE l.feed = r.f AND l.entity = r.e AND l.device = r.d
            """)
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
        let unique = Array(Set(entities))
        guard !unique.isEmpty else { return [:] }
        var out: [EntityKey: [ActivityRecord]] = [:]
        let memo = ParsedText()
        for row in try await rows(
            "reading activities",
            """
            SELECT \(unescaped: Self.activityColumns) FROM activity a
            JOIN unnest(\(unique.map(\.feed))::text[], \(unique.map(\.id))::text[]) AS r(f, e)
              ON a.entity_feed = r.f AND a.entity_id = r.e
            WHERE NOT \(running) OR a.phase IN ('pending', 'active')
            ORDER BY key COLLATE "C"
            """)
        {
            let record = try self.record(row, memo: memo)
            if let entity = record.entity { out[entity, default: []].append(record) }
        }
        for entity in unique where out[entity] == nil { out[entity] = [] }
        return out
    }
}
