import Delivery
import Feeds
import Foundation
import HTTP
import LiveRelayCore
import LiveRelayTesting
import Logging
import Store
import Synchronization
import Testing
import Worker
import WorkerTesting

/// `tick` over `file:` feeds through the composition root, the real CurlTransport and a real SQLite file.
@Suite struct TickTests {
    @Test func aSecondTickOverUnchangedFilesSendsNothing() async throws {
        let loaded = try ConfigLoader.load(path: Repository.path("Samples/demo/liverelay.json"))
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let statePath = dir.appendingPathComponent("state.sqlite").path
        let provider = RecordingProvider()
        func tick(at now: Int) async throws -> TickReport {
            // A new store and worker each time, as two cron runs would have.
            let store = try SQLiteStore(path: statePath)
            let worker = try await LiveRelayWorker.build(
                loaded, rules: loaded.loadRules(), store: store,
                environment: .test(now: { now }, providers: ["console": provider]))
            defer { worker.shutdown() }
            return try await worker.runOnce()
        }
        let first = try await tick(at: 1_783_104_240)
        #expect(first.feeds.map(\.description) == ["feed espn-worldcup: 32 changed entities, 1 pushes queued"])
        #expect(
            first.delivery.description
                == "provider console: 1 sent (1 at priority 10, 0 at 5, 0 downgraded), 0 failed, 0 waiting")
        #expect(provider.pushes.map(\.event) == [.start], "the live match starts when first seen")
        let second = try await tick(at: 1_783_104_300)
        #expect(!second.failed)
        #expect(second.feeds.map(\.changes) == [0])
        #expect(provider.pushes.count == 1, "nothing is sent the second time")
        // One push released and one delivery attempted the first time; nothing to move the second.
        #expect(first.delivery.progress == 2)
        #expect(second.delivery.progress == 0)
    }

    @Test func aMissingFileIsAFeedErrorAndTheOtherFeedsGoOn() async throws {
        let demo = try ConfigLoader.load(path: Repository.path("Samples/demo/liverelay.json"))
        var broken = demo.feeds[0]
        broken.id = "broken"
        broken.url = Repository.url("Samples/recordings/no-such-file.json").absoluteString
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteStore(path: dir.appendingPathComponent("state.sqlite").path)
        let worker = try await LiveRelayWorker.build(
            demo, rules: demo.loadRules(), store: store,
            environment: .test(now: { 1_783_104_240 }, providers: ["console": RecordingProvider()]))
        defer { worker.shutdown() }
        let reports = try await worker.runOnce(feeds: [broken, demo.feeds[0]])
        #expect(reports.failed)
        #expect(reports.feeds.map { $0.error?.kind } == [.transport, nil])
        #expect(reports.feeds[1].changes == 32)
        #expect(try await store.facts(feed: "broken").isEmpty)
    }
}
