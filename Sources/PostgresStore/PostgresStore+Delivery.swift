public import Foundation
public import LiveRelayCore
import Logging
import PostgresNIO
public import Store

/// The outbox as the worker uses it (see ``StateStore``): this worker's name is on every claim it takes.
extension PostgresStore {
    public func commitRelease(
        throttleStates: [(key: ActivityKey, json: Data, pending: Bool)], outbox entries: [OutboxEntry],
        fanOuts: [OutboxFanOut], rewrites: [OutboxRewrite], drops: [OutboxEntry], history: HistoryWrite?,
        paces: StartPaces
    ) async throws(Failure) {
        try await transaction("saving released pushes") { connection in
            try await Self.saveThrottleStates(throttleStates, connection, logger: logger)
            try await Self.saveStartPaces(paces, connection, logger: logger)
            try await Self.saveHistory(history, connection, logger: logger)
            // A row a worker has in flight is not rewritten: it counts as sent, as a row already delivered
            // would (its receipt marks the start; the newer state follows as an update).
            // One statement for the round's rewrites (a move of 1,000 alerts rewrites 1,000 rows); a row named
            // twice would be rewritten once by it, so such a round goes a row at a time, in order.
            if rewrites.count > 1, Set(rewrites.map(\.row.key)).count == rewrites.count {
                try await connection.checkedQuery(
                    """
                    UPDATE outbox o SET push = r.push, "timestamp" = r.ts
                    FROM unnest(\(rewrites.map(\.row.key.activity.rawValue))::text[], \(rewrites.map(\.row.key.target))::text[],
                      \(rewrites.map { String(decoding: $0.row.push, as: UTF8.self) })::text[],
                      \(rewrites.map(\.row.timestamp))::bigint[], \(rewrites.map(\.previousTimestamp))::bigint[])
                      AS r(activity, target, push, ts, previous)
                    WHERE o.activity = r.activity AND o.target = r.target AND o."timestamp" = r.previous
                      AND (o.claimed_by IS NULL OR o.claim_expires <= \(unescaped: Self.clock(nil)))
                    """, logger: logger)
            } else {
                for r in rewrites {
                    try await connection.checkedQuery(
                        """
                        UPDATE outbox SET push = \(String(decoding: r.row.push, as: UTF8.self)), "timestamp" = \(r.row.timestamp)
                        WHERE activity = \(r.row.key.activity.rawValue) AND target = \(r.row.key.target)
                          AND "timestamp" = \(r.previousTimestamp)
                          AND (claimed_by IS NULL OR claim_expires <= \(unescaped: Self.clock(nil)))
                        """, logger: logger)
                }
            }
            try await Self.dropFanOuts(drops, connection, logger: logger)
            let drops = drops.filter { $0.fanOut == nil }
            if !drops.isEmpty {
                try await connection.checkedQuery(
                    """
                    DELETE FROM outbox o USING unnest(\(drops.map(\.key.activity.rawValue))::text[],
                      \(drops.map(\.key.target))::text[], \(drops.map(\.timestamp))::bigint[]) AS d(activity, target, ts)
                    WHERE o.activity = d.activity AND o.target = d.target AND o."timestamp" = d.ts
                    """, logger: logger)
            }
            try await Self.enqueue(fanOuts, superseding: entries, connection, logger: logger)
            try await Self.enqueue(entries, connection, logger: logger)
        }
    }

    /// Claims the due rows for this worker (see ``claimDue(worker:now:leaseSeconds:limit:)``). A round in
    /// flight needs no skipping here: its rows and fan-out chunks are this worker's claims, which no claim
    /// takes again.
    public func dueOutbox(now: Int, limit: Int, after inFlight: OutboxInFlight) async throws(Failure)
        -> [OutboxEntry]
    {
        try await claim(worker: claimOwner, now: now, claimClock: nil, leaseSeconds: claimSeconds, limit: limit)
    }

    /// Every row waiting for these activities, due or not; a fan-out as one row at its frontier (marked with
    /// ``OutboxEntry/fanOut``, no target), before the rows.
    public func waitingOutbox(activities: [ActivityKey]) async throws(Failure) -> [OutboxEntry] {
        guard !activities.isEmpty else { return [] }
        var out: [OutboxEntry] = []
        for row in try await rows(
            "reading the outbox",
            """
            SELECT activity, push, "timestamp", provider, next_attempt, frontier FROM outbox_fan_out
            WHERE activity = ANY(\(activities.map(\.rawValue))::text[]) ORDER BY seq
            """)
        {
            let (activity, push, timestamp, provider, nextAttempt, frontier) = try decode(
                row, (String, String, Int, String, Int, String).self, "reading the outbox")
            out.append(
                OutboxEntry(
                    key: OutboxKey(activity: ActivityKey(activity), target: ""), kind: "activity", device: nil,
                    environment: nil, push: Data(push.utf8), timestamp: timestamp, nextAttempt: nextAttempt,
                    provider: provider, fanOut: FanOutMark(position: frontier, last: false)))
        }
        let found = try await rows(
            "reading the outbox",
            """
            SELECT \(unescaped: Self.outboxColumns) FROM outbox WHERE activity = ANY(\(activities.map(\.rawValue))::text[])
            ORDER BY seq
            """)
        for row in found {
            do { out.append(try Self.entry(row).entry) } catch {
                throw Failure(path: location, message: "reading the outbox: \(error)")
            }
        }
        return out
    }

