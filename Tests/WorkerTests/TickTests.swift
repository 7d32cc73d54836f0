import Delivery
import Foundation
import HTTP
import LiveRelayCore
import LiveRelayTesting
import Logging
import Store
import Synchronization
import Testing
import Worker

/// `tick` over `file:` feeds through the real CurlTransport and a real SQLite file.
@Suite struct TickTests {
    final class Counter: PushProvider {
        let name = "counter"
        let pushes = Mutex<[LiveActivityPush]>([])
        func deliver(_ push: LiveActivityPush, to target: PushTarget) async -> DeliveryOutcome {
            pushes.withLock { $0.append(push) }
            return .delivered
        }
        var count: Int { pushes.withLock { $0.count } }
    }

    @Test func aSecondTickOverUnchangedFilesSendsNothing() async throws {
        let loaded = try ConfigLoader.load(path: Repository.path("Samples/demo/liverelay.json"))
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let statePath = dir.appendingPathComponent("state.sqlite").path
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let provider = Counter()
        func tick(at now: Int) async throws -> Tick.Report {
            // A new store and pipeline each time, as two cron runs would have.
            let store = try SQLiteStore(path: statePath)
            let pipeline = try await WorkerFactory.pipeline(
                for: loaded, rules: WorkerFactory.rules(for: loaded), store: store, provider: provider,
                logger: Logger(label: "test"))
            return try await Tick(pipeline: pipeline, fetcher: FeedFetcher(transport: transport)).run(
                feeds: loaded.feeds, now: now)
        }
        let first = try await tick(at: 1_783_104_240)
        #expect(first.feeds.map(\.description) == ["feed espn-worldcup: 32 changed entities, 1 pushes queued"])
        #expect(
            first.delivery.description
                == "provider counter: 1 sent (1 at priority 10, 0 at 5, 0 downgraded), 0 failed, 0 waiting")
        #expect(provider.pushes.withLock { $0.map(\.event) } == [.start], "the live match starts when first seen")
        let second = try await tick(at: 1_783_104_300)
        #expect(!second.failed)
        #expect(second.feeds.map(\.changes) == [0])
        #expect(provider.count == 1, "nothing is sent the second time")
        // One push released and one delivery attempted the first time; nothing to move the second (the
        // service sleeps instead of looping on such a round).
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
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let pipeline = try await WorkerFactory.pipeline(
            for: demo, rules: WorkerFactory.rules(for: demo), store: store, provider: Counter(),
            logger: Logger(label: "test"))
        let reports = try await Tick(pipeline: pipeline, fetcher: FeedFetcher(transport: transport)).run(
            feeds: [broken, demo.feeds[0]], now: 1_783_104_240)
        #expect(reports.failed)
        #expect(reports.feeds.map { $0.error?.kind } == [.transport, nil])
        #expect(reports.feeds[1].changes == 32)
        #expect(try await store.facts(feed: "broken").isEmpty)
    }
}
