import Synchronization

/// A clock whose `sleep` returns at once, moving its time forward by the requested duration and recording
/// it: tests of backoff see exactly how long the code would have waited, without waiting.
public final class ImmediateClock: Clock, Sendable {
    /// A point on the clock: the time slept since it was made.
    public struct Instant: InstantProtocol {
        /// Time since the clock's start.
        public var offset: Duration

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private let state = Mutex<(now: Instant, sleeps: [Duration])>((Instant(offset: .zero), []))

    /// A clock at offset zero.
    public init() {}

    /// The time slept so far.
    public var now: Instant { state.withLock { $0.now } }
    /// Any duration can be slept.
    public var minimumResolution: Duration { .zero }

    /// Every duration slept, in order.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    /// Records the wait and moves the time to `deadline` at once.
    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.sleeps.append(max(.zero, state.now.duration(to: deadline)))
            state.now = max(state.now, deadline)
        }
    }
}
