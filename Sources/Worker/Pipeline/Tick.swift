import Delivery
import Feeds
import HTTP
import LiveRelayCore
import Store
import Throttling

/// One pass for cron: poll every feed once, evaluate, hand the pushes to the throttle, deliver what it
/// releases (including pushes held by an earlier tick whose time has come), save. The same pipeline `run`
/// uses.
public struct Tick: Sendable {
    public let pipeline: Pipeline
    public let fetcher: FeedFetcher

    public init(pipeline: Pipeline, fetcher: FeedFetcher) {
        self.pipeline = pipeline
        self.fetcher = fetcher
    }

    /// The outcome of one feed in one tick.
    public struct FeedReport: Sendable, CustomStringConvertible {
        public var feed: String
        public var error: FeedError?
        public var notModified = false
        public var changes = 0
        public var queued = 0

        public var description: String {
            if let error { return "feed \(feed): error (\(error.kind)): \(error.message)" }
            if notModified { return "feed \(feed): not modified" }
            return "feed \(feed): \(changes) changed entities, \(queued) pushes queued"
        }
    }

    /// The outcome of the deliveries of one tick.
    public struct DeliveryReport: Sendable, CustomStringConvertible {
        public var provider: String
        public var sentHigh = 0
        public var sentLow = 0
        public var downgraded = 0
        public var held = 0
        public var failed = 0
        /// Pushes still waiting (held for the budget or the provider's rate) for a later tick.
        public var pending = 0
        /// Pushes the throttle released and deliveries attempted in this round: none means the round found
        /// nothing it could do yet (a provider's rate spent, a retry not due).
        public var progress = 0

        public var description: String {
            "provider \(provider): \(sentHigh + sentLow) sent (\(sentHigh) at priority 10, \(sentLow) at 5, \(downgraded) downgraded), "
                + "\(failed) failed, \(pending) waiting"
        }
    }

    /// Everything one tick did.
    public struct Report: Sendable {
        public var feeds: [FeedReport]
        public var delivery: DeliveryReport
        /// True when a feed or a push failed.
        public var failed: Bool { feeds.contains { $0.error != nil } || delivery.failed > 0 }
    }

    public func run(feeds: [FeedRuntime], now: Int) async throws(SQLiteStore.Failure) -> Report {
        var reports: [FeedReport] = []
        for feed in feeds { reports.append(try await poll(feed, now: now).report) }
        return Report(feeds: reports, delivery: try await deliver(now: now))
    }

    /// Polls one feed once (a conditional GET, then plan); the pushes wait in the throttle. Also returns the
    /// poll's outcome, for the feed's schedule.
    public func poll(_ feed: FeedRuntime, now: Int) async throws(SQLiteStore.Failure) -> (
        report: FeedReport, outcome: PollOutcome
    ) {
        let metrics = pipeline.metrics
        metrics.polled(feed: feed.id)
        let polled = try await pipeline.poll(feed, fetcher: fetcher, now: now)
        let plan = polled.plan
        var report = FeedReport(feed: feed.id)
        if let error = plan.feedError { metrics.feedError(feed: feed.id, kind: error.kind) }
        if plan.notModified { metrics.notModified(feed: feed.id) }
        report.error = plan.feedError
        report.notModified = plan.notModified
        report.changes = plan.steps.count
        report.queued = plan.pushes.count
        return (report, polled.outcome)
    }

    /// Releases what the throttle allows now into the outbox, then delivers everything due in the outbox
    /// (including what a crashed run left there).
    public func deliver(now: Int) async throws(SQLiteStore.Failure) -> DeliveryReport {
        var delivery = DeliveryReport(provider: pipeline.sender.provider.name)
        for decision in try await pipeline.release(now: now) {
            delivery.progress += 1
            switch decision {
            case .held: delivery.held += 1
            case .send(_, let downgraded): if downgraded { delivery.downgraded += 1 }
            }
        }
        for result in try await pipeline.deliverDue(now: now) {
            delivery.progress += 1
            if result.failed {
                delivery.failed += 1
            } else if result.delivered {
                if result.push.priority == .high { delivery.sentHigh += 1 } else { delivery.sentLow += 1 }
            }
        }
        delivery.pending = await pipeline.queue.pendingCount + (try await pipeline.store.outboxStatus().depth)
        return delivery
    }
}