    public func completeOutbox(_ rows: [OutboxEntry]) async throws(Failure) {
        try await settleOutbox(done: rows, later: [], started: [], sent: [], cursors: [], now: 0)
    }

    /// Settles this worker's rows: final receipts leave the outbox (a row a newer push replaced stays),
    /// temporary ones get their next attempt, starts and last-sent times are recorded, and this worker's
    /// claims on them end, all in one transaction. Rows this worker never claimed (read by
    /// ``waitingOutbox(activities:)``) are settled as long as no other worker holds them.
    ///
    /// A fan-out's targets have no rows: `cursors` move this worker's chunks past the targets whose receipts
    /// are written (``FanOutProgress``), and those of them in `later` become rows of their own.
    public func settleOutbox(
        done: [OutboxEntry], later: [OutboxEntry], started: [DeviceStart], sent: [SentPush],
        cursors: [FanOutCursor], now: Int
    ) async throws(Failure) {
        guard !done.isEmpty || !later.isEmpty || !started.isEmpty || !sent.isEmpty || !cursors.isEmpty else { return }
        let worker = claimOwner
        try await transaction("settling outbox rows") { connection in
            try await Self.settle(
                done: done, later: later, cursors: cursors, worker: worker, connection, logger: logger)
            try await Self.markStarted(started, now: now, connection, logger: logger)
            let newest = SentPush.newest(sent)
            if !newest.isEmpty {
                try await connection.checkedQuery(
                    """
                    UPDATE activity a SET sent_at = GREATEST(COALESCE(a.sent_at, 0), \(now)),
                      delivered_state = CASE WHEN COALESCE(a.delivered_timestamp, -1) < r.t THEN r.s
                        ELSE a.delivered_state END,
                      delivered_timestamp = GREATEST(COALESCE(a.delivered_timestamp, -1), r.t)
                    FROM unnest(\(newest.map(\.activity.rawValue))::text[], \(newest.map(\.timestamp))::bigint[],
                      \(newest.map { $0.state.jsonString() })::text[]) AS r(k, t, s)
                    WHERE a.key = r.k
                    """, logger: logger)
            }
        }
    }

    public func outboxStatus() async throws(Failure) -> (depth: Int, nextAttempt: Int?) {
        // A fan-out counts as one: its targets are not counted until they fail.
        for row in try await rows(
            "reading the outbox",
            """
            SELECT (SELECT count(*) FROM outbox) + (SELECT count(*) FROM outbox_fan_out),
              LEAST((SELECT MIN(next_attempt) FROM outbox), (SELECT MIN(next_attempt) FROM outbox_fan_out))
            """)
        {
            return try decode(row, (Int, Int?).self, "reading the outbox")
        }
        return (0, nil)
    }

    public func startPaces(_ keys: [String]) async throws(Failure) -> [String: [Int]] {
        guard !keys.isEmpty else { return [:] }
        var out: [String: [Int]] = [:]
        for row in try await rows(
            "reading push-to-start pacing", "SELECT key, sends FROM start_pace WHERE key = ANY(\(keys)::text[])")
        {
            let (key, sends) = try decode(row, (String, String).self, "reading push-to-start pacing")
            out[key] = StoredValues.times(sends)
        }
        return out
    }

    static func saveStartPaces(_ paces: StartPaces, _ connection: PostgresConnection, logger: Logger) async throws {
        guard !paces.windows.isEmpty else { return }
        try await connection.checkedQuery("DELETE FROM start_pace WHERE last < \(paces.keepFrom)", logger: logger)
        let kept = paces.windows.filter { ($0.value.last ?? Int.min) >= paces.keepFrom }
        let gone = paces.windows.keys.filter { kept[$0] == nil }
        if !gone.isEmpty {
            try await connection.checkedQuery(
                "DELETE FROM start_pace WHERE key = ANY(\(Array(gone))::text[])", logger: logger)
        }
        guard !kept.isEmpty else { return }
        let keys = Array(kept.keys)
        try await connection.checkedQuery(
            """
            INSERT INTO start_pace (key, sends, last)
            SELECT * FROM unnest(\(keys)::text[], \(keys.map { StoredValues.timesText(kept[$0]!) })::text[],
              \(keys.map { kept[$0]!.last! })::bigint[])
            ON CONFLICT (key) DO UPDATE SET sends = excluded.sends, last = excluded.last
            """, logger: logger)
    }
}
