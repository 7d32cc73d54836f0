import LiveRelayCore
import PostgresNIO
public import Store

/// Leases: one worker at a time holds a name (the feeds' poller). A worker takes or renews its lease before
/// it acts; a lease its worker stopped renewing (it died) expires, and another worker takes it over. Times
/// are the database's clock (`clock_timestamp()`), or `now` when a test gives one.
extension PostgresStore: SharedStore {
    /// The database's clock, in UNIX seconds, or `now` when given: SQL text (an integer is written as is).
    static func clock(_ now: Int?) -> String {
        if let now { return "\(now)::bigint" }
        return "floor(extract(epoch FROM clock_timestamp()))::bigint"
    }

    /// Renews this worker's claims on `rows`, and on every fan-out chunk it holds (a round's fan-out targets
    /// have no rows of their own: their chunk is claimed).
    public func renewClaims(_ rows: [OutboxKey]) async throws(Failure) {
        guard !rows.isEmpty else { return }
        let expires = "floor(extract(epoch FROM clock_timestamp()))::bigint + \(claimSeconds)"
        try await executeAll(
            "renewing outbox claims",
            [
                """
                UPDATE outbox o SET claim_expires = \(unescaped: expires)
                FROM unnest(\(rows.map(\.activity.rawValue))::text[], \(rows.map(\.target))::text[]) AS r(activity, target)
                WHERE o.activity = r.activity AND o.target = r.target AND o.claimed_by = \(claimOwner)
                """,
                """
                UPDATE outbox_fan_out_chunk SET claim_expires = \(unescaped: expires)
                WHERE claimed_by = \(claimOwner)
                """,
            ])
    }

    public func acquireLease(_ name: String, seconds: Int) async throws(Failure) -> Bool {
        try await acquireLease(feed: name, worker: worker, now: nil, seconds: seconds)
    }

    public func releaseLease(_ name: String) async throws(Failure) {
        try await releaseLease(feed: name, worker: worker)
    }

    public func leaseHolder(_ name: String) async throws(Failure) -> (worker: String, seconds: Int)? {
        for row in try await rows(
            "reading the lease \(name)",
            """
            SELECT worker, expires_at - floor(extract(epoch FROM clock_timestamp()))::bigint FROM feed_lease
            WHERE feed = \(name) AND expires_at > floor(extract(epoch FROM clock_timestamp()))::bigint
            """)
        {
            let (holder, left) = try decode(row, (String, Int).self, "reading the lease \(name)")
            return (holder, left)
        }
        return nil
    }

    /// Takes or renews `feed`'s lease for `worker` until `now + seconds` (`now`: the database's clock when
    /// `nil`): `true` when this worker holds it now (it was free, expired, or already this worker's),
    /// `false` when another worker's lease runs.
    public func acquireLease(feed: String, worker: String, now: Int?, seconds: Int) async throws(Failure) -> Bool {
        let clock = Self.clock(now)
        return try await !rows(
            "taking the lease \(feed)",
            """
            INSERT INTO feed_lease (feed, worker, expires_at) VALUES (\(feed), \(worker), \(unescaped: clock) + \(seconds))
            ON CONFLICT (feed) DO UPDATE SET worker = excluded.worker, expires_at = excluded.expires_at
            WHERE feed_lease.worker = excluded.worker OR feed_lease.expires_at <= \(unescaped: clock)
            RETURNING worker
            """
        ).isEmpty
    }

    /// Gives a lease up (a graceful stop), so another worker takes the feed at once.
    public func releaseLease(feed: String, worker: String) async throws(Failure) {
        try await execute(
            "giving up the lease \(feed)", "DELETE FROM feed_lease WHERE feed = \(feed) AND worker = \(worker)")
    }

    /// Who holds `feed`'s lease and until when, if anyone does.
    public func leaseHolder(feed: String) async throws(Failure) -> (worker: String, expiresAt: Int)? {
        for row in try await rows(
            "reading the lease \(feed)", "SELECT worker, expires_at FROM feed_lease WHERE feed = \(feed)")
        {
            let (holder, expires) = try decode(row, (String, Int).self, "reading the lease \(feed)")
            return (holder, expires)
        }
        return nil
    }
}
