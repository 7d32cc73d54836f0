import Feeds
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Store
import Testing
import Worker
import WorkerTesting

/// `tick` from cron remembers what a feed's schedule learnt in earlier ticks: a server's `Retry-After` or
/// ban and the backoff after failures hold across processes, so a feed that must wait is not polled.
@Suite struct TickScheduleTests {
    static func withFeed(_ body: (FeedServer, (Int) async throws -> TickReport) async throws -> Void) async throws {
        let server = try await FeedServer.start(
            bodies: [
                try Data(contentsOf: Repository.url("Samples/recordings/espn-soccer-scoreboard-1-first-half.json"))
            ])
        let demo = try ConfigLoader.load(path: Repository.path("Samples/demo/liverelay.json"))
        var feed = demo.feeds[0]
        feed.url = server.url
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let statePath = dir.appendingPathComponent("state.sqlite").path
        func tick(at now: Int) async throws -> TickReport {
            // A new store and worker each time, as two cron runs would have.
            let store = try SQLiteStore(path: statePath)
            let worker = try await LiveRelayWorker.build(
                demo, rules: demo.loadRules(), store: store,
                environment: .test(now: { now }, providers: ["console": RecordingProvider()]))
            defer { worker.shutdown() }
            return try await worker.runOnce(feeds: [feed])
        }
        try await body(server, tick)
        try await server.stop()
    }

    @Test func aRetryAfterHoldsAcrossTicks() async throws {
        try await Self.withFeed { server, tick in
            let t = 1_783_104_240
            server.inject(.status(503, retryAfter: "120"))
            let refused = try await tick(t)
            #expect(refused.feeds.first?.error != nil)
            let early = try await tick(t + 60)
            #expect(!early.failed, "waiting is not a new failure")
            #expect(
                early.feeds.map(\.description) == [
                    "feed espn-worldcup: not polled: waiting until \(ISO8601Time.string(t + 120)) (Retry-After 120 s)"
                ])
            #expect(server.requests.count == 1, "the server was not asked again before its time")
            let later = try await tick(t + 120)
            #expect(later.feeds.map(\.changes) == [32])
            #expect(server.requests.count == 2)
            // A success forgets the wait: the next tick polls whenever cron runs it.
            _ = try await tick(t + 125)
            #expect(server.requests.count == 3)
        }
    }

    @Test func theBackoffGrowsAcrossTicksAndASuccessEndsIt() async throws {
        try await Self.withFeed { server, tick in
            let t = 1_783_104_240
            // The demo feed's interval is 15 s: the backoff after 1, 2, 3 failures is 15, 30, 60 s (+ jitter).
            server.inject(.status(500), .status(500), .status(500))
            _ = try await tick(t)
            _ = try await tick(t + 20)
            #expect(server.requests.count == 2)
            let waiting = try await tick(t + 40)
            #expect(waiting.feeds.first?.waitReason == "backoff after 2 failures")
            #expect(server.requests.count == 2)
            _ = try await tick(t + 60)
            #expect(server.requests.count == 3)
            let third = try await tick(t + 100)
            #expect(third.feeds.first?.waitReason == "backoff after 3 failures")
            let healthy = try await tick(t + 150)
            #expect(healthy.feeds.map(\.changes) == [32])
            #expect(try await tick(t + 151).feeds.first?.waitingUntil == nil)
        }
    }
}
