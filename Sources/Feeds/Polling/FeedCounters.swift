/// Per-feed counters for the metrics layer: what the polls of one feed came to since the worker started.
public struct FeedCounters: Sendable, Hashable, Codable {
    /// Polls made (each one request, or one `file:` read).
    public var requests = 0
    /// Polls answered `304 Not Modified`.
    public var notModified = 0
    /// Failed polls by `FeedError.Kind` name (`transport`, `http_status`, `invalid_json`, `shape`,
    /// `too_large`, `provider_error`).
    public var errors: [String: Int] = [:]
    /// When (UNIX seconds) a poll last succeeded (fresh facts or `304`).
    public var lastSuccess: Int?
    /// When a poll last failed.
    public var lastFailure: Int?
    /// Failures since the last success.
    public var consecutiveFailures = 0

    /// No polls yet.
    public init() {}

    /// Counts one poll at `now` (UNIX seconds).
    public mutating func record(_ outcome: PollOutcome, now: Int) {
        requests += 1
        switch outcome.result {
        case .fresh, .notModified:
            if outcome.result == .notModified { notModified += 1 }
            lastSuccess = now
            consecutiveFailures = 0
        case .failed(let kind):
            errors[kind.name, default: 0] += 1
            lastFailure = now
            consecutiveFailures += 1
        }
    }

    /// Failed polls of every kind.
    public var errorCount: Int { errors.values.reduce(0, +) }
}
