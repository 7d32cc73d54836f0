public import Foundation
import GRDB
public import LiveRelayCore

extension SQLiteStore {
    /// The live activities (pending or active) of these attributes types whose entity is known and whose
    /// timer rules may be due at `now` (all of them when `now` is nil), as timer rules see them, with the time
    /// their entity's facts last changed: no content-states are read. `rules` names the timer rules in force:
    /// when they are not the ones the stored due times were computed for, every live activity is read.
    /// With `now`, at most `limit` are read, those not yet looked at first, then the earliest due.
    public func timerSubjects(attributesTypes: Set<String>, now: Int? = nil, rules: String = "", limit: Int? = nil)
        async throws(Failure) -> [TimerSubject]
    {
        let types = attributesTypes.sorted()
        guard !types.isEmpty else { return [] }
        let path = self.path
        let marks = Array(repeating: "?", count: types.count).joined(separator: ",")
        let order = " ORDER BY a.timer_due" + (limit == nil ? "" : " LIMIT ?")
        let due = now == nil ? "" : " AND (a.timer_due IS NULL OR a.timer_due <= ?)" + order
        let values: [any DatabaseValueConvertible & Sendable] =
            types + (now.map { [$0] } ?? []) + (now != nil ? limit.map { [$0] } ?? [] : [])
        let sql = """
            SELECT a.key, a.attributes_type, a.entity_feed, a.entity_id, a.started_at, a.timers,
            f.updated_at, a.phase, a.last_timestamp, a.sent_at, a.changed_at, f.fact_changes FROM activity a
            LEFT JOIN feed_entity f ON f.feed = a.entity_feed AND f.entity = a.entity_id
            WHERE a.phase IN ('pending', 'active') AND a.entity_feed IS NOT NULL
            AND a.started_at IS NOT NULL AND a.attributes_type IN (\(marks))\(due)
            """
        return try await run(
            "reading live activities",
            { db in
                if now != nil {
                    let known = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'timer-rules'")
                    if known != rules {
                        try db.execute(sql: "UPDATE activity SET timer_due = NULL WHERE timer_due IS NOT NULL")
                        try db.execute(
                            sql: """
                                INSERT INTO meta (key, value) VALUES ('timer-rules', ?)
                                ON CONFLICT(key) DO UPDATE SET value = excluded.value
                                """, arguments: [rules])
                    }
                }
                var subjects: [TimerSubject] = []
                let rows = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(values))
                while let row = try rows.next() {
                    let key: String = row[0]
                    let looks = try StoredValues.looks(row[5], activity: key, location: path)
                    subjects.append(
                        TimerSubject(
                            activity: ActivityKey(key), attributesType: row[1],
                            entity: EntityKey(feed: row[2], id: row[3]), startedAt: row[4], looks: looks,
                            changedAt: row[6], phase: row[7], pushedAt: row[8], sentAt: row[9],
                            activityChangedAt: row[10], factsChangedAt: StoredValues.factChanges(row[11])))
                }
                return subjects
            }, write: now != nil)
    }

    /// The earliest stored due time of a live activity's timer rules: `nil` when there is none, `0` when an
    /// activity's rules have not been looked at since it was written (it is due at the next pass).
    public func nextTimerDue() async throws(Failure) -> Int? {
        try await run(
            "reading timer due times",
            { db in
                let unknown = try Bool.fetchOne(
                    db,
                    sql: """
                        SELECT EXISTS (SELECT 1 FROM activity WHERE timer_due IS NULL
                        AND phase IN ('pending', 'active') AND entity_feed IS NOT NULL)
                        """)
                if unknown == true { return 0 }
                let next = try Int.fetchOne(
                    db, sql: "SELECT MIN(timer_due) FROM activity WHERE phase IN ('pending', 'active')")
                return next.flatMap { $0 >= SQLiteStore.neverDue ? nil : $0 }
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
                    out[entity] = try StoredValues.facts(text, of: "\(entity)", location: path)
                }
                return out
            }, write: false)
    }

    /// Saves what a timer pass changed in one transaction: the records it pushed for, when each activity it
    /// read may next come due, the timer looks of the others with their
    /// next due time (one statement each), and the throttle states of the pushes it queued.
    public func saveTimerPass(
        activities: [ActivityRecord], looks: [(key: ActivityKey, looks: [String: Int], due: Int?)] = [],
        due: [(key: ActivityKey, at: Int?)] = [], throttleStates: [(key: ActivityKey, json: Data, pending: Bool)],
        history: HistoryWrite? = nil
    ) async throws(Failure) {
        guard
            !activities.isEmpty || !looks.isEmpty || !due.isEmpty || !throttleStates.isEmpty
                || !(history?.rows.isEmpty ?? true)
        else { return }
        try await run(
            "saving a timer pass",
            { db in
                // The records first: the due times the pass computed for them stand (a push does not move when
                // a timer rule comes due).
                try SQLiteStore.save(activities, db)
                let next = try db.cachedStatement(sql: "UPDATE activity SET timer_due = ? WHERE key = ?")
                for (key, at) in due {
                    try next.execute(arguments: [at ?? SQLiteStore.neverDue, key.rawValue])
                }
                let statement = try db.cachedStatement(
                    sql: "UPDATE activity SET timers = ?, timer_due = ? WHERE key = ?")
                for (key, looks, at) in looks {
                    try statement.execute(arguments: [
                        StoredValues.looksText(looks), at ?? SQLiteStore.neverDue,
                        key.rawValue,
                    ])
                }
                try SQLiteStore.saveThrottleStates(throttleStates, db)
                try SQLiteStore.saveHistory(history, db)
            }, write: true)
    }

    /// The due time of an activity no timer rule applies to (until the timer rules change).
    static let neverDue = StoredValues.neverDue
}
