/// When to poll a feed next, decided from the outcome of each poll. Pure: the time and the random draw
/// for jitter are parameters.
///
/// - After a success or a `304`: the interval, or the response's `Cache-Control: max-age` when longer
///   (a floor: the server said the data will not change sooner), plus jitter.
/// - After a failure: exponential backoff, the interval doubled for each failure in a row (the first retry
///   after one interval), capped; plus jitter. A success ends it.
/// - `429` and `503` with `Retry-After`: not before it. `418` (Binance's ban for ignoring 429s): not before
///   its `Retry-After`, or the cap when it has none.
///
/// Jitter adds up to `jitter` × the delay, so feeds with the same interval spread out and no floor is
/// ever undercut. What a server asks (`max-age`, `Retry-After`, a ban) is honoured up to `longestWait`
/// (an hour by default): one answer never silences a feed for a year; the decision says it was capped.
public struct PollSchedule: Sendable, Hashable {
    /// The settings of one feed.
    public struct Policy: Sendable, Hashable {
        /// The delay between polls of a healthy feed.
        public var interval: Duration
        /// The largest fraction of a delay added at random (0.1 = up to 10 %).
        public var jitter: Double
        /// The longest backoff after failures (before jitter).
        public var backoffCap: Duration
        /// The longest wait a server's answer may impose (`max-age`, `Retry-After`, a ban).
        public var longestWait: Duration

        /// Creates a policy; the backoff cap defaults to ten minutes and the longest wait to an hour, each
        /// at least the interval.
        public init(
            interval: Duration, jitter: Double = 0.1, backoffCap: Duration? = nil, longestWait: Duration? = nil
        ) {
            self.interval = interval
            self.jitter = max(0, jitter)
            self.backoffCap = max(backoffCap ?? .seconds(600), interval)
            self.longestWait = max(longestWait ?? .seconds(3600), interval)
        }
    }

    /// The settings.
    public let policy: Policy
    /// Failures since the last success.
    public private(set) var consecutiveFailures = 0
    /// Until when (UNIX seconds) the server asked not to be polled, after a `Retry-After` or a ban.
    public private(set) var notBefore: Int?

    /// A schedule with no failures yet.
    public init(policy: Policy) {
        self.policy = policy
    }

    /// A schedule as a previous process left it (`tick` from cron): its failures in a row and the server's
    /// wait, if one runs.
    public init(policy: Policy, consecutiveFailures: Int, notBefore: Int?) {
        self.policy = policy
        self.consecutiveFailures = max(0, consecutiveFailures)
        self.notBefore = notBefore
    }

    /// Records a poll's outcome at `now` (UNIX seconds) and decides the delay before the next poll.
    /// `random` is a draw in `0..<1` for the jitter.
    public mutating func record(_ outcome: PollOutcome, now: Int, random: Double) -> PollDecision {
        let spread = 1 + policy.jitter * min(max(random, 0), 1)
        let longest = Int(policy.longestWait.components.seconds)
        /// A server's wait, capped: the seconds kept, and what was asked when it was more.
        func capped(_ asked: Int) -> (Int, Int?) { asked > longest ? (longest, asked) : (asked, nil) }
        if outcome.succeeded {
            consecutiveFailures = 0
            notBefore = nil
            if let asked = HTTPCacheHints.maxAge(outcome.cacheControl), Duration.seconds(asked) > policy.interval {
                let (maxAge, cut) = capped(asked)
                return PollDecision(
                    delay: Self.scaled(.seconds(maxAge), spread), reason: .cacheMaxAge(maxAge), cappedFrom: cut)
            }
            return PollDecision(delay: Self.scaled(policy.interval, spread), reason: .interval)
        }
        consecutiveFailures += 1
        let doublings = min(consecutiveFailures - 1, 32)
        let backoff = min(policy.backoffCap, policy.interval * (1 << doublings))
        let decision = PollDecision(
            delay: Self.scaled(backoff, spread), reason: .backoff(failures: consecutiveFailures))
        let asked = HTTPCacheHints.retryAfter(outcome.retryAfter, now: now)
        switch outcome.status {
        case 418:
            let (ban, cut) = capped(asked ?? Int(policy.backoffCap.components.seconds))
            notBefore = now + ban
            return decision.delay >= .seconds(ban)
                ? decision : PollDecision(delay: .seconds(ban), reason: .banned(ban), cappedFrom: cut)
        case 429, 503:
            guard let asked else { return decision }
            let (requested, cut) = capped(asked)
            notBefore = now + requested
            return decision.delay >= .seconds(requested)
                ? decision
                : PollDecision(delay: .seconds(requested), reason: .retryAfter(requested), cappedFrom: cut)
        default:
            return decision
        }
    }

    /// `delay` × `factor`, to the millisecond.
    private static func scaled(_ delay: Duration, _ factor: Double) -> Duration {
        .milliseconds(Int((delay / .milliseconds(1) * factor).rounded()))
    }
}
