import Foundation
import GRDB
public import LiveRelayCore

/// The activity records: what the ledger keeps of each Live Activity, and what rules read as `activity`.
extension SQLiteStore {
    /// The records of the given activities (absent ones are left out).
    public func activities(_ keys: [ActivityKey]) async throws(Failure) -> [ActivityKey: ActivityRecord] {
        guard !keys.isEmpty else { return [:] }
        let path = self.path
        return try await run(
            "reading activities",
            { db in
                var out: [ActivityKey: ActivityRecord] = [:]
                let memo = ParsedText()
                let rows = try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT \(SQLiteStore.activityColumns) FROM activity
                            WHERE key IN (SELECT value FROM json_each(?))
                            """),
                    arguments: [SQLiteStore.list(keys.map(\.rawValue))])
                for row in rows {
                    let record = try SQLiteStore.record(row, path: path, memo: memo)
                    out[record.key] = record
                }
                return out
            }, write: false)
    }

    /// Every activity record, for summaries.
    public func allActivities() async throws(Failure) -> [ActivityRecord] {
        let path = self.path
        return try await run(
            "reading activities",
            { db in
                let memo = ParsedText()
                return try Row.fetchAll(db, sql: "SELECT \(SQLiteStore.activityColumns) FROM activity ORDER BY key").map
                {
                    try SQLiteStore.record($0, path: path, memo: memo)
                }
            }, write: false)
    }

    /// Saves activity records (after a delivery changed a phase, say).
    public func save(_ records: [ActivityRecord]) async throws(Failure) {
        try await run("saving activities", { db in try SQLiteStore.save(records, db) }, write: true)
    }

    /// Writes records whole, except `sent_at` and the delivered state: only receipts set those (``settleOutbox``), so a record read
    /// before a delivery round never puts an older time back. A record written has its timer rules looked
    /// at by the next timer pass (`timer_due` NULL): a push moves what they count from.
    static func save(_ records: [ActivityRecord], _ db: Database) throws {
        let statement = try RowWriter(
            db,
            sql: """
                INSERT INTO activity (key, attributes_type, phase, state, last_timestamp, entity_feed, entity_id,
                started_at, facts, timers, changed_at, start) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(key) DO UPDATE SET attributes_type = excluded.attributes_type, phase = excluded.phase,
                state = excluded.state, last_timestamp = excluded.last_timestamp, entity_feed = excluded.entity_feed,
                entity_id = excluded.entity_id, started_at = excluded.started_at, facts = excluded.facts,
                timers = excluded.timers, changed_at = excluded.changed_at, start = excluded.start, timer_due = NULL
                """)
        // The records of one poll mostly share their entity's facts (a price crossing a thousand levels) and
        // often their state: each is written as text once.
        var facts = JSONText()
        var state = JSONText()
        for r in records {
            let (stateText, factsText) = (state.text(r.state), r.facts.map { facts.text($0) })
            try statement.write {
                $0.text(r.key.rawValue)
                $0.text(r.attributesType)
                $0.text(r.phase.rawValue)
                $0.text(stateText)
                $0.integer(r.lastTimestamp)
                $0.text(r.entity?.feed)
                $0.text(r.entity?.id)
                $0.integer(r.startedAt)
                $0.text(factsText)
                $0.text(StoredValues.timers(r.timers))
                $0.integer(r.changedAt)
                $0.text(StoredValues.start(r.start))
            }
        }
    }

    /// The columns ``record(_:path:memo:)`` reads, in its order (by position: a read by name looks each name
    /// up again for every row).
    static let activityColumns = """
        key, attributes_type, phase, state, last_timestamp, entity_feed, entity_id, started_at, facts, sent_at, \
        timers, changed_at, delivered_state, delivered_timestamp, start
        """

    /// A record from a row of ``activityColumns``.
    static func record(_ row: Row, path: String, memo: ParsedText? = nil) throws -> ActivityRecord {
        try StoredValues.record(
            key: row[0], attributesType: row[1], phase: row[2], state: row[3], lastTimestamp: row[4],
            entityFeed: row[5], entityID: row[6], startedAt: row[7], facts: row[8], sentAt: row[9], timers: row[10],
            changedAt: row[11], deliveredState: row[12], deliveredTimestamp: row[13], start: row[14], location: path,
            memo: memo)
    }

    /// Makes pending activities active (their start was delivered), touching nothing else of their records
    /// but the due time of their timer rules: a rule may read the phase, so the next pass looks again.
    public func markActive(_ keys: [ActivityKey]) async throws(Failure) {
        try await run(
            "saving activities",
            { db in
                let update = try db.cachedStatement(
                    sql: """
                        UPDATE activity SET phase = 'active', timer_due = NULL
                        WHERE key = ? AND phase = 'pending'
                        """)
                for key in keys { try update.execute(arguments: [key.rawValue]) }
            }, write: true)
    }
}

/// A value's JSON text, kept for the next value when it is the same (compared before encoding, which costs
/// far less than writing it again).
struct JSONText {
    private var last: (value: JSONValue, text: String)?

    mutating func text(_ value: JSONValue) -> String {
        if let last, last.value == value { return last.text }
        let text = value.jsonString()
        last = (value, text)
        return text
    }
}
