import Feeds
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Testing
import Worker

/// The long-running poller on a test clock, against the loopback feed server: the delays it sleeps are the
/// schedule (interval, backoff, Retry-After, ban, Cache-Control floor), faults push nothing, and a feed in
/// trouble does not hold up another feed's poller.
@Suite struct FeedPollerTests {
    @Test func faultsBackOffExponentiallyAndTheFeedRecoversWhileTheOtherFeedGoesOn() async throws {
        let bed = try await FeedTestBed()
        let marketsClock = TestClock()
        let scoresClock = TestClock()
        let markets = bed.poller("markets", clock: marketsClock)
        let scores = bed.poller("scores", clock: scoresClock)
        let marketsTask = Task { try await markets.run() }
        let scoresTask = Task { try await scores.run() }
        defer {
            marketsTask.cancel()
            scoresTask.cancel()
        }

        // Two good polls of the markets feed, ten seconds apart: BTCUSDT's activity starts.
        #expect(await marketsClock.nextSleep() == .seconds(10))
        marketsClock.advance(by: .seconds(10))
        #expect(await marketsClock.nextSleep() == .seconds(10))
        #expect(bed.recorder.of("price-").map(\.event) == [.start])

        // Five faults in a row: the delay doubles from the interval, a Retry-After longer than the backoff
        // wins, and nothing is pushed.
        bed.markets.inject(.reset, .status(500), .status(429, retryAfter: "120"), .htmlErrorPage(), .wrongShape)
        var delays: [Duration] = []
        var wait = Duration.seconds(10)
        for _ in 0..<5 {
            marketsClock.advance(by: wait)
            wait = await marketsClock.nextSleep()
            delays.append(wait)
        }
        #expect(delays == [10, 20, 120, 80, 160].map { .seconds($0) })
        #expect(bed.recorder.of("price-").map(\.event) == [.start], "no push from any fault")
        #expect(markets.counters.errors == ["transport": 1, "http_status": 2, "invalid_json": 1, "shape": 1])
        #expect(markets.counters.consecutiveFailures == 5)
        #expect(markets.schedule.consecutiveFailures == 5)

        // Meanwhile the scores feed polled on its own schedule: kick-off, then 20'.
        #expect(await scoresClock.nextSleep() == .seconds(15))
        scoresClock.advance(by: .seconds(15))
        #expect(await scoresClock.nextSleep() == .seconds(15))
        #expect(bed.recorder.of("match-").map(\.event) == [.start, .update])

        // The feed heals: the interval again, and the body that was due (BNBUSDT drops) is read.
        marketsClock.advance(by: wait)
        #expect(await marketsClock.nextSleep() == .seconds(10))
        #expect(markets.counters.consecutiveFailures == 0)
        #expect(markets.counters.requests == 8)
        #expect(markets.counters.lastSuccess == FeedTestBed.start + 10 + 10 + 10 + 20 + 120 + 80 + 160)
        #expect(bed.recorder.of("price-BNBUSDT").map(\.event) == [.start])
        await bed.stop()
    }

    @Test(arguments: FeedFaultTests.faults.filter { $0.0 != .hang })
    func everyFaultBacksOffAndPushesNothing(fault: FeedServer.Fault, kind: FeedError.Kind, words: String) async throws {
        let bed = try await FeedTestBed()
        let clock = TestClock()
        let markets = bed.poller("markets", clock: clock)
        let task = Task { try await markets.run() }
        defer { task.cancel() }
        #expect(await clock.nextSleep() == .seconds(10))
        clock.advance(by: .seconds(10))
        #expect(await clock.nextSleep() == .seconds(10))
        #expect(bed.recorder.of("price-").map(\.event) == [.start])
        bed.markets.inject(fault)
        clock.advance(by: .seconds(10))
        let expected: Duration = fault == .status(503, retryAfter: "30") ? .seconds(30) : .seconds(10)
        #expect(await clock.nextSleep() == expected)
        #expect(markets.counters.errors == [kind.name: 1])
        #expect(bed.recorder.of("price-").map(\.event) == [.start], "no push from \(fault)")
        clock.advance(by: expected)
        #expect(await clock.nextSleep() == .seconds(10), "healed")
        #expect(bed.recorder.of("price-BNBUSDT").map(\.event) == [.start])
        await bed.stop()
    }

    /// A server that never answers: the poll that hangs (given a one-second timeout, unlike the good polls,
    /// so that a loaded machine cannot time them out) is a transport error and pushes nothing.
    @Test func aHangingServerIsATimeoutAndPushesNothing() async throws {
        let bed = try await FeedTestBed()
        let clock = TestClock()
        let patient = bed.poller("markets", clock: clock)
        await patient.pollOnce()
        await patient.pollOnce()
        #expect(bed.recorder.of("price-").map(\.event) == [.start])
        bed.markets.inject(.hang)
        let impatient = bed.poller("markets", clock: clock, timeout: 1)
        let report = await impatient.pollOnce()
        #expect(report.outcome.result == .failed(.transport))
        #expect(report.decision == PollDecision(delay: .seconds(10), reason: .backoff(failures: 1)))
        #expect(bed.recorder.of("price-").map(\.event) == [.start])
        #expect(await patient.pollOnce().outcome.result == .fresh, "healed")
        #expect(bed.recorder.of("price-BNBUSDT").map(\.event) == [.start])
        await bed.stop()
    }

    @Test func binance418IsABanAndARetryAfterDateIsHonoured() async throws {
        let bed = try await FeedTestBed()
        let clock = TestClock()
        let markets = bed.poller("markets", clock: clock)
        let task = Task { try await markets.run() }
        defer { task.cancel() }
        #expect(await clock.nextSleep() == .seconds(10))
        bed.markets.inject(.status(418, retryAfter: "7200"))
        clock.advance(by: .seconds(10))
        #expect(await clock.nextSleep() == .seconds(7200))
        #expect(markets.schedule.notBefore == FeedTestBed.start + 10 + 7200)
        // A 503 whose Retry-After is a date five minutes after the poll.
        let at = FeedTestBed.start + 10 + 7200
        let date = Date(timeIntervalSince1970: TimeInterval(at + 300))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        bed.markets.inject(.status(503, retryAfter: formatter.string(from: date)))
        clock.advance(by: .seconds(7200))
        #expect(await clock.nextSleep() == .seconds(300))
        clock.advance(by: .seconds(300))
        #expect(await clock.nextSleep() == .seconds(10), "healed")
        #expect(bed.markets.requests.count == 4)
        await bed.stop()
    }

    @Test func conditionalGetAndTheCacheControlFloor() async throws {
        let bed = try await FeedTestBed(
            marketsOptions: FeedServerOptions(etags: true, cacheControl: "public, max-age=30"))
        // The sequence repeats its last body once it is over, so polls 6 and 7 get the same version.
        let clock = TestClock()
        let markets = bed.poller("markets", clock: clock)
        let task = Task { try await markets.run() }
        defer { task.cancel() }
        for _ in 0..<6 {
            #expect(await clock.nextSleep() == .seconds(30), "max-age 30 is a floor over the 10 s interval")
            clock.advance(by: .seconds(30))
        }
        #expect(await clock.nextSleep() == .seconds(30))
        #expect(markets.counters.requests == 7)
        #expect(markets.counters.notModified == 2)
        let requests = bed.markets.requests
        #expect(requests[0].header("If-None-Match") == nil)
        #expect(requests[1].header("If-None-Match") != nil, "the ETag of the last body is sent back")
        await bed.stop()
    }
}
