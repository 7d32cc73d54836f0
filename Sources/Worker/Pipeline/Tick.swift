import Feeds
import HTTP
import LiveRelayCore
import Store

/// One pass for cron: poll every feed once, evaluate, deliver, save. The same pipeline `run` uses.
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
        public var pushes = 0
        public var failedPushes = 0

        public var description: String {
            if let error { return "feed \(feed): error (\(error.kind)): \(error.message)" }
            if notModified { return "feed \(feed): not modified" }
            return "feed \(feed): \(changes) changed entities, \(pushes) pushes sent"
                + (failedPushes > 0 ? ", \(failedPushes) failed" : "")
        }

        /// True when this feed or one of its pushes failed.
        public var failed: Bool { error != nil || failedPushes > 0 }
    }

    public func run(feeds: [FeedRuntime], now: Int) async throws(SQLiteStore.Failure) -> [FeedReport] {
        var reports: [FeedReport] = []
        for feed in feeds {
            var report = FeedReport(feed: feed.id)
            let saved = try await pipeline.store.validators(feed: feed.id)
            let validators =
                saved.etag == nil && saved.lastModified == nil
                ? nil : CacheValidators(etag: saved.etag, lastModified: saved.lastModified)
            let fetched: FeedFetcher.Fetched
            do {
                fetched = try await fetcher.fetch(feed, validators: validators)
            } catch {
                report.error = error
                reports.append(report)
                continue
            }
            guard case .body(let body, let newValidators) = fetched else {
                report.notModified = true
                reports.append(report)
                continue
            }
            let plan = try await pipeline.plan(
                feed: feed, body: body, validators: (newValidators?.etag, newValidators?.lastModified), now: now)
            report.error = plan.feedError
            report.changes = plan.steps.count
            for push in plan.pushes {
                if try await pipeline.deliver(push) == .delivered {
                    report.pushes += 1
                } else {
                    report.failedPushes += 1
                }
            }
            reports.append(report)
        }
        return reports
    }
}
