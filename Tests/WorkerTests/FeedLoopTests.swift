import Feeds
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Store
import Testing
import Worker
import WorkerTesting

/// The feed loops `run` runs (built by the composition root), each poll at the test clock's time, against
/// the loopback feed server: the delays they decide are the schedule (interval, backoff, Retry-After, ban,
/// Cache-Control floor), faults push nothing, and a feed in trouble does not hold up another feed.
@Suite struct FeedLoopTests {
    @Test func faultsBackOffExponentiallyAndTheFeedRecoversWhileTheOtherFeedGoesOn() async throws {
        let bed = try await FeedTestBed()
        let markets = bed.loop("markets")
        let scores = bed.loop("scores")

        // Two good polls of the markets feed, ten seconds apart: BTCUSDT's activity starts.
        #expect(await bed.pollAndWait("markets") == .seconds(10))
        #expect(await bed.pollAndWait("markets") == .seconds(10))
        #expect(bed.recorder.of("price-").map(\.event) == [.start])

        // Five faults in a row: the delay doubles from the interval, a Retry-After longer than the backoff
        // wins, and nothing is pushed.
        bed.markets.inject(.reset, .status(500), .status(429, retryAfter: "120"), .htmlErrorPage(), .wrongShape)
        var delays: [Duration] = []
        for _ in 0..<5 { delays.append(await bed.pollAndWait("markets")) }
        #expect(delays == [10, 20, 120, 80, 160].map { .seconds($0) })
        #expect(bed.recorder.of("price-").map(\.event) == [.start], "no push from any fault")
        #expect(markets.counters.errors == ["transport": 1, "http_status": 2, "invalid_json": 1, "shape": 1])
        #expect(markets.counters.consecutiveFailures == 5)
        #expect(markets.schedule.consecutiveFailures == 5)
        #expect(markets.counters.lastError?.hasPrefix("feed markets (\(bed.markets.url)): ") == true)

        // Meanwhile the scores feed polls on its own schedule: kick-off, then 20'.
        #expect(await bed.pollAndWait("scores") == .seconds(15))
        #expect(await bed.pollAndWait("scores") == .seconds(15))
        #expect(scores.counters.errorCount == 0)
        #expect(bed.recorder.of("match-").map(\.event) == [.start, .update])

        // The feed heals: the interval again, and the body that was due (BNBUSDT drops) is read.
        #expect(await bed.pollAndWait("markets") == .seconds(10))
        #expect(markets.counters.consecutiveFailures == 0)
        #expect(markets.counters.requests == 8)
        #expect(markets.counters.lastSuccess == FeedTestBed.start + 10 + 10 + 10 + 20 + 120 + 80 + 160 + 15 + 15)
        #expect(bed.recorder.of("price-BNBUSDT").map(\.event) == [.start])
        await bed.stop()
    }

    @Test(arguments: FeedFaultTests.faults.filter { $0.0 != .hang })
    func everyFaultBacksOffAndPushesNothing(fault: FeedServer.Fault, kind: FeedError.Kind, words: String) async throws {
        let bed = try await FeedTestBed()
        #expect(await bed.pollAndWait("markets") == .seconds(10))
        #expect(await bed.pollAndWait("markets") == .seconds(10))
        #expect(bed.recorder.of("price-").map(\.event) == [.start])
        bed.markets.inject(fault)
        let expected: Duration = fault == .status(503, retryAfter: "30") ? .seconds(30) : .seconds(10)
        #expect(await bed.pollAndWait("markets") == expected)
        #expect(bed.loop("markets").counters.errors == [kind.name: 1])
        #expect(bed.recorder.of("price-").map(\.event) == [.start], "no push from \(fault)")
        #expect(await bed.pollAndWait("markets") == .seconds(10), "healed")
        #expect(bed.recorder.of("price-BNBUSDT").map(\.event) == [.start])
        await bed.stop()
    }

