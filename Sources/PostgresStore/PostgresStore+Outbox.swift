import Foundation
import LiveRelayCore
import Logging
import PostgresNIO
public import Store

/// The outbox shared by every worker. Rows are written as on SQLite (one per activity and target; a newer
/// push replaces a waiting older one, never the reverse) and claimed for delivery with a lease:
///
/// - ``claimDue(worker:now:leaseSeconds:limit:)`` takes the due rows no live claim holds, in release order,
///   with `FOR UPDATE SKIP LOCKED`, so workers claiming at once get disjoint rows and none waits for another;
/// - ``settle(done:later:worker:)`` finishes a worker's rows (a row leaves once, by the worker that holds
///   it) and releases their claims;
/// - a worker that dies loses only its claims: they expire, and the rows go to whoever claims next.
///
/// A row a newer push replaces while it is claimed keeps the claim, so the newer state cannot go out on
/// another worker while the older one is still in flight (no older after newer, across workers); its
/// claim ends with the older request's settlement.
extension PostgresStore {
    /// Writes released rows: new ones, and newer pushes over waiting older ones (an older push never
    /// replaces a newer one). One statement for the whole batch (`unnest` over one array per column; an
    /// absent optional travels as `""`, which none of these columns holds, and is stored as NULL).
    public func enqueue(_ entries: [OutboxEntry]) async throws(Failure) {
        guard !entries.isEmpty else { return }
        try await transaction("writing \(entries.count) outbox rows") { connection in
            try await Self.enqueue(entries, connection, logger: logger)
        }
    }

    static func enqueue(_ entries: [OutboxEntry], _ connection: PostgresConnection, logger: Logger) async throws {
        guard !entries.isEmpty else { return }
        // Within one batch the newest push per target wins, as consecutive writes would decide.
        // One row per target (PostgreSQL refuses to update a row twice in one statement).
        var newest: [OutboxKey: OutboxEntry] = [:]
        for e in entries where (newest[e.key]?.timestamp ?? Int.min) < e.timestamp { newest[e.key] = e }
        var seen = Set<OutboxKey>()
        let rows = entries.filter { e in newest[e.key] == e && seen.insert(e.key).inserted }
        try await connection.checkedQuery(
            """
            INSERT INTO outbox (activity, target, kind, device, environment, push, "timestamp", attempts,
              next_attempt, address_device, address_user, address_activity, provider, channel, channel_policy)
            SELECT a, t, k, NULLIF(d, ''), NULLIF(e, ''), p, ts, n, na, NULLIF(ad, ''), NULLIF(au, ''),
              NULLIF(aa, ''), NULLIF(pr, ''), NULLIF(ch, ''), NULLIF(cp, -1)
            FROM unnest(\(rows.map(\.key.activity.rawValue))::text[], \(rows.map(\.key.target))::text[],
              \(rows.map(\.kind))::text[], \(rows.map { $0.device ?? "" })::text[],
              \(rows.map { $0.environment ?? "" })::text[],
              \(rows.map { String(decoding: $0.push, as: UTF8.self) })::text[], \(rows.map(\.timestamp))::bigint[],
              \(rows.map(\.attempts))::integer[], \(rows.map(\.nextAttempt))::bigint[],
              \(rows.map { $0.address.device ?? "" })::text[], \(rows.map { $0.address.user ?? "" })::text[],
              \(rows.map { $0.address.activity ?? "" })::text[], \(rows.map { $0.provider ?? "" })::text[],
              \(rows.map { $0.channel ?? "" })::text[], \(rows.map { $0.channelPolicy ?? -1 })::integer[])
              AS r(a, t, k, d, e, p, ts, n, na, ad, au, aa, pr, ch, cp)
            ON CONFLICT (activity, target) DO UPDATE SET kind = excluded.kind, device = excluded.device,
              environment = excluded.environment, push = excluded.push, "timestamp" = excluded."timestamp",
              attempts = excluded.attempts, next_attempt = excluded.next_attempt,
              seq = nextval(pg_get_serial_sequence('outbox', 'seq')), address_device = excluded.address_device,
              address_user = excluded.address_user, address_activity = excluded.address_activity,
              provider = excluded.provider, channel = excluded.channel, channel_policy = excluded.channel_policy
            WHERE excluded."timestamp" > outbox."timestamp"
            """, logger: logger)
    }

