public import CoreMetrics
public import Delivery
public import Feeds
import LiveRelayCore
import Metrics
public import Throttling

/// The worker's metrics, through swift-metrics: `run` bootstraps Prometheus and serves them on `/metrics`;
/// tests pass their own factory. Labels never carry secrets (feed ids, providers, outcomes only).
public struct LiveRelayMetrics: Sendable {
    private let factory: any MetricsFactory

    public init(factory: any MetricsFactory) { self.factory = factory }

    /// Metrics that go nowhere, for one-shot commands.
    public static let none = LiveRelayMetrics(factory: NOOPMetricsHandler.instance)

    /// What the sender records of each push (see ``PushMetrics``).
    public var pushes: PushMetrics { PushMetrics(factory: factory) }

    /// One poll of a feed: counted, with a 304 or the failure's kind (`store` when the state store failed).
    public func polled(_ report: PollLoop.Report) {
        let feed = report.name
        Counter(label: "liverelay_polls_total", dimensions: [("feed", feed)], factory: factory).increment()
        switch report.outcome.result {
        case .fresh: break
        case .notModified:
            Counter(label: "liverelay_polls_not_modified_total", dimensions: [("feed", feed)], factory: factory)
                .increment()
        case .failed(let kind):
            Counter(
                label: "liverelay_feed_errors_total", dimensions: [("feed", feed), ("kind", kind.name)],
                factory: factory
            ).increment()
        }
    }

    /// A delivery round that failed because the state store did.
    public func storeFailed() {
        Counter(label: "liverelay_store_errors_total", factory: factory).increment()
    }

    public func ruleFired(_ rule: String) {
        Counter(label: "liverelay_rule_fires_total", dimensions: [("rule", rule)], factory: factory).increment()
    }

    public func ruleError(_ rule: String) {
        Counter(label: "liverelay_rule_errors_total", dimensions: [("rule", rule)], factory: factory).increment()
    }

    public func throttled(_ decision: ThrottleDecision) {
        switch decision {
        case .send(_, let downgraded):
            if downgraded { Counter(label: "liverelay_downgraded_pushes_total", factory: factory).increment() }
        case .held:
            Counter(label: "liverelay_held_pushes_total", factory: factory).increment()
        }
    }

    /// An activity's end that will never reach some of its targets.
    public func endLost(provider: String) {
        Counter(label: "liverelay_ends_lost_total", dimensions: [("provider", provider)], factory: factory).increment()
    }

    public func coalesced() {
        Counter(label: "liverelay_coalesced_pushes_total", factory: factory).increment()
    }

    public func outboxDepth(_ depth: Int) {
        Gauge(label: "liverelay_outbox_depth", factory: factory).record(depth)
    }

    public func pendingPushes(_ count: Int) {
        Gauge(label: "liverelay_pending_pushes", factory: factory).record(count)
    }

    /// A broadcast channel created for an activity's start.
    public func channelCreated(provider: String) {
        Counter(label: "liverelay_channels_created_total", dimensions: [("provider", provider)], factory: factory)
            .increment()
    }

    /// A channel deleted after its activity (or found stale by the collector).
    public func channelDeleted(provider: String) {
        Counter(label: "liverelay_channels_deleted_total", dimensions: [("provider", provider)], factory: factory)
            .increment()
    }

    /// The channels LiveRelay holds now.
    public func channelsOpen(_ count: Int) {
        Gauge(label: "liverelay_channels_open", factory: factory).record(count)
    }

    /// Broadcasts APNs accepted.
    public func broadcasts(_ count: Int, provider: String) {
        guard count > 0 else { return }
        Counter(label: "liverelay_broadcasts_total", dimensions: [("provider", provider)], factory: factory)
            .increment(by: Int64(count))
    }

    /// An activity in channel or both mode that goes by tokens instead: `limit` (10,000 channels), `configuration`
    /// (broadcast not enabled, credentials), `unavailable` (APNs did not answer) or `gone` (deleted under us).
    public func channelFallback(reason: String) {
        Counter(label: "liverelay_channel_fallbacks_total", dimensions: [("reason", reason)], factory: factory)
            .increment()
    }
}
