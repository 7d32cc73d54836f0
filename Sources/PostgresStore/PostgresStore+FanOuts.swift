import Foundation
import LiveRelayCore
import Logging
import PostgresNIO
import Store

/// Fan-outs (``OutboxFanOut``) on the shared store: one row per push to every update token of an activity
/// (`outbox_fan_out`: the push once, and its `frontier`, the last device handed out), and the chunks workers
/// claim from it (`outbox_fan_out_chunk`: the devices after `first` up to `last`, in device order, with the
/// chunk's own cursor and claim). Workers share a fan-out by claiming chunks of it, each chunk once:
///
/// - a claim takes the next devices after the frontier as a new chunk and moves the frontier past them, under
///   the fan-out row's lock (`FOR UPDATE SKIP LOCKED`: workers claiming at once take different fan-outs, or the
///   same one in turn);
/// - as receipts are written the chunk's cursor moves past the devices whose receipts are all written
///   (``FanOutProgress``); past its last device the chunk is done and goes;
/// - a chunk whose claim lapsed (its worker died or stalled) is taken over from its cursor, so a kill resends
///   at most what had no written receipt;
/// - a newer push of the activity replaces the fan-out with its frontier back at the start, and its chunks wait
///   until no chunk of an older push is left: a device never gets the older state after the newer one, across
///   workers. A lapsed chunk of a replaced push is dropped, not resent (its devices get the newer state).
///
/// A target that fails for now becomes an ordinary outbox row with its own retries, unless a newer push of its
/// activity waits.
extension PostgresStore {
    /// Writes released fan-outs (a newer push replaces an older one with its frontier back at the start), and
    /// removes the fan-outs that `entries` (rows of the same activities, newer) supersede.
    static func enqueue(
        _ fanOuts: [OutboxFanOut], superseding entries: [OutboxEntry], _ connection: PostgresConnection,
        logger: Logger
    ) async throws {
        var newest: [ActivityKey: Int] = [:]
        for e in entries { newest[e.key.activity] = max(newest[e.key.activity] ?? Int.min, e.timestamp) }
        if !newest.isEmpty {
            let keys = Array(newest.keys)
            try await connection.checkedQuery(
                """
                DELETE FROM outbox_fan_out f USING unnest(\(keys.map(\.rawValue))::text[],
                  \(keys.map { newest[$0]! })::bigint[]) AS n(activity, ts)
                WHERE f.activity = n.activity AND f."timestamp" < n.ts
                """, logger: logger)
        }
        for f in fanOuts {
            try await connection.checkedQuery(
                """
                INSERT INTO outbox_fan_out (activity, push, "timestamp", provider, environment, next_attempt, seq,
                  frontier)
                VALUES (\(f.activity.rawValue), \(String(decoding: f.push, as: UTF8.self)), \(f.timestamp),
                  \(f.provider), \(f.environment?.rawValue), \(f.nextAttempt),
                  nextval(pg_get_serial_sequence('outbox', 'seq')), '')
                ON CONFLICT (activity) DO UPDATE SET push = excluded.push, "timestamp" = excluded."timestamp",
                  provider = excluded.provider, environment = excluded.environment,
                  next_attempt = excluded.next_attempt, seq = excluded.seq, frontier = ''
                WHERE excluded."timestamp" > outbox_fan_out."timestamp"
                """, logger: logger)
        }
    }

    /// Removes fan-outs a release dropped (as rows of a newer push replace them), by activity and timestamp.
    static func dropFanOuts(_ drops: [OutboxEntry], _ connection: PostgresConnection, logger: Logger) async throws {
        let gone = drops.filter { $0.fanOut != nil }
        guard !gone.isEmpty else { return }
        try await connection.checkedQuery(
            """
            DELETE FROM outbox_fan_out f USING unnest(\(gone.map(\.key.activity.rawValue))::text[],
              \(gone.map(\.timestamp))::bigint[]) AS d(activity, ts)
            WHERE f.activity = d.activity AND f."timestamp" = d.ts
            """, logger: logger)
    }