    /// Claims up to `limit` due rows for `worker` until `now + leaseSeconds`, in release order: rows due at
    /// `now` that no live claim holds (a dead worker's expired claims included, and at once the claims of a
    /// worker whose heartbeat has lapsed).
    public func claimDue(worker: String, now: Int, leaseSeconds: Int, limit: Int) async throws(Failure)
        -> [OutboxEntry]
    {
        try await claim(worker: worker, now: now, claimClock: now, leaseSeconds: leaseSeconds, limit: limit)
    }

    /// Claims due rows; claims are timed on `claimClock` (the database's clock when `nil`), so workers whose
    /// clocks disagree never take each other's live claims.
    func claim(worker: String, now: Int, claimClock: Int?, leaseSeconds: Int, limit: Int) async throws(Failure)
        -> [OutboxEntry]
    {
        let clock = Self.clock(claimClock)
        let gone = goneOwners(clock)
        return try await transaction("claiming outbox rows") { connection in
            // A row of a newer push waits while a chunk of an older fan-out of its activity is still out.
            let rows = try await connection.checkedQuery(
                """
                UPDATE outbox o SET claimed_by = \(worker), claim_expires = \(unescaped: clock) + \(leaseSeconds)
                FROM (SELECT activity, target FROM outbox x
                      WHERE next_attempt <= \(now)
                        AND (claim_expires IS NULL OR claim_expires <= \(unescaped: clock)
                             OR claimed_by IN (\(unescaped: gone)))
                        AND NOT EXISTS (SELECT 1 FROM outbox_fan_out_chunk c
                                        WHERE c.activity = x.activity AND c."timestamp" < x."timestamp")
                      ORDER BY seq LIMIT \(limit) FOR UPDATE SKIP LOCKED) due
                WHERE o.activity = due.activity AND o.target = due.target
                RETURNING o.activity, o.target, o.kind, o.device, o.environment, o.push, o."timestamp", o.attempts,
                  o.next_attempt, o.address_device, o.address_user, o.address_activity, o.provider, o.channel,
                  o.channel_policy, o.seq
                """, logger: logger)
            var claimed: [(seq: Int, entry: OutboxEntry)] = []
            for try await row in rows {
                claimed.append(try Self.entry(row))
            }
            let entries = claimed.sorted { $0.seq < $1.seq }.map(\.entry)
            guard entries.count < limit else { return entries }
            return entries
                + (try await Self.claimFanOuts(
                    owner: worker, now: now, clock: clock, gone: gone, leaseSeconds: leaseSeconds,
                    limit: limit - entries.count, connection, logger: logger))
        }
    }

    /// Settles `worker`'s claimed rows in one transaction: `done` rows leave the outbox (unless a newer push
    /// replaced one meanwhile), `later` rows get their attempts and next attempt; every claim of theirs
    /// `worker` holds ends (a replaced row becomes claimable with its newer push). Fan-out targets (marked)
    /// have no rows: `cursors` move `worker`'s chunks, and the marked targets in `later` become rows.
    public func settle(
        done: [OutboxEntry], later: [OutboxEntry], cursors: [FanOutCursor] = [], worker: String
    ) async throws(Failure) {
        guard !done.isEmpty || !later.isEmpty || !cursors.isEmpty else { return }
        try await transaction("settling outbox rows") { connection in
            try await Self.settle(
                done: done, later: later, cursors: cursors, worker: worker, connection, logger: logger)
        }
    }

