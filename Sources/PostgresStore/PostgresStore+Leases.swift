import PostgresNIO
public import Store

/// Feed leases: each feed is polled by one worker at a time. A worker takes or renews a feed's lease before
/// it polls; a lease its worker stopped renewing (it died) expires, and another worker takes the feed over.
extension PostgresStore {
    /// Takes or renews `feed`'s lease for `worker` until `now + seconds`: `true` when this worker holds it
    /// now (it was free, expired, or already this worker's), `false` when another worker's lease runs.
    public func acquireLease(feed: String, worker: String, now: Int, seconds: Int) async throws(Failure) -> Bool {
        try await run("taking the lease of feed \(feed)") { client in
            let expires = now + seconds
            let rows = try await client.query(
                """
                INSERT INTO feed_lease (feed, worker, expires_at) VALUES (\(feed), \(worker), \(expires))
                ON CONFLICT (feed) DO UPDATE SET worker = excluded.worker, expires_at = excluded.expires_at
                WHERE feed_lease.worker = excluded.worker OR feed_lease.expires_at <= \(now)
                RETURNING worker
                """, logger: logger)
            for try await _ in rows.decode(String.self) { return true }
            return false
        }
    }

    /// Gives a lease up (a graceful stop), so another worker takes the feed at once.
    public func releaseLease(feed: String, worker: String) async throws(Failure) {
        try await execute(
            "giving up the lease of feed \(feed)", "DELETE FROM feed_lease WHERE feed = \(feed) AND worker = \(worker)")
    }

    /// Who holds `feed`'s lease and until when, if anyone does.
    public func leaseHolder(feed: String) async throws(Failure) -> (worker: String, expiresAt: Int)? {
        try await run("reading the lease of feed \(feed)") { client in
            let rows = try await client.query(
                "SELECT worker, expires_at FROM feed_lease WHERE feed = \(feed)", logger: logger)
            for try await (worker, expires) in rows.decode((String, Int).self) { return (worker, expires) }
            return nil
        }
    }
}
