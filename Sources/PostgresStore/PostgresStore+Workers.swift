import Foundation
import LiveRelayCore
import PostgresNIO
public import Store
import Synchronization

/// Workers announce themselves: each writes a heartbeat on the database's clock every `heartbeatInterval`
/// (`worker_heartbeat`, one row per incarnation), and the outbox rows a worker claimed are taken over by the
/// others as soon as its heartbeat is older than `workerTimeout`, long before its claims expire. A live
/// worker keeps its claims as long as it beats (and renews them during a long round). A worker that stalled
/// past the timeout (a SIGSTOP, a long pause, the database out of reach) fences itself: it sends none of the
/// rows it claimed (``holdsClaims``), gives them up and rejoins under a new incarnation (``heartbeat()``).
extension PostgresStore {
    /// The name on this worker's claims now: its name and incarnation (`w1#3f9c2a`), new after a stall.
    public var claimOwner: String { "\(worker)#\(heartbeats.withLock { $0.incarnation })" }

    /// How often the heartbeat is written.
    public var heartbeatInterval: Duration { heartbeats.withLock { $0.beats.interval } }

    /// Whether this worker may still send the rows it claimed: its last written heartbeat is recent enough
    /// that no other worker can have taken them over.
    public var holdsClaims: Bool { heartbeats.withLock { $0.beats.holdsClaims(now: .now) } }

    /// Whether this worker may still send rows it claimed as `owner`: they are still its incarnation's (no
    /// rejoin gave them up) and its heartbeat is recent enough.
    public func holdsClaims(as owner: String) -> Bool {
        heartbeats.withLock { "\(worker)#\($0.incarnation)" == owner && $0.beats.holdsClaims(now: .now) }
    }

    /// The outbox rows `worker` holds now, under any of its incarnations, and the targets of its fan-out
    /// chunks that have no written receipt yet (after the chunk's cursor).
    public func claims(of worker: String) async throws(Failure) -> [OutboxKey] {
        var keys: [OutboxKey] = []
        for row in try await rows(
            "reading a worker's claims",
            """
            SELECT activity, target FROM (
              SELECT activity, target, seq, '' AS device FROM outbox WHERE claimed_by LIKE \(worker + "#%")
              UNION ALL
              SELECT t.activity, t.token, NULL, t.device FROM outbox_fan_out_chunk c
              JOIN activity_token t ON t.activity = c.activity AND t.device > c.cursor AND t.device <= c.last
              LEFT JOIN outbox_fan_out f ON f.activity = c.activity
              WHERE c.claimed_by LIKE \(worker + "#%") AND (f.environment IS NULL OR t.environment = f.environment)) held
            ORDER BY seq NULLS LAST, activity, device
            """)
        {
            let (activity, target) = try decode(row, (String, String).self, "reading a worker's claims")
            keys.append(OutboxKey(activity: ActivityKey(activity), target: target))
        }
        return keys
    }

    /// Writes this worker's heartbeat. When the previous one is too old for its claims to be surely its own,
    /// first gives those claims up (another worker sends what it has not taken yet) and takes a new
    /// incarnation.
    public func heartbeat() async throws(Failure) -> HeartbeatOutcome {
        let started = ContinuousClock.now
        let (decision, old) = heartbeats.withLock { ($0.beats.decide(now: started), $0.incarnation) }
        var outcome = HeartbeatOutcome.beat
        if case .rejoin(let stalled) = decision {
            let oldOwner = "\(worker)#\(old)"
            let released = try await transaction("giving up a stalled worker's claims") { connection in
                let rows = try await connection.checkedQuery(
                    """
                    UPDATE outbox SET claimed_by = NULL, claim_expires = NULL WHERE claimed_by = \(oldOwner)
                    RETURNING 1
                    """, logger: logger)
                var count = 0
                for try await _ in rows { count += 1 }
                // Its fan-out chunks too: another worker takes each over from its cursor.
                for try await _ in try await connection.checkedQuery(
                    """
                    UPDATE outbox_fan_out_chunk SET claimed_by = NULL, claim_expires = NULL
                    WHERE claimed_by = \(oldOwner) RETURNING 1
                    """, logger: logger)
                {
                    count += 1
                }
                try await connection.checkedQuery(
                    "DELETE FROM worker_heartbeat WHERE owner = \(oldOwner)", logger: logger)
                return count
            }
            heartbeats.withLock { $0.incarnation = Self.newIncarnation() }
            outcome = .rejoined(stalled: stalled, released: released)
        }
        let owner = claimOwner
        try await execute(
            "writing the worker's heartbeat",
            """
            INSERT INTO worker_heartbeat (owner, worker, started_at, seen_at)
            VALUES (\(owner), \(worker), \(unescaped: Self.milliseconds), \(unescaped: Self.milliseconds))
            ON CONFLICT (owner) DO UPDATE SET seen_at = excluded.seen_at
            """)
        heartbeats.withLock { $0.beats.written(startedAt: started) }
        return outcome
    }

