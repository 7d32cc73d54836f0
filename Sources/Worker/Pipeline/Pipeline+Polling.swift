import Feeds
import HTTP
import LiveRelayCore
import Logging
import Store

/// One poll of one feed, as `tick` and the long-running poller make it.
public struct FeedPollResult: Sendable {
    /// What the body meant (or the feed error, or 304).
    public var plan: PollPlan
    /// What the poll came to, for the schedule and the counters.
    public var outcome: PollOutcome
}

extension Pipeline {
    /// Polls a feed once: a conditional GET with the validators saved by the last poll, then `plan`. A feed
    /// problem of any kind is in the result, never thrown: it emits no change and keeps the previous facts.
    public func poll(_ feed: FeedRuntime, fetcher: FeedFetcher, now: Int) async throws(SQLiteStore.Failure)
        -> FeedPollResult
    {
        let saved = try await store.validators(feed: feed.id)
        let validators =
            saved.etag == nil && saved.lastModified == nil
            ? nil : CacheValidators(etag: saved.etag, lastModified: saved.lastModified)
        let response = await fetcher.response(feed, validators: validators)
        var outcome = PollOutcome(
            .fresh, status: response.status, retryAfter: response.retryAfter, cacheControl: response.cacheControl)
        var plan = PollPlan(feed: feed.id, now: now)
        switch response.result {
        case .failure(let error):
            plan.feedError = error
        case .success(.notModified):
            plan.notModified = true
            outcome.result = .notModified
        case .success(.body(let body, let newValidators)):
            plan = try await self.plan(
                feed: feed, body: body, validators: (newValidators?.etag, newValidators?.lastModified), now: now)
        }
        if let error = plan.feedError { outcome.result = .failed(error.kind) }
        return FeedPollResult(plan: plan, outcome: outcome)
    }

    /// A poller for one feed on `clock`: each poll plans the body, then delivers what the throttle releases.
    /// Feed errors are logged (`feed.id`, the kind, the message with the URL redacted) and counted; a store
    /// failure counts as a `store` error and the poller goes on.
    public func poller<C: Clock<Duration>>(
        for feed: FeedRuntime, fetcher: FeedFetcher, clock: C, now: @escaping @Sendable () -> Int,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, logger: Logger,
        observe: @escaping @Sendable (FeedPoller<C>.Report) -> Void = { _ in }
    ) -> FeedPoller<C> {
        FeedPoller(feed: feed.id, policy: feed.pollPolicy, clock: clock, now: now, random: random, observe: observe) {
            let at = now()
            do {
                let polled = try await self.poll(feed, fetcher: fetcher, now: at)
                if let error = polled.plan.feedError {
                    logger.warning(
                        "feed error",
                        metadata: ["feed.id": "\(feed.id)", "kind": "\(error.kind)", "error": "\(error.description)"])
                }
                _ = try await self.release(now: at)
                _ = try await self.deliverDue(now: at)
                return polled.outcome
            } catch {
                logger.error("state store failed", metadata: ["feed.id": "\(feed.id)", "error": "\(error)"])
                return PollOutcome(.failed(FeedError.Kind("store")))
            }
        }
    }
}

extension FeedRuntime {
    /// The feed's polling schedule: its interval, 10 % jitter, backoff capped at ten minutes.
    public var pollPolicy: PollSchedule.Policy { PollSchedule.Policy(interval: .seconds(interval)) }
}
