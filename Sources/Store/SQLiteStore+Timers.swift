public import Foundation
import GRDB
public import LiveRelayCore

extension SQLiteStore {
    /// Every live activity (pending or active) of these attributes types whose entity is known, as timer rules
    /// see it, with the time its entity's facts last changed: no content-states are read.
    public func timerSubjects(attributesTypes: Set<String>) async throws(Failure) -> [TimerSubject] {
        let types = attributesTypes.sorted()
        guard !types.isEmpty else { return [] }
        let path = self.path
        let marks = Array(repeating: "?", count: types.count).joined(separator: ",")
        return try await run(
            "reading live activities",
            { db in
                var subjects: [TimerSubject] = []
                let rows = try Row.fetchCursor(
                    db,
                    sql: """
                        SELECT a.key, a.attributes_type, a.entity_feed, a.entity_id, a.started_at, a.timers,
                        f.updated_at FROM activity a
                        LEFT JOIN feed_entity f ON f.feed = a.entity_feed AND f.entity = a.entity_id
                        WHERE a.phase IN ('pending', 'active') AND a.entity_feed IS NOT NULL
                        AND a.started_at IS NOT NULL AND a.attributes_type IN (\(marks))
                        """, arguments: StatementArguments(types))
                while let row = try rows.next() {
                    let key: String = row[0]
                    var looks: [String: Int] = [:]
                    if let text: String = row[5] {
                        guard case .object(let members)? = try? JSONParser.parse(text) else {
                            throw Failure(path: path, message: "activity \(key) is corrupt")
                        }
                        for (rule, value) in members { if case .int(let at) = value { looks[rule] = at } }
                    }
                    subjects.append(
                        TimerSubject(
                            activity: ActivityKey(key), attributesType: row[1],
                            entity: EntityKey(feed: row[2], id: row[3]), startedAt: row[4], looks: looks,
                            changedAt: row[6]))
                }
                return subjects
            }, write: false)
    }

    /// The last facts of these entities (those the feeds still have).
    public func facts(of entities: Set<EntityKey>) async throws(Failure) -> [EntityKey: Facts] {
        let entities = Array(entities)
        let path = self.path
        return try await run(
            "reading facts",
            { db in
                var out: [EntityKey: Facts] = [:]
                let statement = try db.cachedStatement(
                    sql: "SELECT facts FROM feed_entity WHERE feed = ? AND entity = ?")
                for entity in entities {
                    guard let text = try String.fetchOne(statement, arguments: [entity.feed, entity.id]) else {
                        continue
                    }
                    guard case .object(let object) = try? JSONParser.parse(text, numbers: .decimal) else {
                        throw Failure(path: path, message: "facts of \(entity) are corrupt")
                    }
                    out[entity] = Facts(object)
                }
                return out
            }, write: false)
    }

    /// Saves what a timer pass changed in one transaction: the activity records it pushed for, the timer
    /// looks of the others (only that column), and the throttle states of the pushes it queued.
    public func saveTimerPass(
        activities: [ActivityRecord], looks: [(key: ActivityKey, looks: [String: Int])] = [],
        throttleStates: [(key: ActivityKey, json: Data, pending: Bool)]
    ) async throws(Failure) {
        guard !activities.isEmpty || !looks.isEmpty || !throttleStates.isEmpty else { return }
        try await run(
            "saving a timer pass",
            { db in
                try SQLiteStore.save(activities, db)
                let statement = try db.cachedStatement(sql: "UPDATE activity SET timers = ? WHERE key = ?")
                for (key, looks) in looks {
                    try statement.execute(arguments: [
                        JSONValue.object(looks.mapValues { .int($0) }).jsonString(), key.rawValue,
                    ])
                }
                try SQLiteStore.saveThrottleStates(throttleStates, db)
            }, write: true)
    }
}
