import LiveRelayTesting
import Synchronization
import Testing

/// `ChangeSignal`, the wait on events the tests of every module use (the lane's here, the worker's): a change
/// wakes a waiter to look again, a condition already true returns at once, the timeout bounds the wait, and
/// a cancelled waiter returns.
@Suite struct ChangeSignalTests {
    final class Counter: Sendable {
        let value = Mutex(0)
        let signal = ChangeSignal()
        func add() {
            value.withLock { $0 += 1 }
            signal.changed()
        }
        var count: Int { value.withLock { $0 } }
    }

    @Test func aChangeWakesTheWaiterWhichLooksAgain() async {
        let counter = Counter()
        async let reached = counter.signal.wait(until: { counter.count >= 3 }, timeout: .seconds(30))
        for _ in 0..<3 { counter.add() }
        #expect(await reached)
        #expect(counter.count == 3)
    }

    @Test func aConditionAlreadyTrueReturnsAtOnceAndNoChangeEndsAtTheTimeout() async {
        let counter = Counter()
        counter.add()
        #expect(await counter.signal.wait(until: { counter.count == 1 }, timeout: .zero))
        #expect(!(await counter.signal.wait(until: { counter.count == 2 }, timeout: .milliseconds(20))))
    }

    @Test func aCancelledWaiterReturns() async {
        let counter = Counter()
        let waiting = Task { await counter.signal.wait(until: { counter.count == 1 }, timeout: .seconds(600)) }
        waiting.cancel()
        #expect(!(await waiting.value))
    }
}
