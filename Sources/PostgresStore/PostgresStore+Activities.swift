public import Foundation
public import LiveRelayCore
import Logging
import PostgresNIO
public import Store

/// Activity records, starts and timers, as the SQLite store keeps them (see ``StateStore``).
extension PostgresStore {
    static let activityColumns =
        """
        key, attributes_type, phase, state, last_timestamp, entity_feed, entity_id, started_at, facts, sent_at, timers,
        changed_at, delivered_state, delivered_timestamp, start
        """

    public func activities(_ keys: [ActivityKey]) async throws(Failure) -> [ActivityKey: ActivityRecord] {
        guard !keys.isEmpty else { return [:] }
        var out: [ActivityKey: ActivityRecord] = [:]
        let memo = ParsedText()
        for row in try await rows(
            "reading activities",
            "SELECT \(unescaped: Self.activityColumns) FROM activity WHERE key = ANY(\(keys.map(\.rawValue))::text[])")
        {
            let record = try self.record(row, memo: memo)
            out[record.key] = record
        }
        return out
    }

    public func allActivities() async throws(Failure) -> [ActivityRecord] {
        var out: [ActivityRecord] = []
        for row in try await rows(
            "reading activities", "SELECT \(unescaped: Self.activityColumns) FROM activity ORDER BY key COLLATE \"C\"")
        {
            out.append(try record(row))
        }
        return out
    }

    func record(_ row: PostgresRow, memo: ParsedText? = nil) throws(Failure) -> ActivityRecord {
        let (
            key, type, phase, state, last, feed, id, started, facts, sent, timers, changed, delivered, deliveredAt,
            start
        ) =
            try decode(
                row,
                (
                    String, String, String, String, Int, String?, String?, Int?, String?, Int?, String?, Int?, String?,
                    Int?, String?
                ).self, "reading activities")
        return try StoredValues.record(
            key: key, attributesType: type, phase: phase, state: state, lastTimestamp: last, entityFeed: feed,
            entityID: id, startedAt: started, facts: facts, sentAt: sent, timers: timers, changedAt: changed,
            deliveredState: delivered, deliveredTimestamp: deliveredAt, start: start, location: location, memo: memo)
    }

    public func save(_ records: [ActivityRecord]) async throws(Failure) {
        guard !records.isEmpty else { return }
        let location = location
        try await transaction("saving activities") { connection in
            try await Self.save(records, connection, logger: logger, location: location)
        }
    }

    /// Writes records whole except `sent_at` (only receipts set it); their timer rules are looked at again.
    static func save(_ records: [ActivityRecord], _ connection: PostgresConnection, logger: Logger, location: String)
        async throws
    {
        guard !records.isEmpty else { return }
        var last: [ActivityKey: Int] = [:]
        for (i, r) in records.enumerated() { last[r.key] = i }
        let objects: [[String: JSONValue]] = last.values.sorted().map { i in
            let r = records[i]
            return [
                "key": .string(r.key.rawValue), "attributes_type": .string(r.attributesType),
                "phase": .string(r.phase.rawValue), "state": .string(r.state.jsonString()),
                "last_timestamp": .int(r.lastTimestamp), "entity_feed": .column(r.entity?.feed),
                "entity_id": .column(r.entity?.id), "started_at": .column(r.startedAt),
                "facts": .column(r.facts?.jsonString()), "timers": .column(StoredValues.timers(r.timers)),
                "changed_at": .column(r.changedAt), "start": .column(StoredValues.start(r.start)),
            ]
        }
        try await connection.checkedQuery(
            """
            INSERT INTO activity (key, attributes_type, phase, state, last_timestamp, entity_feed, entity_id,
              started_at, facts, timers, changed_at, start)
            SELECT key, attributes_type, phase, state, last_timestamp, entity_feed, entity_id, started_at, facts, timers,
              changed_at, start
            FROM json_to_recordset(\(recordset(objects))::json) AS r(key text, attributes_type text, phase text,
              state text, last_timestamp bigint, entity_feed text, entity_id text, started_at bigint, facts text,
              timers text, changed_at bigint, start text)
            ON CONFLICT (key) DO UPDATE SET attributes_type = excluded.attributes_type, phase = excluded.phase,
              state = excluded.state, last_timestamp = excluded.last_timestamp, entity_feed = excluded.entity_feed,
              entity_id = excluded.entity_id, started_at = excluded.started_at, facts = excluded.facts,
              timers = excluded.timers, changed_at = excluded.changed_at, start = excluded.start, timer_due = NULL
            """, logger: logger)
    }