    /// The workers that wrote a heartbeat in the last hour, and the outbox rows still claimed by those whose
    /// heartbeat has lapsed (the others take them at their next claim). The live ones are counted for
    /// ``workersAlive``.
    /// One moment on the database's clock for both reads, so a worker is gone in the list exactly when its
    /// rows count as held by gone workers.
    public func workersStatus() async throws(Failure) -> WorkersStatus {
        let clock = Self.clock(nil)
        var now = 0
        for row in try await rows("reading the database's clock", "SELECT \(unescaped: Self.milliseconds)") {
            now = try decode(row, Int.self, "reading the database's clock")
        }
        var workers: [WorkersStatus.Worker] = []
        for row in try await rows(
            "reading the workers' heartbeats",
            """
            SELECT worker, owner, \(now) - seen_at FROM worker_heartbeat
            WHERE seen_at > \(now) - 3600000 ORDER BY worker, owner
            """)
        {
            let (name, owner, age) = try decode(row, (String, String, Int).self, "reading the workers' heartbeats")
            workers.append(
                .init(name: name, owner: owner, heartbeatAge: age / 1000, gone: age > workerTimeout * 1000))
        }
        var held = 0
        for row in try await rows(
            "counting the rows gone workers hold",
            """
            SELECT (SELECT count(*) FROM outbox WHERE claim_expires > \(unescaped: clock)
                AND claimed_by IN (SELECT owner FROM worker_heartbeat WHERE seen_at < \(now) - \(workerTimeout * 1000)))
              + (SELECT count(*) FROM outbox_fan_out_chunk WHERE claim_expires > \(unescaped: clock)
                AND claimed_by IN (SELECT owner FROM worker_heartbeat WHERE seen_at < \(now) - \(workerTimeout * 1000)))
            """)
        {
            held = try decode(row, Int.self, "counting the rows gone workers hold")
        }
        let live = workers.filter { !$0.gone }.count
        alive.withLock { $0 = live }
        return WorkersStatus(workers: workers, rowsHeldByGoneWorkers: held)
    }

    /// SQL: the claim owners whose heartbeat has lapsed (on the database's clock, in milliseconds): a worker
    /// is never counted gone sooner than `workerTimeout` after its last heartbeat, while its own fence stops it
    /// sooner. (`clock`, the claims' clock in seconds, is a test's pretended time or the database's.)
    func goneOwners(_ clock: String) -> String {
        "SELECT owner FROM worker_heartbeat WHERE seen_at < \(Self.milliseconds) - \(workerTimeout * 1000)"
    }

    /// The database's clock in UNIX milliseconds (SQL text).
    static let milliseconds = "floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint"

    /// Forgets heartbeats over a day old whose workers hold no claims.
    func forgetOldHeartbeats() async throws(Failure) {
        try await execute(
            "forgetting old heartbeats",
            """
            DELETE FROM worker_heartbeat h WHERE h.seen_at < \(unescaped: Self.milliseconds) - 86400000
              AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.claimed_by = h.owner)
              AND NOT EXISTS (SELECT 1 FROM outbox_fan_out_chunk c WHERE c.claimed_by = h.owner)
            """)
    }

    /// Six random hex digits.
    static func newIncarnation() -> String {
        String((0..<6).map { _ in "0123456789abcdef".randomElement()! })
    }
}

extension PostgresStore {
    public var workersAlive: Int? { alive.withLock { $0 } }
}
