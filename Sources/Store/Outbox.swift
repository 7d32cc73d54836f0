public import Foundation
import GRDB
public import LiveRelayCore

/// One outbox row's identity: an activity and a target. A newer push for the same activity and target
/// replaces a waiting older one.
public struct OutboxKey: Sendable, Hashable, Comparable {
    /// The activity.
    public var activity: ActivityKey
    /// The target: its APNs token, else its provider address (`@device:…`, `@user:…`, `@activity:…`), else
    /// `""` (the console's placeholder).
    public var target: String

    /// Creates a key.
    public init(activity: ActivityKey, target: String) {
        self.activity = activity
        self.target = target
    }

    /// By activity, then target.
    public static func < (a: OutboxKey, b: OutboxKey) -> Bool {
        a.activity != b.activity ? a.activity < b.activity : a.target < b.target
    }
}

/// One push to one target, waiting in the durable outbox until a final receipt.
public struct OutboxEntry: Sendable, Hashable {
    /// Which activity and target.
    public var key: OutboxKey
    /// `push-to-start` or `activity`.
    public var kind: String
    public var device: String?
    public var environment: String?
    /// The push, as JSON (the Worker encodes it).
    public var push: Data
    /// The push's timestamp: a row is only ever replaced by a newer one.
    public var timestamp: Int
    /// Delivery rounds so far.
    public var attempts: Int
    /// UNIX seconds before which it is not sent again.
    public var nextAttempt: Int
    /// Where FCM, Pushwoosh or Getui address it (their device, user or activity ids).
    public var address: ProviderAddress
    /// The id of the provider it was released to; `nil` for rows written before providers were recorded.
    public var provider: String?
    /// The broadcast channel: a `channel` row's, or the one a push-to-start row's activity subscribes to.
    public var channel: String?
    /// A `channel` row's channel's storage policy (its broadcasts' `apns-expiration` follows it).
    public var channelPolicy: Int?

    public init(
        key: OutboxKey, kind: String, device: String?, environment: String?, push: Data, timestamp: Int,
        attempts: Int = 0, nextAttempt: Int, address: ProviderAddress = ProviderAddress(), provider: String? = nil,
        channel: String? = nil, channelPolicy: Int? = nil
    ) {
        self.channel = channel
        self.channelPolicy = channelPolicy
        self.provider = provider
        self.key = key
        self.kind = kind
        self.device = device
        self.environment = environment
        self.push = push
        self.timestamp = timestamp
        self.attempts = attempts
        self.nextAttempt = nextAttempt
        self.address = address
    }

    /// The push it carries: its activity and timestamp.
    public var pushID: PushID { PushID(activity: key.activity, timestamp: timestamp) }
}

/// A waiting row given a newer push (a start carrying a newer state), if it still holds the push it held at
/// `previousTimestamp`.
public struct OutboxRewrite: Sendable, Hashable {
    /// The row with its new push and timestamp.
    public var row: OutboxEntry
    /// Its timestamp when it was read.
    public var previousTimestamp: Int

