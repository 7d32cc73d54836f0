public import Foundation
import GRDB
public import LiveRelayCore

/// The durable outbox: what the throttle released is written here (in the same transaction as the throttle's
/// state) before it is sent, and leaves only on a final receipt. One row per activity and token: a newer state
/// replaces a waiting older one, and an older one never replaces a newer.
extension SQLiteStore {
    static func registerOutboxMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v4-outbox") { db in
            try db.create(table: "outbox") { t in
                t.column("activity", .text).notNull()
                t.column("token", .text).notNull()
                t.column("kind", .text).notNull()
                t.column("device", .text)
                t.column("environment", .text)
                t.column("push", .text).notNull()
                t.column("timestamp", .integer).notNull()
                t.column("attempts", .integer).notNull()
                t.column("next_attempt", .integer).notNull()
                t.primaryKey(["activity", "token"])
            }
            try db.create(index: "outbox_due", on: "outbox", columns: ["next_attempt"])
        }
        migrator.registerMigration("v6-outbox-order") { db in
            // The throttle's release order (highest relevance, then oldest), kept for delivery.
            try db.alter(table: "outbox") { t in t.add(column: "seq", .integer).notNull().defaults(to: 0) }
        }
        migrator.registerMigration("v7-outbox-addresses") { db in
            try db.alter(table: "outbox") { t in
                t.add(column: "address_device", .text)
                t.add(column: "address_user", .text)
                t.add(column: "address_activity", .text)
            }
        }
        migrator.registerMigration("v8-outbox-provider") { db in
            // The provider a row was released to, so a rule reload that changes routes never moves it.
            try db.alter(table: "outbox") { t in t.add(column: "provider", .text) }
        }
    }

    /// Saves released pushes and the throttle states that released them, in one transaction.
    /// Older rows the release supersedes go in the same transaction: `rewrites` replace a row's push and
    /// timestamp if it still holds the push it held when read (`timestamp` then), `drops` remove rows the
    /// same way; a row delivered meanwhile is left alone. `history` records the release for the live report.
    public func commitRelease(
        throttleStates: [(key: ActivityKey, json: Data, pending: Bool)], outbox entries: [OutboxEntry],
        fanOuts: [OutboxFanOut] = [], rewrites: [OutboxRewrite] = [], drops: [OutboxEntry] = [],
        history: HistoryWrite? = nil, paces: StartPaces = StartPaces()
    ) async throws(Failure) {
        try await run(
            "saving released pushes",
            { db in
                try Self.saveThrottleStates(throttleStates, db)
                try Self.saveStartPaces(paces, db)
                try Self.saveHistory(history, db)
                // Statements prepared once and reused: a fan-out runs them once per device.
                let rewrite = try db.cachedStatement(
                    sql: "UPDATE outbox SET push = ?, timestamp = ? WHERE activity = ? AND token = ? AND timestamp = ?")
                for r in rewrites {
                    try rewrite.execute(
                        arguments: [
                            String(decoding: r.row.push, as: UTF8.self), r.row.timestamp, r.row.key.activity.rawValue,
                            r.row.key.target, r.previousTimestamp,
                        ])
                }
                let drop = try db.cachedStatement(
                    sql: "DELETE FROM outbox WHERE activity = ? AND token = ? AND timestamp = ?")
                for d in drops where d.fanOut == nil {
                    try drop.execute(arguments: [d.key.activity.rawValue, d.key.target, d.timestamp])
                }
                try Self.removeSpentFanOuts(
                    drops.filter { $0.fanOut != nil }.map { ($0.key.activity, $0.timestamp) }, db)
                var seq = try Self.lastSeq(db)
                try Self.saveFanOuts(fanOuts, superseding: entries, seq: &seq, db)
                let insert = try RowWriter(
                    db,
                    sql: """
                        INSERT INTO outbox (activity, token, kind, device, environment, push, timestamp, attempts, next_attempt, seq,
                          address_device, address_user, address_activity, provider, channel, channel_policy)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        ON CONFLICT(activity, token) DO UPDATE SET kind = excluded.kind, device = excluded.device,
                        environment = excluded.environment, push = excluded.push, timestamp = excluded.timestamp,
                        attempts = excluded.attempts, next_attempt = excluded.next_attempt, seq = excluded.seq,
                        address_device = excluded.address_device, address_user = excluded.address_user,
                        address_activity = excluded.address_activity, provider = excluded.provider,
                        channel = excluded.channel, channel_policy = excluded.channel_policy
                        WHERE excluded.timestamp > outbox.timestamp
                        """)
                for e in entries {
                    seq += 1
                    try insert.write {
                        $0.text(e.key.activity.rawValue)
                        $0.text(e.key.target)
                        $0.text(e.kind)
                        $0.text(e.device)
                        $0.text(e.environment)
                        $0.text(utf8: e.push)
                        $0.integer(e.timestamp)
                        $0.integer(e.attempts)
                        $0.integer(e.nextAttempt)
                        $0.integer(seq)
                        $0.text(e.address.device)
                        $0.text(e.address.user)
                        $0.text(e.address.activity)
                        $0.text(e.provider)
                        $0.text(e.channel)
                        $0.integer(e.channelPolicy)
                    }
                }
            }, write: true)
    }

    /// Rows due now, in the order the throttle released them, at most `limit`: the outbox's rows, and the next
    /// targets of each due fan-out after its cursor (marked with ``OutboxEntry/fanOut``). A fan-out found with
    /// no target left leaves the outbox.
    ///
    /// With a round in flight (`inFlight`), the next round's: its rows are skipped, and each of its fan-outs
    /// is read after the last target it holds (``OutboxInFlight/read(fanOut:timestamp:)``).
    public func dueOutbox(now: Int, limit: Int, after inFlight: OutboxInFlight) async throws(Failure)
        -> [OutboxEntry]
    {
        let (due, spent) = try await run(
            "reading the outbox",
            { db in
                // Each value read from the statement's current row (a cursor), not from a copy of every row.
                // Rows in flight are among the first due: read as many more, then skipped.
                let rows = try Array(
                    Row.fetchCursor(
                        db.cachedStatement(
                            sql:
                                "SELECT \(Self.entryColumns), seq FROM outbox WHERE next_attempt <= ? ORDER BY seq LIMIT ?"
                        ),
                        arguments: [now, limit + inFlight.rows.count]
                    ).map { (entry: Self.entry($0), seq: $0[15] as Int) }
                        .filter { inFlight.rows.isEmpty || !inFlight.rows.contains($0.entry.key) }.prefix(limit))
                let fanOuts = try Self.dueFanOuts(now: now, db)
                guard !fanOuts.isEmpty else { return (rows.map(\.entry), [(ActivityKey, Int)]()) }
                // Rows and fan-outs in release order, the fan-outs' targets read as far as the limit allows.
                var due: [OutboxEntry] = []
                var spent: [(ActivityKey, Int)] = []
                var next = rows.startIndex
                for var f in fanOuts {
                    while next < rows.endIndex, rows[next].seq < f.seq, due.count < limit {
                        due.append(rows[next].entry)
                        next += 1
                    }
                    guard due.count < limit else { break }
                    // Past the round in flight, no target left is not spent: that round's receipts are still
                    // to be written (a kill before them sends its targets again from the stored cursor).
                    let fromCursor: Bool
                    switch inFlight.read(fanOut: f.activity, timestamp: f.timestamp) {
                    case .skip: continue
                    case .after(let position): (f.cursor, fromCursor) = (position, false)
                    case .fromCursor: fromCursor = true
                    }
                    let read = try Self.fanOutTargets(f, limit: limit - due.count, into: &due, db)
                    if read == 0, fromCursor { spent.append((f.activity, f.timestamp)) }
                }
                while next < rows.endIndex, due.count < limit {
                    due.append(rows[next].entry)
                    next += 1
                }
                return (due, spent)
            }, write: false)
        if !spent.isEmpty {
            try await run("removing finished fan-outs", { db in try Self.removeSpentFanOuts(spent, db) }, write: true)
        }
        return due
    }

    /// Every row waiting for these activities, due or not; a fan-out as one row at its cursor (marked with
    /// ``OutboxEntry/fanOut``, no target), before the rows.
    public func waitingOutbox(activities keys: [ActivityKey]) async throws(Failure) -> [OutboxEntry] {
        return try await run(
            "reading the outbox",
            { db in
                var rows: [OutboxEntry] = []
                let list = Self.list(keys.map(\.rawValue))
                // The fan-outs in the order of `keys` (one statement for all of them).
                var fanOuts: [ActivityKey: OutboxEntry] = [:]
                let found = try Row.fetchCursor(
                    db.cachedStatement(
                        sql: """
                            SELECT activity, push, timestamp, provider, next_attempt, cursor FROM outbox_fan_out
                            WHERE activity IN (SELECT value FROM json_each(?))
                            """),
                    arguments: [list])
                while let row = try found.next() {
                    let key = ActivityKey(row[0])
                    let push: String = row[1]
                    fanOuts[key] = OutboxEntry(
                        key: OutboxKey(activity: key, target: ""), kind: "activity", device: nil, environment: nil,
                        push: Data(push.utf8), timestamp: row[2], nextAttempt: row[4], provider: row[3],
                        fanOut: FanOutMark(position: row[5], last: false))
                }
                if !fanOuts.isEmpty { rows += keys.compactMap { fanOuts[$0] } }
                rows += try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT \(Self.entryColumns) FROM outbox WHERE activity IN (SELECT value FROM json_each(?))
                            ORDER BY seq
                            """),
                    arguments: [list]
                ).map(Self.entry)
                return rows
            }, write: false)
    }

    /// The columns `entry` reads, in its order (by position: looking a column up by name lower-cases it
    /// each time).
    private static let entryColumns = """
        activity, token, kind, device, environment, push, timestamp, attempts, next_attempt, address_device,
        address_user, address_activity, provider, channel, channel_policy
        """

    private static func entry(_ row: Row) -> OutboxEntry {
        let push: String = row[5]
        return OutboxEntry(
            key: OutboxKey(activity: ActivityKey(row[0]), target: row[1]), kind: row[2], device: row[3],
            environment: row[4], push: Data(push.utf8), timestamp: row[6], attempts: row[7], nextAttempt: row[8],
            address: ProviderAddress(device: row[9], user: row[10], activity: row[11]), provider: row[12],
            channel: row[13], channelPolicy: row[14])
    }

    /// Removes rows after their final receipts, unless a newer push has replaced one meanwhile.
    public func completeOutbox(_ rows: [OutboxEntry]) async throws(Failure) {
        try await run(
            "completing outbox rows",
            { db in
                let delete = try db.cachedStatement(
                    sql: "DELETE FROM outbox WHERE activity = ? AND token = ? AND timestamp = ?")
                for r in rows where r.fanOut == nil {
                    try delete.execute(arguments: [r.key.activity.rawValue, r.key.target, r.timestamp])
                }
            }, write: true)
    }

    /// Records final and temporary receipts in one transaction: `done` rows leave the outbox, `later` rows
    /// get their attempts and next attempt, and `started` devices are marked as started on their activities
    /// (at `now`), so the mark and the row's end are one write; the `sent` pushes' activities get `now` as the
    /// time a push of theirs last got through (`activity.sent-at`), and the newest push's state as their
    /// delivered state (`activity.delivered-state`). A row a newer push has replaced meanwhile is left alone.
    ///
    /// A fan-out's targets have no rows: `cursors` move their fan-outs past the targets whose receipts are
    /// written (``FanOutProgress``), and those of them in `later` become rows of their own.
    public func settleOutbox(
        done: [OutboxEntry], later: [OutboxEntry], started: [DeviceStart], sent: [SentPush] = [],
        cursors: [FanOutCursor] = [], now: Int
    ) async throws(Failure) {
        guard !done.isEmpty || !later.isEmpty || !started.isEmpty || !sent.isEmpty || !cursors.isEmpty else { return }
        try await run(
            "settling outbox rows",
            { db in
                let delete = try db.cachedStatement(
                    sql: "DELETE FROM outbox WHERE activity = ? AND token = ? AND timestamp = ?")
                for r in done where r.fanOut == nil {
                    try delete.execute(arguments: [r.key.activity.rawValue, r.key.target, r.timestamp])
                }
                try Self.settleFanOuts(cursors: cursors, later: later.filter { $0.fanOut != nil }, db)
                let retry = try db.cachedStatement(
                    sql:
                        "UPDATE outbox SET attempts = ?, next_attempt = ? WHERE activity = ? AND token = ? AND timestamp = ?"
                )
                for r in later where r.fanOut == nil {
                    try retry.execute(
                        arguments: [r.attempts, r.nextAttempt, r.key.activity.rawValue, r.key.target, r.timestamp])
                }
                try SQLiteStore.markStarted(started, now: now, in: db)
                let delivered = try db.cachedStatement(
                    sql: """
                        UPDATE activity SET sent_at = MAX(COALESCE(sent_at, 0), ?),
                        delivered_state = CASE WHEN COALESCE(delivered_timestamp, -1) < ? THEN ? ELSE delivered_state END,
                        delivered_timestamp = MAX(COALESCE(delivered_timestamp, -1), ?) WHERE key = ?
                        """)
                for push in SentPush.newest(sent) {
                    try delivered.execute(arguments: [
                        now, push.timestamp, push.state.jsonString(), push.timestamp, push.activity.rawValue,
                    ])
                }
            }, write: true)
    }

    /// How many rows wait, and when the earliest is due.
    public func outboxStatus() async throws(Failure) -> (depth: Int, nextAttempt: Int?) {
        try await run(
            "reading the outbox",
            { db in
                // A fan-out counts as one: its targets are not counted until they fail.
                let rows = try Row.fetchOne(db, sql: "SELECT COUNT(*), MIN(next_attempt) FROM outbox")
                let fanOuts = try Row.fetchOne(db, sql: "SELECT COUNT(*), MIN(next_attempt) FROM outbox_fan_out")
                let next = [rows?[1] as Int?, fanOuts?[1] as Int?].compactMap { $0 }.min()
                return ((rows?[0] ?? 0) + (fanOuts?[0] ?? 0), next)
            }, write: false)
    }

    /// The saved push-to-start windows of these keys.
    public func startPaces(_ keys: [String]) async throws(Failure) -> [String: [Int]] {
        try await run(
            "reading push-to-start pacing",
            { db in
                var out: [String: [Int]] = [:]
                for row in try Row.fetchAll(
                    db.cachedStatement(
                        sql: "SELECT key, sends FROM start_pace WHERE key IN (SELECT value FROM json_each(?))"),
                    arguments: [Self.list(keys)])
                {
                    out[row[0]] = StoredValues.times(row[1])
                }
                return out
            }, write: false)
    }

    static func saveStartPaces(_ paces: StartPaces, _ db: Database) throws {
        guard !paces.windows.isEmpty else { return }
        try db.execute(sql: "DELETE FROM start_pace WHERE last < ?", arguments: [paces.keepFrom])
        // Bound straight through SQLite's C API: a poll that starts 1,000 alerts writes 1,000 windows.
        let upsert = try RowWriter(
            db,
            sql: """
                INSERT INTO start_pace (key, sends, last) VALUES (?, ?, ?)
                ON CONFLICT(key) DO UPDATE SET sends = excluded.sends, last = excluded.last
                """)
        let delete = try RowWriter(db, sql: "DELETE FROM start_pace WHERE key = ?")
        for (key, sends) in paces.windows {
            guard let last = sends.last, last >= paces.keepFrom else {
                try delete.write { $0.text(key) }
                continue
            }
            try upsert.write {
                $0.text(key)
                $0.text(StoredValues.timesText(sends))
                $0.integer(last)
            }
        }
    }
}
