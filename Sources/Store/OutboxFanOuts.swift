import Foundation
import GRDB
import LiveRelayCore

/// Fan-outs (``OutboxFanOut``): one row per push to every update token of an activity, with its cursor (the
/// last device whose receipt is written; `''` before the first). Their targets are read from
/// `activity_token` in device order (its primary key) when they are due.
extension SQLiteStore {
    static func registerFanOutMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v17-outbox-fan-out") { db in
            try db.create(table: "outbox_fan_out") { t in
                t.column("activity", .text).primaryKey()
                t.column("push", .text).notNull()
                t.column("timestamp", .integer).notNull()
                t.column("provider", .text).notNull()
                t.column("environment", .text)
                t.column("next_attempt", .integer).notNull()
                t.column("seq", .integer).notNull()
                t.column("cursor", .text).notNull().defaults(to: "")
            }
        }
    }

    /// Writes released fan-outs (a newer push replaces an older one with its cursor back at the start), and
    /// removes the fan-outs that `entries` (rows of the same activities, newer) supersede.
    static func saveFanOuts(
        _ fanOuts: [OutboxFanOut], superseding entries: [OutboxEntry], seq: inout Int, _ db: Database
    )
        throws
    {
        var newest: [ActivityKey: Int] = [:]
        for e in entries { newest[e.key.activity] = max(newest[e.key.activity] ?? Int.min, e.timestamp) }
        if !newest.isEmpty {
            let drop = try RowWriter(db, sql: "DELETE FROM outbox_fan_out WHERE activity = ? AND timestamp < ?")
            for (activity, timestamp) in newest {
                try drop.write {
                    $0.text(activity.rawValue)
                    $0.integer(timestamp)
                }
            }
        }
        guard !fanOuts.isEmpty else { return }
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO outbox_fan_out (activity, push, timestamp, provider, environment, next_attempt, seq, cursor)
                VALUES (?, ?, ?, ?, ?, ?, ?, '')
                ON CONFLICT(activity) DO UPDATE SET push = excluded.push, timestamp = excluded.timestamp,
                provider = excluded.provider, environment = excluded.environment, next_attempt = excluded.next_attempt,
                seq = excluded.seq, cursor = ''
                WHERE excluded.timestamp > outbox_fan_out.timestamp
                """)
        for f in fanOuts {
            seq += 1
            try insert.execute(
                arguments: [
                    f.activity.rawValue, String(decoding: f.push, as: UTF8.self), f.timestamp, f.provider,
                    f.environment?.rawValue, f.nextAttempt, seq,
                ])
        }
    }

    /// The highest release order number in use, rows and fan-outs together.
    static func lastSeq(_ db: Database) throws -> Int {
        try Int.fetchOne(
            db,
            sql:
                "SELECT MAX(COALESCE((SELECT MAX(seq) FROM outbox), 0), COALESCE((SELECT MAX(seq) FROM outbox_fan_out), 0))"
        ) ?? 0
    }

    /// A due fan-out as it was read.
    struct DueFanOut {
        var activity: ActivityKey
        var push: Data
        var timestamp: Int
        var provider: String
        var environment: String?
        var nextAttempt: Int
        var seq: Int
        var cursor: String
    }

    static func dueFanOuts(now: Int, _ db: Database) throws -> [DueFanOut] {
        try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT activity, push, timestamp, provider, environment, next_attempt, seq, cursor
                    FROM outbox_fan_out WHERE next_attempt <= ? ORDER BY seq
                    """), arguments: [now]
        ).map { row in
            let push: String = row[1]
            return DueFanOut(
                activity: ActivityKey(row[0]), push: Data(push.utf8), timestamp: row[2], provider: row[3],
                environment: row[4], nextAttempt: row[5], seq: row[6], cursor: row[7])
        }
    }

    /// Up to `limit` targets of a fan-out after its cursor, appended to `due` as rows of their own (without one
    /// in the table; read into the round itself, not copied into it); the last one is marked when the fan-out
    /// has no more. Returns how many were read.
    static func fanOutTargets(_ f: DueFanOut, limit: Int, into due: inout [OutboxEntry], _ db: Database) throws -> Int {
        guard limit > 0 else { return 0 }
        // Read through a cursor, each value taken from the statement's current row: fetching rows whole
        // would copy every row (its column names too) before a value is read.
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT device, token, environment FROM activity_token
                    WHERE activity = ? AND device > ? AND (? IS NULL OR environment = ?) ORDER BY device LIMIT ?
                    """), arguments: [f.activity.rawValue, f.cursor, f.environment, f.environment, limit])
        let first = due.count
        due.reserveCapacity(first + min(limit, 10_000))
        while let row = try rows.next() {
            let device: String = row[0]
            due.append(
                OutboxEntry(
                    key: OutboxKey(activity: f.activity, target: row[1]), kind: "activity", device: device,
                    environment: row[2], push: f.push, timestamp: f.timestamp, nextAttempt: f.nextAttempt,
                    provider: f.provider, fanOut: FanOutMark(position: device, last: false)))
        }
        let read = due.count - first
        // The last target is marked when the fan-out has no more.
        if read < limit, read > 0 { due[due.count - 1].fanOut?.last = true }
        return read
    }

    /// Writes what a round's receipts did to fan-outs: cursors moved (a fan-out a newer push replaced is left
    /// alone; one whose last target is passed leaves), and the targets to try again as rows of their own,
    /// unless a newer push of their activity is waiting.
    static func settleFanOuts(cursors: [FanOutCursor], later: [OutboxEntry], _ db: Database) throws {
        if !cursors.isEmpty {
            let move = try db.cachedStatement(
                sql: "UPDATE outbox_fan_out SET cursor = ? WHERE activity = ? AND timestamp = ? AND cursor < ?")
            let finish = try db.cachedStatement(sql: "DELETE FROM outbox_fan_out WHERE activity = ? AND timestamp = ?")
            for c in cursors {
                if c.finished {
                    try finish.execute(arguments: [c.activity.rawValue, c.timestamp])
                } else {
                    try move.execute(arguments: [c.position, c.activity.rawValue, c.timestamp, c.position])
                }
            }
        }
        guard !later.isEmpty else { return }
        var seq = try lastSeq(db)
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO outbox (activity, token, kind, device, environment, push, timestamp, attempts, next_attempt, seq,
                  provider)
                SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
                WHERE NOT EXISTS (SELECT 1 FROM outbox_fan_out WHERE activity = ?1 AND timestamp > ?7)
                ON CONFLICT(activity, token) DO UPDATE SET kind = excluded.kind, device = excluded.device,
                environment = excluded.environment, push = excluded.push, timestamp = excluded.timestamp,
                attempts = excluded.attempts, next_attempt = excluded.next_attempt, seq = excluded.seq,
                provider = excluded.provider, address_device = NULL, address_user = NULL, address_activity = NULL,
                channel = NULL, channel_policy = NULL
                WHERE excluded.timestamp > outbox.timestamp
                """)
        for e in later {
            seq += 1
            try insert.execute(
                arguments: [
                    e.key.activity.rawValue, e.key.target, e.kind, e.device, e.environment,
                    String(decoding: e.push, as: UTF8.self), e.timestamp, e.attempts, e.nextAttempt, seq, e.provider,
                ])
        }
    }

    /// Removes fan-outs with no target left after their cursors (read as due with none).
    static func removeSpentFanOuts(_ spent: [(ActivityKey, Int)], _ db: Database) throws {
        let finish = try db.cachedStatement(sql: "DELETE FROM outbox_fan_out WHERE activity = ? AND timestamp = ?")
        for (activity, timestamp) in spent { try finish.execute(arguments: [activity.rawValue, timestamp]) }
    }
}
