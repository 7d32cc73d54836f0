import Synchronization

/// Polls one source for as long as its task runs: poll, count, ask the schedule for the delay, sleep on the
/// injected clock, again. The worker runs one per feed, and one for its outbox. The poll itself (fetch,
/// normalise, detect changes, evaluate, deliver) is the caller's closure, which never throws: a failure of
/// any kind, the state store's included, is an outcome the schedule backs off from, so a failing poll never
/// stops the loop, and one loop per feed keeps a bad feed from delaying the others.
///
/// ```swift
/// let loop = PollLoop(name: "scores", policy: .init(interval: .seconds(15)), clock: ContinuousClock(),
///                     now: { Int(Date().timeIntervalSince1970) }) { await pollOnce() }
/// await loop.run()   // until the task is cancelled, or its clock's sleep throws
/// ```
public final class PollLoop: Sendable {
    /// What one poll came to and what the schedule made of it, for logs, metrics and tests.
    public struct Report: Sendable, Hashable {
        /// The loop's name (the feed id).
        public var name: String
        /// When (UNIX seconds) the poll finished.
        public var at: Int
        /// The poll's outcome.
        public var outcome: PollOutcome
        /// The delay before the next poll.
        public var decision: PollDecision
    }

    /// The loop's name: the feed id, or `outbox`.
    public let name: String
    private let clock: any Clock<Duration>
    private let now: @Sendable () -> Int
    private let random: @Sendable () -> Double
    private let poll: @Sendable () async -> PollOutcome
    private let observe: @Sendable (Report) -> Void
    /// Keeps the schedule after each poll (the worker saves it, so a restart goes on from it).
    private let remember: (@Sendable (Report, PollSchedule) async -> Void)?
    /// No poll before this (UNIX seconds): a wait a previous process was told to keep.
    public let firstPollAt: Int?
    /// Asked before each poll whether this process polls the source now (see ``PollGate``).
    private let gate: (@Sendable () async -> PollGate)?
    // The schedule and the counters change only in `pollOnce`; the lock lets health and metrics read them.
    private let state: Mutex<(schedule: PollSchedule, counters: PollCounters)>
    private let current = Mutex(Phase.idle)

    /// What the loop is doing, for a stop that takes long to say what it waits for.
    public enum Phase: String, Sendable, Hashable {
        /// Not started, or between steps.
        case idle
        /// Sleeping on its clock until the next poll.
        case sleeping
        /// Asking its gate whether this process polls.
        case askingGate = "asking whether to poll"
        /// Polling (a feed's fetch and pipeline, a delivery round, a timer pass).
        case polling
        /// Keeping its schedule for the next process.
        case remembering = "saving its schedule"
        /// `run()` returned.
        case stopped
    }

    /// What the loop is doing now.
    public var phase: Phase { current.withLock { $0 } }

    /// A loop for one source.
    ///
    /// - Parameters:
    ///   - clock: what the loop sleeps on; tests pass a manual clock.
    ///   - now: the wall time in UNIX seconds (for `Retry-After` dates and the counters).
    ///   - random: draws in `0..<1` for the jitter.
    ///   - schedule: the schedule as a previous process left it (its failures in a row); a new one when `nil`.
    ///   - firstPollAt: no poll before this UNIX time (a wait the previous process was told to keep).
    ///   - remember: called after every poll with the schedule, to keep it across processes.
    ///   - gate: asked before each poll of ``run()`` whether to poll (several workers share the source).
    ///   - observe: called after every poll.
    ///   - poll: polls the source once.
    public init(
        name: String, policy: PollSchedule.Policy, clock: any Clock<Duration>, now: @escaping @Sendable () -> Int,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, schedule: PollSchedule? = nil,
        firstPollAt: Int? = nil, remember: (@Sendable (Report, PollSchedule) async -> Void)? = nil,
        gate: (@Sendable () async -> PollGate)? = nil, observe: @escaping @Sendable (Report) -> Void = { _ in },
        poll: @escaping @Sendable () async -> PollOutcome
    ) {
        self.remember = remember
        self.gate = gate
        self.firstPollAt = firstPollAt
        self.name = name
        self.clock = clock
        self.now = now
        self.random = random
        self.observe = observe
        self.poll = poll
        state = Mutex((schedule ?? PollSchedule(policy: policy), PollCounters()))
    }

    /// The counters so far.
    public var counters: PollCounters { state.withLock { $0.counters } }

    /// The schedule's state so far.
    public var schedule: PollSchedule { state.withLock { $0.schedule } }

    /// Polls now, counts the outcome and decides when to poll next, without waiting.
    @discardableResult
    public func pollOnce() async -> Report {
        current.withLock { $0 = .polling }
        let outcome = await poll()
        let at = now()
        let draw = random()
        let (decision, schedule) = state.withLock { state in
            state.counters.record(outcome, now: at)
            return (state.schedule.record(outcome, now: at, random: draw), state.schedule)
        }
        let report = Report(name: name, at: at, outcome: outcome, decision: decision)
        current.withLock { $0 = .remembering }
        await remember?(report, schedule)
        current.withLock { $0 = .idle }
        observe(report)
        return report
    }

    /// Polls until the task is cancelled or a sleep on the clock throws (the worker's clock throws when a
    /// graceful shutdown begins, so a poll under way finishes and the next one is not started).
    public func run() async {
        await runLoop()
        current.withLock { $0 = .stopped }
    }

    private func sleep(for duration: Duration) async throws {
        current.withLock { $0 = .sleeping }
        try await clock.sleep(for: duration)
        current.withLock { $0 = .idle }
    }

    private func runLoop() async {
        if let firstPollAt, case let wait = firstPollAt - now(), wait > 0 {
            do {
                try await sleep(for: .seconds(wait))
            } catch {
                return
            }
        }
        while !Task.isCancelled {
            current.withLock { $0 = .askingGate }
            let verdict = await gate?() ?? .poll
            current.withLock { $0 = .idle }
            switch verdict {
            case .poll:
                break
            case .standby(let retry):
                do { try await sleep(for: retry) } catch { return }
                continue
            case .resume(let schedule):
                // Taking over from another process: its failures in a row, and its wait, hold here.
                state.withLock { $0.schedule = schedule }
                if let notBefore = schedule.notBefore, case let wait = notBefore - now(), wait > 0 {
                    do { try await sleep(for: .seconds(wait)) } catch { return }
                    continue
                }
            }
            let report = await pollOnce()
            do {
                try await sleep(for: report.decision.delay)
            } catch {
                return
            }
        }
    }
}

/// Whether a loop polls now, when several processes share its source and one at a time polls it.
public enum PollGate: Sendable {
    /// This process polls.
    case poll
    /// Another process polls: ask again after this long, without polling or counting anything.
    case standby(retry: Duration)
    /// This process has just taken the source over: continue from the schedule the previous poller left
    /// (its failures, and a wait it was told to keep), then poll.
    case resume(PollSchedule)
}
