import ServiceLifecycle
import Synchronization

/// Waits until a graceful shutdown begins or the task is cancelled, whichever comes first (at once when one
/// has already happened). Its handler and its wait meet in one lock, so the wake-up is never lost whatever
/// order they run in: the handler may run before the wait has begun (a shutdown or a cancellation that came
/// first), while it begins, or after.
///
/// ServiceLifecycle's `gracefulShutdown()` and `cancelWhenGracefulShutdown` hop through an actor and
/// unstructured tasks to do the same; the worker's loops and the stop's watchdog wait on this instead.
/// `waiting` hears when the wait has begun (for the tests of a shutdown that comes during it).
func untilGracefulShutdownOrCancellation(waiting: (@Sendable () -> Void)? = nil) async {
    let signal = ShutdownSignal()
    await withTaskCancellationOrGracefulShutdownHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            signal.wait(continuation)
            waiting?()
        }
    } onCancelOrGracefulShutdown: {
        signal.fire()
    }
}

/// Runs `operation` until it returns, or until a graceful shutdown begins or the task is cancelled: then it
/// is cancelled and this throws `CancellationError`. What `operation` throws is thrown.
func cancellingOnGracefulShutdown<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T)
    async throws -> T
{
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            await untilGracefulShutdownOrCancellation()
            return nil
        }
        let first: T??
        do {
            first = try await group.next()
        } catch {
            group.cancelAll()
            throw error
        }
        group.cancelAll()
        guard case .some(.some(let value)) = first else { throw CancellationError() }
        return value
    }
}

/// A wake-up that waits for its wait or its fire, whichever comes second.
private final class ShutdownSignal: Sendable {
    private let state = Mutex<(fired: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    func wait(_ continuation: CheckedContinuation<Void, Never>) {
        let now = state.withLock { state in
            if state.fired { return true }
            state.waiter = continuation
            return false
        }
        if now { continuation.resume() }
    }

    func fire() {
        let waiter = state.withLock { state in
            state.fired = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}