    /// Claims up to `limit` fan-out targets for `owner` until `clock + leaseSeconds`: first the chunks whose
    /// claims lapsed (from their cursors), then new chunks of due fan-outs, in release order; at most one
    /// chunk per activity, so a round's targets of one fan-out are one run in device order. Each target is
    /// marked (``OutboxEntry/fanOut``) with its device, and the last of its chunk as such.
    static func claimFanOuts(
        owner: String, now: Int, clock: String, gone: String, leaseSeconds: Int, limit: Int,
        _ connection: PostgresConnection, logger: Logger
    ) async throws -> [OutboxEntry] {
        var claimed: [OutboxEntry] = []
        var taken = Set<String>()
        // Chunks whose claims lapsed: a replaced push's go, the others are taken over from their cursors.
        let lapsed = try await connection.rows(
            """
            SELECT c.activity, c."timestamp", c.last, c.cursor, f."timestamp", f.push, f.provider, f.environment,
              f.next_attempt
            FROM outbox_fan_out_chunk c LEFT JOIN outbox_fan_out f ON f.activity = c.activity
            WHERE c.claimed_by IS NULL OR c.claim_expires <= \(unescaped: clock) OR c.claimed_by IN (\(unescaped: gone))
            ORDER BY c.activity, c."timestamp", c.last
            FOR UPDATE OF c SKIP LOCKED
            """, logger: logger)
        for row in lapsed {
            guard claimed.count < limit else { break }
            let (activity, timestamp, last, cursor, current, push, provider, environment, nextAttempt) =
                try row.decode((String, Int, String, String, Int?, String?, String?, String?, Int?).self)
            guard current == timestamp, let push, let provider, let nextAttempt else {
                try await Self.dropChunk(activity, timestamp, last, connection, logger: logger)
                continue
            }
            guard !taken.contains(activity) else { continue }
            let targets = try await Self.tokens(
                of: activity, after: cursor, upTo: last, environment: environment, limit: limit - claimed.count + 1,
                connection, logger: logger)
            if targets.isEmpty {
                try await Self.dropChunk(activity, timestamp, last, connection, logger: logger)
                continue
            }
            // Whole or not at all: a chunk's cursor is one run of receipts.
            guard targets.count <= limit - claimed.count else { continue }
            try await connection.checkedQuery(
                """
                UPDATE outbox_fan_out_chunk SET claimed_by = \(owner), claim_expires = \(unescaped: clock) + \(leaseSeconds)
                WHERE activity = \(activity) AND "timestamp" = \(timestamp) AND last = \(last)
                """, logger: logger)
            taken.insert(activity)
            claimed += Self.entries(
                targets, activity: activity, push: push, timestamp: timestamp, provider: provider,
                nextAttempt: nextAttempt)
        }
        guard claimed.count < limit else { return claimed }
        // New chunks of due fan-outs, in release order.
        let due = try await connection.rows(
            """
            SELECT activity, push, "timestamp", provider, environment, next_attempt, frontier FROM outbox_fan_out
            WHERE next_attempt <= \(now) ORDER BY seq FOR UPDATE SKIP LOCKED
            """, logger: logger)
        for row in due {
            guard claimed.count < limit else { break }
            let (activity, push, timestamp, provider, environment, nextAttempt, frontier) =
                try row.decode((String, String, Int, String, String?, Int, String).self)
            guard !taken.contains(activity) else { continue }
            // The newer push waits while a chunk of an older one is still out.
            let older = try await connection.rows(
                """
                SELECT 1 FROM outbox_fan_out_chunk WHERE activity = \(activity) AND "timestamp" < \(timestamp) LIMIT 1
                """, logger: logger)
            guard older.isEmpty else { continue }
            let targets = try await Self.tokens(
                of: activity, after: frontier, upTo: nil, environment: environment, limit: limit - claimed.count,
                connection, logger: logger)
            guard let last = targets.devices.last else {
                // Every device is handed out: once no chunk of it is left, the fan-out is done.
                try await connection.checkedQuery(
                    """
                    DELETE FROM outbox_fan_out f WHERE activity = \(activity) AND "timestamp" = \(timestamp)
                      AND NOT EXISTS (SELECT 1 FROM outbox_fan_out_chunk c WHERE c.activity = f.activity)
                    """, logger: logger)
                continue
            }
            try await connection.checkedQuery(
                """
                INSERT INTO outbox_fan_out_chunk (activity, "timestamp", first, last, cursor, claimed_by, claim_expires)
                VALUES (\(activity), \(timestamp), \(frontier), \(last), \(frontier), \(owner),
                  \(unescaped: clock) + \(leaseSeconds))
                """, logger: logger)
            try await connection.checkedQuery(
                "UPDATE outbox_fan_out SET frontier = \(last) WHERE activity = \(activity)", logger: logger)
            taken.insert(activity)
            claimed += Self.entries(
                targets, activity: activity, push: push, timestamp: timestamp, provider: provider,
                nextAttempt: nextAttempt)
        }
        return claimed
    }

    /// Removes one chunk: its push was replaced, or no target is left in it.
    private static func dropChunk(
        _ activity: String, _ timestamp: Int, _ last: String, _ connection: PostgresConnection, logger: Logger
    ) async throws {
        try await connection.checkedQuery(
            """
            DELETE FROM outbox_fan_out_chunk WHERE activity = \(activity) AND "timestamp" = \(timestamp)
              AND last = \(last)
            """, logger: logger)
    }

