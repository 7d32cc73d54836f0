/// How long to wait before trying a push again. Pure: the random jitter comes in as a number.
///
/// Exponential backoff (`baseDelay`, doubled each attempt, at most `maxDelay`) with "equal jitter": a delay
/// is between half and all of the exponential value, so many pushes failing together do not come back
/// together. A `Retry-After` from the provider is honoured as a floor, up to `longestRetryAfter`; past it
/// the push is given up.
///
/// Three policies use it: the `Sender`'s retries within one delivery (the defaults: seconds, in process),
/// the outbox's rounds (``outbox``: minutes, across rounds and restarts), and the outbox's rounds for a
/// throttled target (``throttled``: every few seconds until it has room).
public struct RetryPolicy: Sendable, Hashable {
    /// How many times one push is sent at most, the first time included.
    public var maxAttempts: Int
    /// The delay before the first retry, before jitter.
    public var baseDelay: Duration
    /// The longest delay before jitter.
    public var maxDelay: Duration
    /// The longest `Retry-After` honoured; a longer one gives the push up. `nil` honours any.
    public var longestRetryAfter: Duration?

    /// A policy; by default 4 attempts, 0.5 s doubling up to 8 s. A `Retry-After` longer than `maxDelay`
    /// gives the push up (the sender does not sleep for minutes; the outbox takes it from there).
    public init(maxAttempts: Int = 4, baseDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(8)) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        longestRetryAfter = maxDelay
    }

    /// The outbox's rounds: a push still failing after the sender's retries is put off 5 s, doubling up to
    /// 5 minutes, or as long as the provider's `Retry-After` asks, and given up after 10 rounds.
    public static let outbox: RetryPolicy = {
        var policy = RetryPolicy(maxAttempts: 10, baseDelay: .seconds(5), maxDelay: .seconds(300))
        policy.longestRetryAfter = nil
        return policy
    }()

    /// The outbox's rounds for a throttled target (APNs 429 `TooManyRequests` on a channel or a token): every
    /// 2.5 to 5 s (or the `Retry-After`), so the newest state goes within seconds of the target's window
    /// reopening, for up to 10 minutes; one request per target each time, never a burst.
    public static let throttled: RetryPolicy = {
        var policy = RetryPolicy(maxAttempts: 120, baseDelay: .seconds(5), maxDelay: .seconds(5))
        policy.longestRetryAfter = nil
        return policy
    }()

    /// The delay before attempt `attempt + 1` after attempt `attempt` (from 1) failed, or `nil` to give up.
    /// `jitter` is a random number in `0..<1`.
    public func delay(afterAttempt attempt: Int, retryAfterSeconds: Int?, jitter: Double) -> Duration? {
        guard attempt < maxAttempts else { return nil }
        let exponent = min(attempt - 1, 30)
        let full = min(baseDelay * (1 << exponent), maxDelay)
        var delay = full / 2 + full / 2 * min(max(jitter, 0), 1)
        if let retryAfterSeconds {
            let floor = Duration.seconds(max(0, retryAfterSeconds))
            if let longest = longestRetryAfter, floor > longest { return nil }
            delay = max(delay, floor)
        }
        return delay
    }
}
