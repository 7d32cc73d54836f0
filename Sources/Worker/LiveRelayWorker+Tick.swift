public import Feeds
import Logging
public import Store

extension LiveRelayWorker {
    /// `tick`: polls every feed once (each feed's result is in the report, a state-store failure as a feed
    /// error), makes one pass of the timer rules, then delivers what the throttle releases and what the
    /// outbox holds. A feed whose saved schedule says it must wait (a backoff after failures, a server's
    /// `Retry-After`, a ban, a `max-age`) is not polled until then. A store failure of the delivery round is
    /// thrown.
    /// - Parameter feeds: the feeds to poll; by default the config's.
    public func runOnce(feeds polled: [FeedRuntime]? = nil) async throws(StoreFailure) -> TickReport {
        var feeds: [FeedReport] = []
        // On a shared store the tick's claims are its own while its heartbeat is fresh.
        await heartbeat?.beat()
        // On a shared store a tick polls only when no `run` worker polls (it takes the poller lease for the
        // tick); it always delivers.
        if let pollerLease, !(await pollerLease.renew()) {
            let holder = (try? await pollerLease.store.leaseHolder(PollerLease.name))??.worker ?? "another worker"
            let report = TickReport(
                feeds: (polled ?? loaded.feeds).map { FeedReport(feed: $0.id, polledBy: holder) },
                timers: TimerReport(),
                delivery: try await rounds.deliver())
            return report
        }
        for feed in polled ?? loaded.feeds {
            // What the last ticks learnt of the feed (failures in a row, a server's wait) holds across
            // processes: a feed that must wait is not polled, and its next poll backs off further.
            let now = rounds.environment.now()
            // A state file that cannot be read now fails the poll itself, which reports it as the feed's error.
            let saved = try? await pipeline.store.feedSchedule(feed: feed.id)
            if let wait = saved?.notBefore, wait > now {
                feeds.append(FeedReport(feed: feed.id, waitingUntil: wait, reason: saved?.reason))
                continue
            }
            let polled = await rounds.poll(feed)
            feeds.append(FeedReport(polled.plan))
            var schedule = PollSchedule(
                policy: feed.pollPolicy, consecutiveFailures: saved?.failures ?? 0, notBefore: saved?.notBefore)
            let decision = schedule.record(polled.outcome, now: now, random: rounds.environment.random())
            do {
                try await pipeline.store.remember(
                    SavedFeedSchedule(schedule, after: decision, now: now), feed: feed.id, previous: saved)
            } catch {
                rounds.logger.warning(
                    "feed schedule not saved: the next tick polls it as if nothing had happened",
                    metadata: ["feed.id": "\(feed.id)", "error": "\(error)"])
            }
        }
        let timers = await rounds.timers(deliver: false)
        // What this tick queued is released by this tick; then the feeds are handed back (if the delivery
        // fails, the lease runs out instead).
        let delivery = try await rounds.deliver()
        await pollerLease?.release()
        return TickReport(feeds: feeds, timers: timers.report, delivery: delivery)
    }
}