    public func markActive(_ keys: [ActivityKey]) async throws(Failure) {
        guard !keys.isEmpty else { return }
        try await execute(
            "saving activities",
            """
            UPDATE activity SET phase = 'active', timer_due = NULL
            WHERE key = ANY(\(keys.map(\.rawValue))::text[]) AND phase = 'pending'
            """)
    }

    static func markStarted(_ starts: [DeviceStart], now: Int, _ connection: PostgresConnection, logger: Logger)
        async throws
    {
        guard !starts.isEmpty else { return }
        let unique = Array(Set(starts))
        try await connection.checkedQuery(
            """
            INSERT INTO activity_start (activity, device, started_at)
            SELECT a, d, \(now) FROM unnest(\(unique.map(\.activity.rawValue))::text[], \(unique.map(\.device))::text[])
              AS r(a, d)
            ON CONFLICT (activity, device) DO UPDATE SET started_at = excluded.started_at
            """, logger: logger)
    }

    public func deviceStates(_ starts: [DeviceStart]) async throws(Failure) -> [DeviceStart: ActivityDevice] {
        guard !starts.isEmpty else { return [:] }
        var out: [DeviceStart: ActivityDevice] = [:]
        for row in try await rows(
            "reading starts",
            """
            SELECT q.a, q.d, s.started_at, t.updated_at
            FROM unnest(\(starts.map(\.activity.rawValue))::text[], \(starts.map(\.device))::text[]) AS q(a, d)
            LEFT JOIN activity_start s ON s.activity = q.a AND s.device = q.d
            LEFT JOIN activity_token t ON t.activity = q.a AND t.device = q.d
            """)
        {
            let (activity, device, started, token) = try decode(
                row, (String, String, Int?, Int?).self, "reading starts")
            out[DeviceStart(activity: ActivityKey(activity), device: device)] = ActivityDevice(
                device: device, startedAt: started, tokenAt: token)
        }
        return out
    }

    public func activityDevices(_ activity: ActivityKey) async throws(Failure) -> [ActivityDevice] {
        var out: [ActivityDevice] = []
        for row in try await rows(
            "reading an activity's devices",
            """
            SELECT device, started_at, updated_at FROM (
              SELECT COALESCE(s.device, t.device) AS device, s.started_at, t.updated_at
              FROM (SELECT device, started_at FROM activity_start WHERE activity = \(activity.rawValue)) s
              FULL JOIN (SELECT device, updated_at FROM activity_token WHERE activity = \(activity.rawValue)) t
                ON s.device = t.device) d
            ORDER BY device COLLATE "C"
            """)
        {
            let (device, started, token) = try decode(row, (String, Int?, Int?).self, "reading an activity's devices")
            out.append(ActivityDevice(device: device, startedAt: started, tokenAt: token))
        }
        return out
    }

    // MARK: Timers

