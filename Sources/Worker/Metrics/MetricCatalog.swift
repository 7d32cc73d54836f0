/// Every metric the worker exposes on `/metrics`: its name, type, labels and what it means. The help text is
/// what `# HELP` says; docs/metrics.md lists the same entries (a test keeps the two in step), and the
/// factory (``DescribedMetricsFactory``) refuses to make a metric that is not here, so nothing is exposed
/// undocumented.
public enum MetricCatalog {
    /// A metric's Prometheus type.
    public enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    /// One metric.
    public struct Entry: Sendable {
        public let name: String
        public let kind: Kind
        public let labels: [String]
        public let help: String
    }

    /// Every metric, by name.
    public static let entries: [Entry] = [
        // Feeds.
        .init(name: "liverelay_polls_total", kind: .counter, labels: ["feed"], help: "Polls of each feed."),
        .init(
            name: "liverelay_polls_not_modified_total", kind: .counter, labels: ["feed"],
            help: "Polls answered 304 Not Modified."),
        .init(
            name: "liverelay_feed_errors_total", kind: .counter, labels: ["feed", "kind"],
            help: "Failed polls by kind of failure (transport, http_status, invalid_json, shape, too_large, store)."),
        .init(
            name: "liverelay_feed_last_success_timestamp_seconds", kind: .gauge, labels: ["feed"],
            help: "When each feed was last polled successfully (UNIX seconds; 0 before its first success)."),
        // Rules and throttle.
        .init(name: "liverelay_rule_fires_total", kind: .counter, labels: ["rule"], help: "Rules that fired."),
        .init(
            name: "liverelay_rule_errors_total", kind: .counter, labels: ["rule"],
            help: "Rule evaluations that failed (a state refused by its contract counts as one)."),
        .init(
            name: "liverelay_downgraded_pushes_total", kind: .counter, labels: [],
            help: "Pushes sent at priority 5 because the activity's priority-10 budget was spent."),
        .init(
            name: "liverelay_held_pushes_total", kind: .counter, labels: [],
            help: "Pushes the throttle held for later (budget, minimum interval, pacing)."),
        .init(
            name: "liverelay_coalesced_pushes_total", kind: .counter, labels: [],
            help: "Pending pushes replaced by a newer state of the same activity before they went out."),
        .init(
            name: "liverelay_pending_pushes", kind: .gauge, labels: [], help: "Pushes the throttle holds now."),
        .init(
            name: "liverelay_late_joins_total", kind: .counter, labels: ["outcome"],
            help:
                "Devices that began to follow an entity, looked at by a release round per activity of the entity: started (the activity's start staged for the device), no-token (no push-to-start token yet), or why not (no-activity, ended, before-start, turned-off, start-unknown)."
        ),
        // Outbox and delivery.
        .init(
            name: "liverelay_outbox_depth", kind: .gauge, labels: [],
            help:
                "Rows waiting in the outbox, a fan-out under way counting as one (the whole shared outbox on PostgreSQL), read every delivery round."
        ),
        .init(
            name: "liverelay_push_connections", kind: .gauge, labels: ["provider", "host"],
            help:
                "Connections a provider's HTTP/2 push lane holds open to each host (those finishing after a GOAWAY included), read every delivery round; provider is the provider's id in the config."
        ),
        .init(
            name: "liverelay_store_errors_total", kind: .counter, labels: [],
            help: "Delivery rounds that failed because the state store did."),
        .init(
            name: "liverelay_pushes_total", kind: .counter, labels: ["provider", "priority", "outcome"],
            help:
                "Receipts by provider, priority and outcome (delivered, retry, throttled, token_dropped, "
                + "refresh_credentials, configuration_error, rejected)."),
        .init(
            name: "liverelay_send_duration_seconds", kind: .histogram, labels: ["provider"],
            help: "Time each request to a provider took, its retries included."),
        .init(
            name: "liverelay_stage_duration_seconds", kind: .histogram, labels: ["stage"],
            help:
                "Time each call of a pipeline stage took: plan (a polled body through the rules and the decider, "
                + "and its commit), release (the throttle to the outbox), deliver (every due round of a delivery, "
                + "sent and settled), timers (a pass of the timer rules)."),
        .init(
            name: "liverelay_tokens_dropped_total", kind: .counter, labels: ["provider"],
            help: "Tokens or addresses the provider declared dead, removed from the registry."),
        .init(
            name: "liverelay_ends_lost_total", kind: .counter, labels: ["provider"],
            help: "Activity ends that will never reach some of their targets."),
        // Channels.
        .init(name: "liverelay_channels_open", kind: .gauge, labels: [], help: "Broadcast channels LiveRelay holds."),
        .init(
            name: "liverelay_channels_created_total", kind: .counter, labels: ["provider"],
            help: "Broadcast channels created."),
        .init(
            name: "liverelay_channels_deleted_total", kind: .counter, labels: ["provider"],
            help: "Broadcast channels deleted."),
        .init(
            name: "liverelay_broadcasts_total", kind: .counter, labels: ["provider"],
            help: "Broadcasts the provider accepted."),
        .init(
            name: "liverelay_channel_fallbacks_total", kind: .counter, labels: ["reason"],
            help: "Activities in channel or both mode sent by tokens instead (limit, configuration, unavailable, gone)."
        ),
        // Workers (PostgreSQL).
        .init(
            name: "liverelay_workers_seen", kind: .gauge, labels: [],
            help: "Workers whose heartbeat is current (a shared store; 1 on SQLite)."),
        .init(
            name: "liverelay_worker_heartbeat_age_seconds", kind: .gauge, labels: ["worker"],
            help: "Seconds since each worker's last heartbeat, on the database's clock."),
        .init(
            name: "liverelay_outbox_rows_held_by_gone_workers", kind: .gauge, labels: [],
            help: "Outbox rows still claimed by workers whose heartbeat lapsed (the others take them at once)."),
        // API.
        .init(
            name: "liverelay_api_requests_total", kind: .counter, labels: ["route", "method", "status"],
            help: "API requests by route pattern, method and status."),
        .init(
            name: "liverelay_api_request_duration_seconds", kind: .histogram, labels: ["route", "method"],
            help: "Time the API took to answer, by route pattern and method."),
        .init(
            name: "liverelay_api_auth_failures_total", kind: .counter, labels: ["reason"],
            help: "Token API requests refused for their credentials (missing, scheme, wrong)."),
        // The process.
        .init(
            name: "liverelay_build_info", kind: .gauge, labels: ["version", "swift"],
            help: "Always 1; the labels say which build runs."),
        .init(
            name: "liverelay_ready", kind: .gauge, labels: [],
            help: "1 while /readyz answers 200 (the store answers, the config is loaded), else 0."),
        .init(
            name: "process_cpu_seconds_total", kind: .counter, labels: [], help: "User and system CPU time spent."),
        .init(
            name: "process_resident_memory_bytes", kind: .gauge, labels: [], help: "Resident memory size in bytes."),
        .init(
            name: "process_virtual_memory_bytes", kind: .gauge, labels: [], help: "Virtual memory size in bytes."),
        .init(name: "process_open_fds", kind: .gauge, labels: [], help: "Open file descriptors."),
        .init(name: "process_max_fds", kind: .gauge, labels: [], help: "The open file descriptor limit."),
        .init(
            name: "process_start_time_seconds", kind: .gauge, labels: [],
            help: "When the process started (UNIX seconds)."),
    ]

    /// The entry of `name`, if it is a metric of the worker.
    public static func entry(_ name: String) -> Entry? { byName[name] }

    private static let byName = Dictionary(uniqueKeysWithValues: entries.map { ($0.name, $0) })
}
