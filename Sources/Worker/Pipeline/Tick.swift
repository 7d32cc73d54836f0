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
        for feed in feeds {
            let plan = try await pipeline.poll(feed, fetcher: fetcher, now: now).plan
            var report = FeedReport(feed: feed.id)
            report.error = plan.feedError
            report.notModified = plan.notModified
            report.changes = plan.steps.count
            report.queued = plan.pushes.count
            reports.append(report)
        }
        var delivery = DeliveryReport(provider: pipeline.sender.provider.name)
        for decision in try await pipeline.release(now: now) {
            switch decision {
            case .held: delivery.held += 1
            case .send(let push, let downgraded):
                if downgraded { delivery.downgraded += 1 }
                if try await pipeline.deliver(push) == .delivered {
                    if push.priority == .high { delivery.sentHigh += 1 } else { delivery.sentLow += 1 }
                } else {
                    delivery.failed += 1
                }
            }
        }
        delivery.pending = await pipeline.queue.pendingCount
        return Report(feeds: reports, delivery: delivery)
    }
}
