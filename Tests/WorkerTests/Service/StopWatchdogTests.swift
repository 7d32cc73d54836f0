import Feeds
import LiveRelayTesting
import ServiceLifecycle
import ServiceLifecycleTestKit
import Testing

@testable import Worker

@Suite("A stop that waits for a loop")
struct StopWatchdogTests {
    /// A graceful stop waiting on a loop in the middle of a poll says, after 5 s, which loop and what it
    /// does; the loop then finishes its poll and the service returns.
    @Test func saysWhichLoopItWaitsForAndWhatItDoes() async throws {
        let logs = CapturingLogHandler.Store()
        let (release, releasing) = AsyncStream<Void>.makeStream()
        let (polling, pollingStarted) = AsyncStream<Void>.makeStream()
        let loop = PollLoop(
            name: "outbox", policy: PollSchedule.Policy(interval: .seconds(1)),
            clock: endingOnGracefulShutdown(ContinuousClock()), now: { 1_000 }
        ) {
            pollingStarted.yield()
            for await _ in release { break }
            return PollOutcome(.fresh)
        }
        let service = WorkerService(loops: [loop], logger: CapturingLogHandler.logger(logs), pending: { 0 })
        let waiting: @Sendable () -> String? = {
            logs.all.first { $0.contains("the stop still waits for loops") }
        }
        var said: String?
        await testGracefulShutdown { trigger in
            async let ran: Void = service.run()
            for await _ in polling { break }
            #expect(loop.phase == .polling)
            trigger.triggerGracefulShutdown()
            #expect(await logs.wait(forLineContaining: "the stop still waits for loops"))
            said = waiting()
            releasing.yield()
            await ran
        }
        #expect(said?.contains("loops=outbox (polling)") == true, "\(logs.all)")
        #expect(loop.phase == .stopped)
        #expect(logs.all.contains { $0.contains("worker stopped") })
    }
}
