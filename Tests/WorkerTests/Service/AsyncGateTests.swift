import Synchronization
import Testing

@testable import Worker

@Suite("AsyncGate: one task at a time through a section that awaits")
struct AsyncGateTests {
    struct Refused: Error {}

    final class Inside: Sendable {
        let counts = Mutex((now: 0, most: 0, done: 0, failed: 0))
    }

    /// Tasks that await inside the section never overlap, and a section that throws lets the next one in.
    @Test func sectionsNeverOverlapAndAFailureLetsTheNextIn() async {
        let gate = AsyncGate()
        let box = Inside()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<50 {
                group.addTask {
                    do {
                        try await gate.through { () async throws(Refused) in
                            box.counts.withLock {
                                $0.now += 1
                                $0.most = max($0.most, $0.now)
                            }
                            await Task.yield()
                            await Task.yield()
                            box.counts.withLock { $0.now -= 1 }
                            if index % 7 == 0 { throw Refused() }
                            box.counts.withLock { $0.done += 1 }
                        }
                    } catch {
                        box.counts.withLock { $0.failed += 1 }
                    }
                }
            }
        }
        let seen = box.counts.withLock { $0 }
        #expect(seen.most == 1)
        #expect(seen.done == 42)
        #expect(seen.failed == 8)
    }

    /// The value the section returns comes back through the gate.
    @Test func theSectionsValueComesBack() async {
        let gate = AsyncGate()
        let value = await gate.through { 41 + 1 }
        #expect(value == 42)
    }
}
