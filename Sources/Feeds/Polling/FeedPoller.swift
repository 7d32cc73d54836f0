import Synchronization

/// Polls one feed for as long as its task runs: poll, count, ask the schedule for the delay, sleep on the
/// injected clock, again. The poll itself (fetch, normalise, detect changes, evaluate) is the caller's
/// closure, so the poller only decides *when*; a failing poll never stops it, and one poller per feed keeps
/// a bad feed from delaying the others.
///
/// ```swift
/// let poller = FeedPoller(feed: "scores", policy: .init(interval: .seconds(15)), clock: ContinuousClock(),
///                         now: { Int(Date().timeIntervalSince1970) }) { await pollOnce() }
/// try await poller.run()   // until the task is cancelled
/// ```
public final class FeedPoller<C: Clock<Duration>>: Sendable {
    /// What one poll came to and what the schedule made of it, for logs and tests.
    public struct Report: Sendable, Hashable {
        /// The feed id.
        public var feed: String
        /// When (UNIX seconds) the poll finished.
        public var at: Int
        /// The poll's outcome.
        public var outcome: PollOutcome
        /// The delay before the next poll.
        public var decision: PollDecision
    }

    /// The feed id.
    public let feed: String
    private let clock: C
    private let now: @Sendable () -> Int
    private let random: @Sendable () -> Double
    private let poll: @Sendable () async -> PollOutcome
    private let observe: @Sendable (Report) -> Void
    // The schedule and the counters change only in `pollOnce`; the lock lets the metrics layer read them.
    private let state: Mutex<(schedule: PollSchedule, counters: FeedCounters)>

    /// A poller for one feed.
    ///
    /// - Parameters:
    ///   - clock: what the poller sleeps on; tests pass a manual clock.
    ///   - now: the wall time in UNIX seconds (for `Retry-After` dates and the counters).
    ///   - random: draws in `0..<1` for the jitter.
    ///   - observe: called after every poll.
    ///   - poll: polls the feed once.
    public init(
        feed: String, policy: PollSchedule.Policy, clock: C, now: @escaping @Sendable () -> Int,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        observe: @escaping @Sendable (Report) -> Void = { _ in },
        poll: @escaping @Sendable () async -> PollOutcome
    ) {
        self.feed = feed
        self.clock = clock
        self.now = now
        self.random = random
        self.observe = observe
        self.poll = poll
        state = Mutex((PollSchedule(policy: policy), FeedCounters()))
    }

    /// The counters so far.
    public var counters: FeedCounters { state.withLock { $0.counters } }

    /// The schedule's state so far.
    public var schedule: PollSchedule { state.withLock { $0.schedule } }

    /// Polls now, counts the outcome and decides when to poll next, without waiting.
    @discardableResult
    public func pollOnce() async -> Report {
        let outcome = await poll()
        let at = now()
        let draw = random()
        let decision = state.withLock { state in
            state.counters.record(outcome, now: at)
            return state.schedule.record(outcome, now: at, random: draw)
        }
        let report = Report(feed: feed, at: at, outcome: outcome, decision: decision)
        observe(report)
        return report
    }

    /// Polls until the task is cancelled, sleeping on the clock between polls. Throws `CancellationError`
    /// when cancelled.
    public func run() async throws {
        while true {
            try Task.checkCancellation()
            let report = await pollOnce()
            try await clock.sleep(for: report.decision.delay)
        }
    }
}
