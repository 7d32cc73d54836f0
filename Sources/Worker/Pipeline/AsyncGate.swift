import Synchronization

/// Lets one task at a time through a section that awaits (an actor alone does not: it is reentrant at every
/// `await`). Waiters go through in arrival order.
final class AsyncGate: Sendable {
    private let state = Mutex<(busy: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Runs `body` once the gate lets this task through, and lets the next one through after it, however
    /// `body` ends: callers never pair an entry and an exit by hand.
    func through<T, Failure: Error>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws(Failure) -> T
    ) async throws(Failure) -> T {
        await enter()
        let result: Result<T, Failure>
        do throws(Failure) {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        leave()
        return try result.get()
    }

    private func enter() async {
        if state.withLock({ state in
            guard !state.busy else { return false }
            state.busy = true
            return true
        }) {
            return
        }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                guard state.busy else {
                    state.busy = true
                    return true
                }
                state.waiters.append(waiter)
                return false
            }
            if now { waiter.resume() }
        }
    }

    private func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiters.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