    /// A round's receipts for `worker`: its rows settled, its fan-out chunks' cursors moved, and the marked
    /// targets to try again written as rows.
    static func settle(
        done: [OutboxEntry], later: [OutboxEntry], cursors: [FanOutCursor], worker: String,
        _ connection: PostgresConnection, logger: Logger
    ) async throws {
        try await settle(
            done: done.filter { $0.fanOut == nil }, later: later.filter { $0.fanOut == nil }, worker: worker,
            connection, logger: logger)
        try await settleFanOuts(
            cursors: cursors, later: later.filter { $0.fanOut != nil }, owner: worker, connection, logger: logger)
    }

    static func settle(
        done: [OutboxEntry], later: [OutboxEntry], worker: String, _ connection: PostgresConnection, logger: Logger
    ) async throws {
        guard !done.isEmpty || !later.isEmpty else { return }
        let all = done + later
        if !done.isEmpty {
            try await connection.checkedQuery(
                """
                DELETE FROM outbox o USING unnest(\(done.map(\.key.activity.rawValue))::text[],
                  \(done.map(\.key.target))::text[], \(done.map(\.timestamp))::bigint[]) AS d(activity, target, ts)
                WHERE o.activity = d.activity AND o.target = d.target AND o."timestamp" = d.ts
                  AND (o.claimed_by = \(worker) OR o.claimed_by IS NULL)
                """, logger: logger)
        }
        if !later.isEmpty {
            try await connection.checkedQuery(
                """
                UPDATE outbox o SET attempts = l.attempts, next_attempt = l.next_attempt
                FROM unnest(\(later.map(\.key.activity.rawValue))::text[], \(later.map(\.key.target))::text[],
                  \(later.map(\.timestamp))::bigint[], \(later.map(\.attempts))::integer[],
                  \(later.map(\.nextAttempt))::bigint[]) AS l(activity, target, ts, attempts, next_attempt)
                WHERE o.activity = l.activity AND o.target = l.target AND o."timestamp" = l.ts
                  AND (o.claimed_by = \(worker) OR o.claimed_by IS NULL)
                """, logger: logger)
        }
        try await connection.checkedQuery(
            """
            UPDATE outbox o SET claimed_by = NULL, claim_expires = NULL
            FROM unnest(\(all.map(\.key.activity.rawValue))::text[], \(all.map(\.key.target))::text[])
              AS r(activity, target)
            WHERE o.activity = r.activity AND o.target = r.target AND o.claimed_by = \(worker)
            """, logger: logger)
    }

    /// How many rows wait (claimed or not).
    public func outboxDepth() async throws(Failure) -> Int {
        try await run("counting outbox rows") { client in
            // A fan-out counts as one, as in ``outboxStatus()``.
            for try await count in try await client.query(
                "SELECT (SELECT count(*) FROM outbox) + (SELECT count(*) FROM outbox_fan_out)", logger: logger
            ).decode(Int.self) {
                return count
            }
            return 0
        }
    }

    static let outboxColumns = """
        activity, target, kind, device, environment, push, "timestamp", attempts, next_attempt, address_device,
        address_user, address_activity, provider, channel, channel_policy, seq
        """

    static func entry(_ row: PostgresRow) throws -> (seq: Int, entry: OutboxEntry) {
        let r = row.makeRandomAccess()
        let entry = OutboxEntry(
            key: OutboxKey(
                activity: ActivityKey(try r["activity"].decode(String.self)),
                target: try r["target"].decode(String.self)),
            kind: try r["kind"].decode(String.self), device: try r["device"].decode(String?.self),
            environment: try r["environment"].decode(String?.self),
            push: Data(try r["push"].decode(String.self).utf8), timestamp: try r["timestamp"].decode(Int.self),
            attempts: try r["attempts"].decode(Int.self), nextAttempt: try r["next_attempt"].decode(Int.self),
            address: ProviderAddress(
                device: try r["address_device"].decode(String?.self), user: try r["address_user"].decode(String?.self),
                activity: try r["address_activity"].decode(String?.self)),
            provider: try r["provider"].decode(String?.self), channel: try r["channel"].decode(String?.self),
            channelPolicy: try r["channel_policy"].decode(Int?.self))
        return (try r["seq"].decode(Int.self), entry)
    }
}
