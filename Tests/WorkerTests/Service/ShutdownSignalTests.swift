import ServiceLifecycle
import ServiceLifecycleTestKit
import Synchronization
import Testing

@testable import Worker

/// The waits the loops and the stop's watchdog make on a graceful shutdown: they end whichever comes first,
/// the shutdown or a cancellation, before or after the wait begins, and never miss one.
@Suite("Waiting for a graceful shutdown")
struct ShutdownSignalTests {
    @Test func aShutdownBeforeTheWaitEndsItAtOnce() async {
        await testGracefulShutdown { trigger in
            trigger.triggerGracefulShutdown()
            await untilGracefulShutdownOrCancellation()
            #expect(!Task.isCancelled)
        }
    }

    @Test func aShutdownDuringTheWaitEndsIt() async {
        await testGracefulShutdown { trigger in
            let (began, beginning) = AsyncStream<Void>.makeStream()
            async let waited: Void = untilGracefulShutdownOrCancellation { beginning.yield() }
            for await _ in began { break }
            trigger.triggerGracefulShutdown()
            await waited
        }
    }

    @Test func aCancellationEndsIt() async {
        let waiting = Task { await untilGracefulShutdownOrCancellation() }
        waiting.cancel()
        await waiting.value
        let (began, beginning) = AsyncStream<Void>.makeStream()
        let later = Task { await untilGracefulShutdownOrCancellation { beginning.yield() } }
        for await _ in began { break }
        later.cancel()
        await later.value
    }

    /// A shutdown racing the start of thousands of waits reaches every one of them.
    @Test func noShutdownIsMissedWhateverTheOrder() async {
        for _ in 0..<500 {
            await testGracefulShutdown { trigger in
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<4 { group.addTask { await untilGracefulShutdownOrCancellation() } }
                    group.addTask { trigger.triggerGracefulShutdown() }
                }
            }
        }
    }

    @Test func anOperationThatEndsFirstGivesItsValue() async throws {
        let value = try await testGracefulShutdown { _ in try await cancellingOnGracefulShutdown { 42 } }
        #expect(value == 42)
    }

    @Test func aShutdownCancelsTheOperationAndThrows() async {
        let operationCancelled = CancelledFlag()
        let (began, beginning) = AsyncStream<Void>.makeStream()
        await testGracefulShutdown { trigger in
            async let outcome: Result<Int, any Error> = {
                do {
                    return .success(
                        try await cancellingOnGracefulShutdown {
                            beginning.yield()
                            do {
                                try await Task.sleep(for: .seconds(600))
                            } catch {
                                operationCancelled.value.withLock { $0 = true }
                                throw error
                            }
                            return 1
                        })
                } catch {
                    return .failure(error)
                }
            }()
            for await _ in began { break }
            trigger.triggerGracefulShutdown()
            guard case .failure(let error) = await outcome else {
                Issue.record("the operation was not cut short")
                return
            }
            #expect(error is CancellationError)
        }
        #expect(operationCancelled.value.withLock { $0 })
    }
}

/// Set when the operation saw its cancellation.
private final class CancelledFlag: Sendable {
    let value = Mutex(false)
}
