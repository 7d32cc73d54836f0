import NIOConcurrencyHelpers

/// A clock that only moves when a test says so, for code that sleeps on `some Clock<Duration>`.
///
/// `sleep` suspends until ``advance(by:)`` (or ``advance(to:)``) reaches the deadline; ``sleeps()`` waits,
/// without touching the wall clock, until the code under test has gone to sleep, and tells for how long.
///
/// ```swift
/// let clock = TestClock()
/// let task = Task { try await poller.run() }
/// let first = await clock.nextSleep()     // the poller polled once and sleeps for `first`
/// clock.advance(by: first)
/// ```
public final class TestClock: Clock, Sendable {
    /// A moment: the time since the clock was created.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
        /// Time since the clock's start.
        public var offset: Duration

        /// The moment `offset` after the clock's start.
        public init(offset: Duration) { self.offset = offset }
        /// The moment `duration` later.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The time from this moment to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        /// Earlier than.
        public static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private struct Sleeper {
        var id: Int
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID = 0
        /// Durations of sleeps that started and were not yet taken by `nextSleep`.
        var started: [Duration] = []
        var waiters: [CheckedContinuation<Duration, Never>] = []
        /// Sleeps cancelled before they were registered.
        var cancelled: Set<Int> = []
        /// Tasks waiting until this many sleepers are asleep.
        var sleeperWaiters: [(count: Int, id: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// The waiters of ``TestClock/sleeping(_:)`` whose count is reached, removed.
        mutating func takeSleeperWaiters() -> [CheckedContinuation<Void, Never>] {
            let count = sleepers.count
            let ready = sleeperWaiters.filter { $0.count <= count }.map(\.continuation)
            sleeperWaiters.removeAll { $0.count <= count }
            return ready
        }
    }

    private let state = NIOLockedValueBox(State())

    /// A clock at offset zero.
    public init() {}

    /// The current moment.
    public var now: Instant { state.withLockedValue { $0.now } }

    /// The clock resolves to the nanosecond.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Suspends until the clock reaches `deadline`; throws `CancellationError` if the task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLockedValue { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, waiter, duration, asleep) = state.withLockedValue {
                    state -> (
                        Bool?, CheckedContinuation<Duration, Never>?, Duration, [CheckedContinuation<Void, Never>]
                    ) in
                    let duration = state.now.duration(to: deadline)
                    if state.cancelled.remove(id) != nil { return (nil, nil, duration, []) }
                    if deadline <= state.now { return (true, nil, duration, []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    let asleep = state.takeSleeperWaiters()
                    if state.waiters.isEmpty {
                        state.started.append(duration)
                        return (false, nil, duration, asleep)
                    }
                    return (false, state.waiters.removeFirst(), duration, asleep)
                }
                switch resumeNow {
                case nil: continuation.resume(throwing: CancellationError())
                case true?: continuation.resume()
                case false?: waiter?.resume(returning: duration)
                }
                for waiter in asleep { waiter.resume() }
            }
        } onCancel: {
            let cancelled = state.withLockedValue { state -> Sleeper? in
                guard let i = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: i)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Waits until some task sleeps on this clock (or returns at once if one already went to sleep since the
    /// last call), and returns how long that sleep is.
    public func nextSleep() async -> Duration {
        await withCheckedContinuation { (waiter: CheckedContinuation<Duration, Never>) in
            let ready = state.withLockedValue { state -> Duration? in
                if !state.started.isEmpty { return state.started.removeFirst() }
                state.waiters.append(waiter)
                return nil
            }
            if let ready { waiter.resume(returning: ready) }
        }
    }

    /// Waits until `count` tasks are asleep on this clock at once (returns at once if they are): after
    /// ``advance(by:)``, the woken tasks have done their work and gone back to sleep. A cancelled wait returns
    /// at once.
    public func sleeping(_ count: Int) async {
        let id = state.withLockedValue { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let ready = state.withLockedValue { state -> Bool in
                    if state.sleepers.count >= count || Task.isCancelled { return true }
                    state.sleeperWaiters.append((count, id, waiter))
                    return false
                }
                if ready { waiter.resume() }
            }
        } onCancel: {
            let waiter = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
                guard let at = state.sleeperWaiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleeperWaiters.remove(at: at).continuation
            }
            waiter?.resume()
        }
    }

    /// How many tasks sleep on this clock now.
    public var sleeperCount: Int { state.withLockedValue { $0.sleepers.count } }

    /// Moves the clock forward and wakes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        advance(to: now.advanced(by: duration))
    }

    /// Moves the clock to `instant` (never backwards) and wakes every sleeper whose deadline has come.
    public func advance(to instant: Instant) {
        let due = state.withLockedValue { state -> [Sleeper] in
            state.now = max(state.now, instant)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}

extension TestClock {
    /// Wall time (UNIX seconds) that moves with this clock: `start` plus the clock's offset.
    public func wallTime(from start: Int) -> @Sendable () -> Int {
        { start + Int(self.now.offset.components.seconds) }
    }
}
