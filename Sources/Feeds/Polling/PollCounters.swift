/// What the polls of one loop (a feed, or the outbox) came to since the worker started: `/healthz` and
/// `tick`'s report read them.
public struct PollCounters: Sendable, Hashable {
    /// Polls made (for a feed, each one request or one `file:` read).
    public var requests = 0
    /// Polls answered `304 Not Modified`.
    public var notModified = 0
    /// Failed polls by `FeedError.Kind` name (`transport`, `http_status`, `invalid_json`, `shape`,
    /// `too_large`, `provider_error`, `store`).
    public var errors: [String: Int] = [:]
    /// When (UNIX seconds) the last poll finished.
    public var lastPoll: Int?
    /// When a poll last succeeded (fresh facts or `304`).
    public var lastSuccess: Int?
    /// When a poll last failed.
    public var lastFailure: Int?
    /// What the last failure was, in words; cleared by a success.
    public var lastError: String?
    /// The kind of the last failure (`store` for the state store's); cleared by a success.
    public var lastFailureKind: String?
    /// Failures since the last success.
    public var consecutiveFailures = 0

    /// No polls yet.
    public init() {}

    /// Counts one poll at `now` (UNIX seconds).
    public mutating func record(_ outcome: PollOutcome, now: Int) {
        requests += 1
        lastPoll = now
        switch outcome.result {
        case .fresh, .notModified:
            if outcome.result == .notModified { notModified += 1 }
            lastSuccess = now
            lastError = nil
            lastFailureKind = nil
            consecutiveFailures = 0
        case .failed(let kind):
            errors[kind.name, default: 0] += 1
            lastFailure = now
            lastError = outcome.message ?? kind.name
            lastFailureKind = kind.name
            consecutiveFailures += 1
        }
    }

    /// Failed polls of every kind.
    public var errorCount: Int { errors.values.reduce(0, +) }

    /// Whether the last poll succeeded (or none was made yet).
    public var healthy: Bool { consecutiveFailures == 0 }
}
