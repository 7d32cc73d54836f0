import Synchronization

/// Wakes the tests waiting on something that may have changed (a fake's requests, a process's output, the
/// captured logs), so a test waits for its condition on the event instead of polling the wall clock. Each
/// wait is bounded: the timeout is a limit, never the way a condition is found to hold.
public final class ChangeSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var nextID = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Something changed: every waiter looks at its condition again.
    public func changed() {
        let waiters = state.withLock { state in
            state.generation &+= 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until `condition` holds, looking at it again at each change; false once `timeout` has passed
    /// without it holding.
    public func wait(until condition: @Sendable () -> Bool, timeout: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let generation = state.withLock { $0.generation }
            if condition() { return true }
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return condition() }
            await next(after: generation, deadline: deadline)
        }
    }

    /// Returns at the first change after `generation` (at once if there was one), or at `deadline`.
    private func next(after generation: UInt64, deadline: ContinuousClock.Instant) async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            self?.resume(id)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    // A change, a cancel, or a deadline the timer may have met before this waiter was here.
                    if state.generation != generation || Task.isCancelled || ContinuousClock.now >= deadline {
                        return true
                    }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            resume(id)
        }
        timer.cancel()
    }

    private func resume(_ id: Int) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }
}
