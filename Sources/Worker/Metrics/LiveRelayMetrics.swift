public import CoreMetrics
public import Delivery
public import Feeds
import LiveRelayCore
import Metrics
public import Store
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

    /// One poll of a feed: counted, with a 304 or the failure's kind (`store` when the state store failed),
    /// and the time of its last success.
    public func polled(_ report: PollLoop.Report) {
        let feed = report.name
        Counter(label: "liverelay_polls_total", dimensions: [("feed", feed)], factory: factory).increment()
        if report.outcome.succeeded {
            Gauge(
                label: "liverelay_feed_last_success_timestamp_seconds", dimensions: [("feed", feed)], factory: factory
            )
            .record(report.at)
        }
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

    /// A late join looked at: `started` (its start staged for the device), `no-token` (the device has no
    /// push-to-start token yet), or the reason it started nothing (``LateJoinDecision/Reason/label``).
    public func lateJoin(_ outcome: String) {
        Counter(label: "liverelay_late_joins_total", dimensions: [("outcome", outcome)], factory: factory).increment()
    }

    public func coalesced() {
        Counter(label: "liverelay_coalesced_pushes_total", factory: factory).increment()
    }

    public func outboxDepth(_ depth: Int) {
        Gauge(label: "liverelay_outbox_depth", factory: factory).record(depth)
    }

    /// The connections a provider's push lane holds open to a host now.
    public func pushConnections(_ count: Int, provider: String, host: String) {
        Gauge(
            label: "liverelay_push_connections", dimensions: [("provider", provider), ("host", host)],
            factory: factory
        ).record(count)
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

    /// The kinds of feed failure, each a `liverelay_feed_errors_total` series from the start.
    static let feedErrorKinds: [FeedError.Kind] = [
        .transport, .httpStatus, .invalidJSON, .shape, .tooLarge, .provider, .store,
    ]

    /// Every outcome a receipt can have, each a `liverelay_pushes_total` series from the start.
    static let outcomes = [
        "delivered", "retry", "throttled", "token_dropped", "refresh_credentials", "configuration_error", "rejected",
    ]

    /// Creates every series the worker can know in advance at 0 (each feed's, each provider's, each rule's,
    /// the totals), so a dashboard shows 0 rather than no data, and `increase()` sees the first event.
    public func prime(feeds: [String], providers: [String], rules: [String]) {
        for feed in feeds {
            Counter(label: "liverelay_polls_total", dimensions: [("feed", feed)], factory: factory).increment(by: 0)
            Counter(label: "liverelay_polls_not_modified_total", dimensions: [("feed", feed)], factory: factory)
                .increment(by: 0)
            for kind in Self.feedErrorKinds {
                Counter(
                    label: "liverelay_feed_errors_total", dimensions: [("feed", feed), ("kind", kind.name)],
                    factory: factory
                ).increment(by: 0)
            }
            Gauge(
                label: "liverelay_feed_last_success_timestamp_seconds", dimensions: [("feed", feed)], factory: factory
            )
            .record(0)
        }
        for rule in rules {
            Counter(label: "liverelay_rule_fires_total", dimensions: [("rule", rule)], factory: factory).increment(
                by: 0)
            Counter(label: "liverelay_rule_errors_total", dimensions: [("rule", rule)], factory: factory).increment(
                by: 0)
        }
        for provider in Set(providers) {
            for priority in ["5", "10"] {
                for outcome in Self.outcomes {
                    Counter(
                        label: "liverelay_pushes_total",
                        dimensions: [("provider", provider), ("priority", priority), ("outcome", outcome)],
                        factory: factory
                    ).increment(by: 0)
                }
            }
            _ = Timer(label: "liverelay_send_duration_seconds", dimensions: [("provider", provider)], factory: factory)
            for name in [
                "liverelay_tokens_dropped_total", "liverelay_ends_lost_total", "liverelay_channels_created_total",
                "liverelay_channels_deleted_total", "liverelay_broadcasts_total",
            ] {
                Counter(label: name, dimensions: [("provider", provider)], factory: factory).increment(by: 0)
            }
        }
        for stage in Stage.allCases {
            _ = Timer(
                label: "liverelay_stage_duration_seconds", dimensions: [("stage", stage.rawValue)], factory: factory)
        }
        for reason in ["limit", "configuration", "unavailable", "gone"] {
            Counter(label: "liverelay_channel_fallbacks_total", dimensions: [("reason", reason)], factory: factory)
                .increment(by: 0)
        }
        for outcome in ["started", "no-token"] + LateJoinDecision.Reason.allCases.map(\.label) {
            Counter(label: "liverelay_late_joins_total", dimensions: [("outcome", outcome)], factory: factory)
                .increment(by: 0)
        }
        for reason in ["missing", "scheme", "wrong"] {
            Counter(label: "liverelay_api_auth_failures_total", dimensions: [("reason", reason)], factory: factory)
                .increment(by: 0)
        }
        for name in [
            "liverelay_store_errors_total", "liverelay_downgraded_pushes_total", "liverelay_held_pushes_total",
            "liverelay_coalesced_pushes_total",
        ] {
            Counter(label: name, factory: factory).increment(by: 0)
        }
        for name in [
            "liverelay_outbox_depth", "liverelay_pending_pushes", "liverelay_channels_open",
            "liverelay_outbox_rows_held_by_gone_workers", "liverelay_ready",
        ] {
            Gauge(label: name, factory: factory).record(0)
        }
        Gauge(label: "liverelay_workers_seen", factory: factory).record(1)
        Gauge(
            label: "liverelay_build_info", dimensions: [("version", BuildInfo.version), ("swift", BuildInfo.swift)],
            factory: factory
        ).record(1)
    }

    /// The pipeline's stages whose calls are timed (``stage(_:took:)``).
    public enum Stage: String, CaseIterable, Sendable {
        case plan, release, deliver, timers
    }

    /// One call of a pipeline stage and how long it took.
    public func stage(_ stage: Stage, took duration: Duration) {
        Timer(label: "liverelay_stage_duration_seconds", dimensions: [("stage", stage.rawValue)], factory: factory)
            .recordNanoseconds(
                duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    /// One API request: its route pattern (never the ids in the path), method, status and time.
    public func apiRequest(route: String, method: String, status: Int, duration: Duration) {
        Counter(
            label: "liverelay_api_requests_total",
            dimensions: [("route", route), ("method", method), ("status", String(status))], factory: factory
        ).increment()
        Timer(
            label: "liverelay_api_request_duration_seconds", dimensions: [("route", route), ("method", method)],
            factory: factory
        ).recordNanoseconds(
            duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    /// A token API request refused for its credentials: `missing`, `scheme` (not Bearer) or `wrong`.
    public func authFailure(reason: String) {
        Counter(label: "liverelay_api_auth_failures_total", dimensions: [("reason", reason)], factory: factory)
            .increment()
    }

    /// Whether `/readyz` answers 200.
    public func ready(_ ready: Bool) {
        Gauge(label: "liverelay_ready", factory: factory).record(ready ? 1 : 0)
    }

    /// The process's own figures (``ProcessMetrics``); `cpuSpent` is the CPU time since the last reading.
    public func process(_ reading: ProcessMetrics.Reading, cpuSpent: Double) {
        FloatingPointCounter(label: "process_cpu_seconds_total", factory: factory).increment(by: cpuSpent)
        Gauge(label: "process_resident_memory_bytes", factory: factory).record(reading.residentBytes)
        Gauge(label: "process_virtual_memory_bytes", factory: factory).record(reading.virtualBytes)
        Gauge(label: "process_open_fds", factory: factory).record(reading.openDescriptors)
        Gauge(label: "process_max_fds", factory: factory).record(reading.maxDescriptors)
        Gauge(label: "process_start_time_seconds", factory: factory).record(reading.startTime)
    }

    /// What the workers' heartbeats say (a shared store): how many are seen, each one's heartbeat age, and
    /// the outbox rows still claimed by gone ones.
    public func workers(_ status: WorkersStatus) {
        Gauge(label: "liverelay_workers_seen", factory: factory).record(status.workers.count { !$0.gone })
        for worker in status.workers {
            Gauge(
                label: "liverelay_worker_heartbeat_age_seconds", dimensions: [("worker", worker.name)],
                factory: factory
            ).record(worker.heartbeatAge)
        }
        Gauge(label: "liverelay_outbox_rows_held_by_gone_workers", factory: factory)
            .record(status.rowsHeldByGoneWorkers)
    }

    /// An activity in channel or both mode that goes by tokens instead: `limit` (10,000 channels), `configuration`
    /// (broadcast not enabled, credentials), `unavailable` (APNs did not answer) or `gone` (deleted under us).
    public func channelFallback(reason: String) {
        Counter(label: "liverelay_channel_fallbacks_total", dimensions: [("reason", reason)], factory: factory)
            .increment()
    }
}