    /// A server that never answers: the poll that hangs (given a two-second timeout, so that a loaded
    /// machine cannot time out the good polls) is a transport error and pushes nothing.
    @Test func aHangingServerIsATimeoutAndPushesNothing() async throws {
        let bed = try await FeedTestBed(timeouts: ["markets": 2])
        let markets = bed.loop("markets")
        await markets.pollOnce()
        await markets.pollOnce()
        #expect(bed.recorder.of("price-").map(\.event) == [.start])
        bed.markets.inject(.hang)
        let report = await markets.pollOnce()
        #expect(report.outcome.result == .failed(.transport))
        #expect(report.decision == PollDecision(delay: .seconds(10), reason: .backoff(failures: 1)))
        #expect(bed.recorder.of("price-").map(\.event) == [.start])
        #expect(await markets.pollOnce().outcome.result == .fresh, "healed")
        #expect(bed.recorder.of("price-BNBUSDT").map(\.event) == [.start])
        await bed.stop()
    }

    @Test func binance418IsABanAndARetryAfterDateIsHonoured() async throws {
        let bed = try await FeedTestBed()
        #expect(await bed.pollAndWait("markets") == .seconds(10))
        bed.markets.inject(.status(418, retryAfter: "240"))
        #expect(await bed.pollAndWait("markets") == .seconds(240))
        #expect(bed.loop("markets").schedule.notBefore == FeedTestBed.start + 10 + 240)
        // A 503 whose Retry-After is a date five minutes after the poll.
        let at = FeedTestBed.start + 10 + 240
        let date = Date(timeIntervalSince1970: TimeInterval(at + 300))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        bed.markets.inject(.status(503, retryAfter: formatter.string(from: date)))
        #expect(await bed.pollAndWait("markets") == .seconds(300))
        #expect(await bed.pollAndWait("markets") == .seconds(10), "healed")
        #expect(bed.markets.requests.count == 4)
        await bed.stop()
    }

    @Test func conditionalGetAndTheCacheControlFloor() async throws {
        let bed = try await FeedTestBed(
            marketsOptions: FeedServerOptions(etags: true, cacheControl: "public, max-age=30"))
        // The sequence repeats its last body once it is over, so polls 6 and 7 get the same version.
        for _ in 0..<7 {
            #expect(await bed.pollAndWait("markets") == .seconds(30), "max-age 30 is a floor over the 10 s interval")
        }
        let markets = bed.loop("markets")
        #expect(markets.counters.requests == 7)
        #expect(markets.counters.notModified == 2)
        let requests = bed.markets.requests
        #expect(requests[0].header("If-None-Match") == nil)
        #expect(requests[1].header("If-None-Match") != nil, "the ETag of the last body is sent back")
        await bed.stop()
    }
}

/// A feed's schedule outlives the worker: a restarted `run` (or another worker on the same state) keeps the
/// wait a server asked for and the failures in a row.
@Suite struct FeedScheduleRestartTests {
    @Test func aRestartedWorkerKeepsTheWaitAServerAskedFor() async throws {
        let bed = try await FeedTestBed()
        #expect(await bed.pollAndWait("markets") == .seconds(10))
        #expect(try await bed.store.feedSchedule(feed: "markets")?.notBefore == nil, "a healthy poll writes no wait")
        bed.markets.inject(.status(429, retryAfter: "120"))
        let before = bed.clock.wallTime(from: FeedTestBed.start)()
        #expect(await bed.pollAndWait("markets") == .seconds(120))
        let saved = try #require(try await bed.store.feedSchedule(feed: "markets"))
        #expect(saved.failures == 1)
        #expect(saved.reason == "Retry-After 120 s")
        #expect(saved.notBefore == before + 120)
        // A new worker on the same state file: the markets loop starts by waiting, with its failure counted.
        let restarted = try await LiveRelayWorker.build(
            bed.loaded, rules: bed.loaded.loadRules(), store: bed.store,
            environment: .test(now: { before + 5 }, providers: ["console": RecordingProvider()]))
        defer { restarted.shutdown() }
        let loop = try #require(restarted.feedLoops.first { $0.name == "markets" })
        #expect(loop.firstPollAt == before + 120)
        #expect(loop.schedule.consecutiveFailures == 1)
        #expect(restarted.feedLoops.first { $0.name == "scores" }?.firstPollAt == nil)
        // Healed: the wait and the failures are forgotten.
        #expect(await bed.pollAndWait("markets") == .seconds(10))
        #expect(
            try await bed.store.feedSchedule(feed: "markets")
                == SavedFeedSchedule(failures: 0, notBefore: nil, reason: nil))
        await bed.stop()
    }
}