    /// A rewrite.
    public init(row: OutboxEntry, previousTimestamp: Int) {
        self.row = row
        self.previousTimestamp = previousTimestamp
    }
}

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
        rewrites: [OutboxRewrite] = [], drops: [OutboxEntry] = [], history: HistoryWrite? = nil,
        paces: StartPaces = StartPaces()
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
                for d in drops {
                    try drop.execute(arguments: [d.key.activity.rawValue, d.key.target, d.timestamp])
                }
                var seq = try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(seq), 0) FROM outbox") ?? 0
                let insert = try db.cachedStatement(
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
                    try insert.execute(
                        arguments: [
                            e.key.activity.rawValue, e.key.target, e.kind, e.device, e.environment,
                            String(decoding: e.push, as: UTF8.self), e.timestamp, e.attempts, e.nextAttempt, seq,
                            e.address.device, e.address.user, e.address.activity, e.provider, e.channel,
                            e.channelPolicy,
                        ])
                }
            }, write: true)
    }

    /// Rows due now, in the order the throttle released them.
    public func dueOutbox(now: Int, limit: Int = 10_000) async throws(Failure) -> [OutboxEntry] {
        try await run(
            "reading the outbox",
            { db in
                try Row.fetchAll(
                    db.cachedStatement(
                        sql: "SELECT \(Self.entryColumns) FROM outbox WHERE next_attempt <= ? ORDER BY seq LIMIT ?"),
                    arguments: [now, limit]
                ).map(Self.entry)
            }, write: false)
    }

    /// Every row waiting for these activities, due or not.
    public func waitingOutbox(activities keys: [ActivityKey]) async throws(Failure) -> [OutboxEntry] {
        return try await run(
            "reading the outbox",
            { db in
                var rows: [OutboxEntry] = []
                for start in stride(from: 0, to: keys.count, by: 500) {
                    let chunk = keys[start..<min(start + 500, keys.count)]
                    let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                    rows += try Row.fetchAll(
                        db, sql: "SELECT \(Self.entryColumns) FROM outbox WHERE activity IN (\(marks)) ORDER BY seq",
                        arguments: StatementArguments(chunk.map(\.rawValue))
                    ).map(Self.entry)
                }
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
                for r in rows {
                    try delete.execute(arguments: [r.key.activity.rawValue, r.key.target, r.timestamp])
                }
            }, write: true)
    }

    /// Records final and temporary receipts in one transaction: `done` rows leave the outbox, `later` rows
    /// get their attempts and next attempt, and `started` devices are marked as started on their activities
    /// (at `now`), so the mark and the row's end are one write; the `sent` pushes' activities get `now` as the
    /// time a push of theirs last got through (`activity.sent-at`), and the newest push's state as their
    /// delivered state (`activity.delivered-state`). A row a newer push has replaced meanwhile is left alone.
    public func settleOutbox(
        done: [OutboxEntry], later: [OutboxEntry], started: [DeviceStart], sent: [SentPush] = [], now: Int
    ) async throws(Failure) {
        guard !done.isEmpty || !later.isEmpty || !started.isEmpty || !sent.isEmpty else { return }
        try await run(
            "settling outbox rows",
            { db in
                let delete = try db.cachedStatement(
                    sql: "DELETE FROM outbox WHERE activity = ? AND token = ? AND timestamp = ?")
                for r in done {
                    try delete.execute(arguments: [r.key.activity.rawValue, r.key.target, r.timestamp])
                }
                let retry = try db.cachedStatement(
                    sql:
                        "UPDATE outbox SET attempts = ?, next_attempt = ? WHERE activity = ? AND token = ? AND timestamp = ?"
                )
                for r in later {
                    try retry.execute(
                        arguments: [r.attempts, r.nextAttempt, r.key.activity.rawValue, r.key.target, r.timestamp])
                }
                try SQLiteStore.markStarted(started, now: now, in: db)
                for push in SentPush.newest(sent) {
                    try db.execute(
                        sql: """
                            UPDATE activity SET sent_at = MAX(COALESCE(sent_at, 0), ?),
                            delivered_state = CASE WHEN COALESCE(delivered_timestamp, -1) < ? THEN ? ELSE delivered_state END,
                            delivered_timestamp = MAX(COALESCE(delivered_timestamp, -1), ?) WHERE key = ?
                            """,
                        arguments: [
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
                let row = try Row.fetchOne(db, sql: "SELECT COUNT(*) AS n, MIN(next_attempt) AS t FROM outbox")
                return (row?["n"] ?? 0, row?["t"])
            }, write: false)
    }

    /// The saved push-to-start windows of these keys.
    public func startPaces(_ keys: [String]) async throws(Failure) -> [String: [Int]] {
        try await run(
            "reading push-to-start pacing",
            { db in
                var out: [String: [Int]] = [:]
                for start in stride(from: 0, to: keys.count, by: 500) {
                    let chunk = keys[start..<min(start + 500, keys.count)]
                    let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                    for row in try Row.fetchAll(
                        db, sql: "SELECT key, sends FROM start_pace WHERE key IN (\(marks))",
                        arguments: StatementArguments(Array(chunk)))
                    {
                        out[row["key"]] = StoredValues.times(row["sends"])
                    }
                }
                return out
            }, write: false)
    }

    static func saveStartPaces(_ paces: StartPaces, _ db: Database) throws {
        guard !paces.windows.isEmpty else { return }
        try db.execute(sql: "DELETE FROM start_pace WHERE last < ?", arguments: [paces.keepFrom])
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO start_pace (key, sends, last) VALUES (?, ?, ?)
                ON CONFLICT(key) DO UPDATE SET sends = excluded.sends, last = excluded.last
                """)
        for (key, sends) in paces.windows {
            guard let last = sends.last, last >= paces.keepFrom else {
                try db.execute(sql: "DELETE FROM start_pace WHERE key = ?", arguments: [key])
                continue
            }
            try statement.execute(arguments: [key, StoredValues.timesText(sends), last])
        }
    }
}