    /// Up to `limit` update tokens of `activity` after device `after` (up to `upTo` when given), in device
    /// order; only those of `environment` unless it is `nil`.
    private static func tokens(
        of activity: String, after: String, upTo: String?, environment: String?, limit: Int,
        _ connection: PostgresConnection, logger: Logger
    ) async throws -> ChunkTargets {
        // One row of three arrays, not a row per target: a row each cost the client a message and a decode through the
        // row sequence (about 1 µs of its CPU per push of a goal), and the arrays cost the server about the same. The
        // aggregates take the rows in the order the subquery gives them (PostgreSQL's documented way to order an
        // aggregate's input when nothing above the subquery joins or groups), so the three arrays are one run in
        // device order without sorting each again: `array_agg(… ORDER BY device)` sorted three times, and cost the
        // server more than the client saved.
        let rows = try await connection.checkedQuery(
            """
            SELECT coalesce(array_agg(device), '{}'), coalesce(array_agg(token), '{}'),
              coalesce(array_agg(environment), '{}')
            FROM (SELECT device, token, environment FROM activity_token
              WHERE activity = \(activity) AND device > \(after)
                AND (\(upTo)::text IS NULL OR device <= \(upTo))
                AND (\(environment)::text IS NULL OR environment = \(environment))
              ORDER BY device LIMIT \(limit)) AS chunk
            """, logger: logger
        ).collect()
        guard let row = rows.first else { return ChunkTargets() }
        let (devices, tokens, environments) = try row.decode(([String], [String], [String]).self)
        return ChunkTargets(devices: devices, tokens: tokens, environments: environments)
    }

    /// A chunk's targets as the chunk query gives them: three arrays of one length, in device order.
    struct ChunkTargets {
        var devices: [String] = []
        var tokens: [String] = []
        var environments: [String] = []

        var count: Int { devices.count }
        var isEmpty: Bool { devices.isEmpty }
    }

    /// A chunk's targets as rows of their own (without one in the table), the last marked as its end.
    private static func entries(
        _ targets: ChunkTargets, activity: String, push: String, timestamp: Int, provider: String, nextAttempt: Int
    ) -> [OutboxEntry] {
        let key = ActivityKey(activity)
        let json = Data(push.utf8)
        return targets.devices.indices.map { index in
            let device = targets.devices[index]
            return OutboxEntry(
                key: OutboxKey(activity: key, target: targets.tokens[index]), kind: "activity", device: device,
                environment: targets.environments[index], push: json, timestamp: timestamp,
                nextAttempt: nextAttempt, provider: provider,
                fanOut: FanOutMark(position: device, last: index == targets.count - 1))
        }
    }

    /// Writes what a round's receipts did to `owner`'s chunks: cursors moved (a chunk whose last device is
    /// passed goes), and the targets to try again as rows of their own, unless a newer push of their activity
    /// is waiting. A chunk another worker has taken over meanwhile is left alone.
    static func settleFanOuts(
        cursors: [FanOutCursor], later: [OutboxEntry], owner: String, _ connection: PostgresConnection,
        logger: Logger
    ) async throws {
        for c in cursors {
            if c.finished {
                try await connection.checkedQuery(
                    """
                    DELETE FROM outbox_fan_out_chunk WHERE activity = \(c.activity.rawValue)
                      AND "timestamp" = \(c.timestamp) AND first < \(c.position) AND last >= \(c.position)
                      AND claimed_by = \(owner)
                    """, logger: logger)
            } else {
                try await connection.checkedQuery(
                    """
                    UPDATE outbox_fan_out_chunk SET cursor = \(c.position) WHERE activity = \(c.activity.rawValue)
                      AND "timestamp" = \(c.timestamp) AND first < \(c.position) AND last >= \(c.position)
                      AND cursor < \(c.position) AND claimed_by = \(owner)
                    """, logger: logger)
            }
        }
        guard !later.isEmpty else { return }
        try await connection.checkedQuery(
            """
            INSERT INTO outbox (activity, target, kind, device, environment, push, "timestamp", attempts,
              next_attempt, provider)
            SELECT r.a, r.t, 'activity', r.d, r.e, r.p, r.ts, r.n, r.na, r.pr
            FROM unnest(\(later.map(\.key.activity.rawValue))::text[], \(later.map(\.key.target))::text[],
              \(later.map { $0.device ?? "" })::text[], \(later.map { $0.environment ?? "" })::text[],
              \(later.map { String(decoding: $0.push, as: UTF8.self) })::text[], \(later.map(\.timestamp))::bigint[],
              \(later.map(\.attempts))::integer[], \(later.map(\.nextAttempt))::bigint[],
              \(later.map { $0.provider ?? "" })::text[]) AS r(a, t, d, e, p, ts, n, na, pr)
            WHERE NOT EXISTS (SELECT 1 FROM outbox_fan_out f WHERE f.activity = r.a AND f."timestamp" > r.ts)
            ON CONFLICT (activity, target) DO UPDATE SET kind = excluded.kind, device = excluded.device,
              environment = excluded.environment, push = excluded.push, "timestamp" = excluded."timestamp",
              attempts = excluded.attempts, next_attempt = excluded.next_attempt,
              seq = nextval(pg_get_serial_sequence('outbox', 'seq')), address_device = NULL, address_user = NULL,
              address_activity = NULL, provider = excluded.provider, channel = NULL, channel_policy = NULL
            WHERE excluded."timestamp" > outbox."timestamp"
            """, logger: logger)
    }
}
