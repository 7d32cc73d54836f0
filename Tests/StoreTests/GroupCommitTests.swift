import Synchronization
import Testing

@testable import Store

/// Writes that come while one is made go together: each caller gets its own answer, a failure reaches
/// the callers of that write only, and the line never stalls.
@Suite struct GroupCommitTests {
    /// A gate the first write waits at, opened by the test.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
        func wait() async {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state in
                    if !state.open { state.waiters.append(continuation) }
                    return state.open
                }
                if open { continuation.resume() }
            }
        }
        func open() {
            let waiters = state.withLock { state in
                state.open = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    @Test func writesMadeMeanwhileGoTogetherAndEachGetsItsAnswer() async throws {
        let (inLine, lining) = AsyncStream<Void>.makeStream()
        let group = GroupCommit<Int, String>(limit: 10) { waiting in if waiting == 25 { lining.yield() } }
        let gate = Gate()
        let started = Gate()
        let batches = Mutex<[[Int]]>([])
        let write: @Sendable ([Int]) async throws(StoreFailure) -> [String] = { items throws(StoreFailure) in
            if items == [0] {
                started.open()
                await gate.wait()
            }
            batches.withLock { $0.append(items) }
            if items.contains(13) { throw StoreFailure(path: "x", message: "disk full") }
            return items.map { "#\($0)" }
        }
        try await withThrowingTaskGroup(of: (Int, Result<String, StoreFailure>).self) { tasks in
            tasks.addTask {
                do throws(StoreFailure) { return (0, .success(try await group.submit(0, write: write))) } catch {
                    return (0, .failure(error))
                }
            }
            await started.wait()
            for i in 1...25 {
                tasks.addTask {
                    do throws(StoreFailure) { return (i, .success(try await group.submit(i, write: write))) } catch {
                        return (i, .failure(error))
                    }
                }
            }
            for await _ in inLine { break }
            gate.open()
            var answers: [Int: Result<String, StoreFailure>] = [:]
            for try await (i, answer) in tasks { answers[i] = answer }
            let written = batches.withLock { $0 }
            #expect(written.first == [0])
            #expect(written.dropFirst().map(\.count) == [10, 10, 5], "the waiting wrote in batches of the limit")
            #expect(written.flatMap { $0 }.sorted() == Array(0...25))
            let failed = try #require(written.first { $0.contains(13) })
            for i in 0...25 {
                if failed.contains(i) {
                    #expect(throws: StoreFailure.self) { try answers[i]!.get() }
                } else {
                    #expect(try answers[i]!.get() == "#\(i)")
                }
            }
        }
        // The line is free again.
        #expect(try await group.submit(99, write: write) == "#99")
    }
}
