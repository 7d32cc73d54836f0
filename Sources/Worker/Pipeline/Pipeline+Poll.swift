public import Feeds
import HTTP
import LiveRelayCore
public import Store

/// One poll of one feed: what its body meant, and what the poll came to for the loop's schedule.
public struct FeedPollResult: Sendable {
    /// What the body meant (or the feed error, or 304).
    public var plan: PollPlan
    /// What the poll came to, for the schedule and the counters.
    public var outcome: PollOutcome
}

extension Pipeline {
    /// Polls a feed once: a conditional GET with the validators saved by the last poll, then `plan`. A feed
    /// problem of any kind is in the result, never thrown: it emits no change and keeps the previous facts.
    /// A state-store failure is thrown.
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
        if let error = plan.feedError {
            outcome.result = .failed(error.kind)
            outcome.message = error.description
        }
        outcome.changes = plan.steps.count
        outcome.pushes = plan.pushes.count
        return FeedPollResult(plan: plan, outcome: outcome)
    }
}

extension FeedRuntime {
    /// The feed's polling schedule: its interval, 10 % jitter, backoff capped at ten minutes.
    public var pollPolicy: PollSchedule.Policy { PollSchedule.Policy(interval: .seconds(interval)) }
}
