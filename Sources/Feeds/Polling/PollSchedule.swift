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
/// ever undercut. What a server asks is honoured up to a cap tied to the feed's own interval, so that one
/// answer never silences a live feed for long: a `Retry-After` or a ban (a command, which a client that
/// ignores it pays for) up to `longestWait`, by default 20 intervals within 5 minutes to an hour; a
/// `max-age` (a freshness hint, often a CDN's default for static files) up to `longestMaxAge`, by default 4
/// intervals. The decision says when it was capped.
public struct PollSchedule: Sendable, Hashable {
    /// The settings of one feed.
    public struct Policy: Sendable, Hashable {
        /// The delay between polls of a healthy feed.
        public var interval: Duration
        /// The largest fraction of a delay added at random (0.1 = up to 10 %).
        public var jitter: Double
        /// The longest backoff after failures (before jitter).
        public var backoffCap: Duration
        /// The longest wait a server's `Retry-After` or ban may impose.
        public var longestWait: Duration
        /// The longest a server's `Cache-Control: max-age` may hold the feed.
        public var longestMaxAge: Duration

        /// Creates a policy; the backoff cap defaults to ten minutes, the longest wait to
        /// `defaultLongestWait(interval:)`, the longest max-age to four intervals (never more than the
        /// longest wait); each at least the interval.
        public init(
            interval: Duration, jitter: Double = 0.1, backoffCap: Duration? = nil, longestWait: Duration? = nil,
            longestMaxAge: Duration? = nil
        ) {
            self.interval = interval
            self.jitter = max(0, jitter)
            self.backoffCap = max(backoffCap ?? .seconds(600), interval)
            let longestWait = max(longestWait ?? Self.defaultLongestWait(interval: interval), interval)
            self.longestWait = longestWait
            self.longestMaxAge = max(longestMaxAge ?? min(interval * 4, longestWait), interval)
        }

        /// Twenty intervals, at least five minutes (a rate limit's `Retry-After: 120` on a 15-s feed is
        /// honoured) and at most an hour (a `Retry-After` in 2099 holds a live feed for 5 minutes, not
        /// forever).
        public static func defaultLongestWait(interval: Duration) -> Duration {
            min(max(interval * 20, .seconds(300)), .seconds(3600))
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
        func capped(_ asked: Int, to longest: Int = longest) -> (Int, Int?) {
            asked > longest ? (longest, asked) : (asked, nil)
        }
        if outcome.succeeded {
            consecutiveFailures = 0
            notBefore = nil
            if let asked = HTTPCacheHints.maxAge(outcome.cacheControl), Duration.seconds(asked) > policy.interval {
                let (maxAge, cut) = capped(asked, to: Int(policy.longestMaxAge.components.seconds))
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