    public func timerSubjects(attributesTypes: Set<String>, now: Int?, rules: String, limit: Int?)
        async throws(Failure) -> [TimerSubject]
    {
        let types = attributesTypes.sorted()
        guard !types.isEmpty else { return [] }
        let select = """
            SELECT a.key, a.attributes_type, a.entity_feed, a.entity_id, a.started_at, a.timers, f.updated_at,
              a.phase, a.last_timestamp, a.sent_at, a.changed_at, f.fact_changes FROM activity a
            LEFT JOIN feed_entity f ON f.feed = a.entity_feed AND f.entity = a.entity_id
            WHERE a.phase IN ('pending', 'active') AND a.entity_feed IS NOT NULL AND a.started_at IS NOT NULL
            """
        let query: PostgresQuery
        if let now {
            // Those not looked at yet first (NULL), then the earliest due.
            query = """
                \(unescaped: select) AND a.attributes_type = ANY(\(types)::text[])
                  AND (a.timer_due IS NULL OR a.timer_due <= \(now))
                ORDER BY a.timer_due NULLS FIRST LIMIT \(limit ?? Int.max)
                """
        } else {
            query = "\(unescaped: select) AND a.attributes_type = ANY(\(types)::text[])"
        }
        let found = try await transaction("reading live activities") { connection in
            if now != nil {
                let known = try await connection.rows(
                    "SELECT value FROM meta WHERE key = 'timer-rules'", logger: logger
                ).first.map { try $0.decode(String.self) }
                if known != rules {
                    try await connection.checkedQuery(
                        "UPDATE activity SET timer_due = NULL WHERE timer_due IS NOT NULL", logger: logger)
                    try await connection.checkedQuery(
                        """
                        INSERT INTO meta (key, value) VALUES ('timer-rules', \(rules))
                        ON CONFLICT (key) DO UPDATE SET value = excluded.value
                        """, logger: logger)
                }
            }
            return try await connection.rows(query, logger: logger)
        }
        var subjects: [TimerSubject] = []
        subjects.reserveCapacity(found.count)
        for row in found {
            let (key, type, feed, id, started, timers, changed, phase, pushed, sent, stateChanged, factChanges) =
                try decode(
                    row, (String, String, String, String, Int, String?, Int?, String, Int?, Int?, Int?, String?).self,
                    "reading live activities")
            subjects.append(
                TimerSubject(
                    activity: ActivityKey(key), attributesType: type, entity: EntityKey(feed: feed, id: id),
                    startedAt: started, looks: try StoredValues.looks(timers, activity: key, location: location),
                    changedAt: changed, phase: phase, pushedAt: pushed, sentAt: sent,
                    activityChangedAt: stateChanged, factsChangedAt: StoredValues.factChanges(factChanges)))
        }
        return subjects
    }

    public func nextTimerDue() async throws(Failure) -> Int? {
        for row in try await rows(
            "reading timer due times",
            """
            SELECT EXISTS (SELECT 1 FROM activity WHERE timer_due IS NULL AND phase IN ('pending', 'active')
              AND entity_feed IS NOT NULL),
            (SELECT MIN(timer_due) FROM activity WHERE phase IN ('pending', 'active'))
            """)
        {
            let (unknown, next) = try decode(row, (Bool, Int?).self, "reading timer due times")
            if unknown { return 0 }
            return next.flatMap { $0 >= StoredValues.neverDue ? nil : $0 }
        }
        return nil
    }

    public func saveTimerPass(
        activities: [ActivityRecord], looks: [(key: ActivityKey, looks: [String: Int], due: Int?)],
        due: [(key: ActivityKey, at: Int?)], throttleStates: [(key: ActivityKey, json: Data, pending: Bool)],
        history: HistoryWrite?
    ) async throws(Failure) {
        guard
            !activities.isEmpty || !looks.isEmpty || !due.isEmpty || !throttleStates.isEmpty
                || !(history?.rows.isEmpty ?? true)
        else { return }
        let location = location
        try await transaction("saving a timer pass") { connection in
            // The records first: the due times the pass computed for them stand.
            try await Self.save(activities, connection, logger: logger, location: location)
            if !due.isEmpty {
                try await connection.checkedQuery(
                    """
                    UPDATE activity a SET timer_due = r.at
                    FROM unnest(\(due.map(\.key.rawValue))::text[],
                      \(due.map { $0.at ?? StoredValues.neverDue })::bigint[]) AS r(key, at)
                    WHERE a.key = r.key
                    """, logger: logger)
            }
            if !looks.isEmpty {
                try await connection.checkedQuery(
                    """
                    UPDATE activity a SET timers = r.timers, timer_due = r.at
                    FROM unnest(\(looks.map(\.key.rawValue))::text[],
                      \(looks.map { StoredValues.looksText($0.looks) })::text[],
                      \(looks.map { $0.due ?? StoredValues.neverDue })::bigint[]) AS r(key, timers, at)
                    WHERE a.key = r.key
                    """, logger: logger)
            }
            try await Self.saveThrottleStates(throttleStates, connection, logger: logger)
            try await Self.saveHistory(history, connection, logger: logger)
        }
    }
}
