import CoreMetrics
import Feeds
import LiveRelayCore
import Metrics
import Throttling

/// The worker's metrics, through swift-metrics: `run` bootstraps Prometheus and serves them on `/metrics`;
/// tests pass their own factory. Labels never carry secrets (feed ids, providers, outcomes only).
public struct LiveRelayMetrics: Sendable {
    private let factory: any MetricsFactory

    public init(factory: any MetricsFactory) { self.factory = factory }

    /// Metrics that go nowhere, for one-shot commands.
    public static let none = LiveRelayMetrics(factory: NOOPMetricsHandler.instance)

    public func polled(feed: String) {
        Counter(label: "liverelay_polls_total", dimensions: [("feed", feed)], factory: factory).increment()
    }

    public func notModified(feed: String) {
        Counter(label: "liverelay_polls_not_modified_total", dimensions: [("feed", feed)], factory: factory).increment()
    }

    public func feedError(feed: String, kind: FeedError.Kind) {
        Counter(
            label: "liverelay_feed_errors_total", dimensions: [("feed", feed), ("kind", kind.name)], factory: factory
        )
        .increment()
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

    public func coalesced() {
        Counter(label: "liverelay_coalesced_pushes_total", factory: factory).increment()
    }

    /// One delivery attempt's outcome and latency.
    public func pushed(provider: String, priority: PushPriority, outcome: String, seconds: Double) {
        Counter(
            label: "liverelay_pushes_total",
            dimensions: [("provider", provider), ("priority", String(priority.rawValue)), ("outcome", outcome)],
            factory: factory
        ).increment()
        Timer(label: "liverelay_send_duration_seconds", dimensions: [("provider", provider)], factory: factory)
            .recordNanoseconds(Int64(seconds * 1e9))
    }

    public func tokenDropped(provider: String) {
        Counter(label: "liverelay_tokens_dropped_total", dimensions: [("provider", provider)], factory: factory)
            .increment()
    }

    public func outboxDepth(_ depth: Int) {
        Gauge(label: "liverelay_outbox_depth", factory: factory).record(depth)
    }

    public func pendingPushes(_ count: Int) {
        Gauge(label: "liverelay_pending_pushes", factory: factory).record(count)
    }
}
