import Foundation
import LiveRelayCore
import LiveRelayTesting
import Store
import Testing
import Worker
import WorkerTesting

/// A provider that fails for the length of a match and then recovers: when it comes back, the activity has
/// ended, so the end goes out and the kick-off start waiting since the first minute does not (it would start a
/// new 0–0 activity on every phone). For every provider, in `tick` (one pass per cron run) and in `run`.
@Suite("No stale start after the end", .serialized)
struct StaleStartTests {
    @Test(arguments: FakeProviderCase.allCases)
    func inTick(provider: FakeProviderCase) async throws {
        try await provider.run { fake in
            let feed = try await RunWithAPNs.feedServer()
            try await feed.serving { feed in
                try await MatchReplay.with(provider: fake.provider, files: fake.files) { setup in
                    try RunWithAPNs.prepare(setup, feed: feed)
                    let loaded = try ConfigLoader.load(path: setup.configPath)
                    let store = try SQLiteStore(path: loaded.resolve(loaded.config.state))
                    try await fake.register(store)
                    let wall = LifecycleBed.Wall()
                    let worker = try await LiveRelayWorker.build(
                        loaded, rules: loaded.loadRules(), store: store,
                        environment: .test(now: { wall.now }, variables: ["LIVERELAY_TEST_BEARER": "b"]))
                    defer { worker.shutdown() }
                    fake.setOutage(true)
                    for step in 1..<RunWithAPNs.steps.count {
                        feed.advance(to: step)
                        wall.advance(60)
                        _ = try await worker.runOnce()
                    }
                    #expect(fake.events().isEmpty, "nothing got through the outage")
                    #expect(try await store.allActivities().map(\.phase) == [.ended])
                    fake.setOutage(false)
                    wall.advance(600)
                    _ = try await worker.runOnce()
                    #expect(fake.events() == ["end"], "the end, and no start for the ended activity")
                    #expect(try await store.outboxStatus().depth == 0)
                }
            }
        }
    }

    @Test(arguments: FakeProviderCase.allCases)
    func inRun(provider: FakeProviderCase) async throws {
        try await provider.run { fake in
            let feed = try await RunWithAPNs.feedServer()
            try await feed.serving { feed in
                try await MatchReplay.with(provider: fake.provider, files: fake.files) { setup in
                    try RunWithAPNs.prepare(setup, feed: feed)
                    let store = try SQLiteStore(path: setup.directory.appendingPathComponent("liverelay.sqlite").path)
                    try await fake.register(store)
                    fake.setOutage(true)
                    try await InProcessRun.run(configPath: setup.configPath) { run in
                        for step in 1..<RunWithAPNs.steps.count {
                            feed.advance(to: step)
                            await run.advance(by: .seconds(1))
                        }
                        #expect(fake.events().isEmpty, "nothing got through the outage")
                        let phases = try await run.store.allActivities().map(\.phase)
                        #expect(phases == [.ended])
                        fake.setOutage(false)
                        await run.advance(by: .seconds(600))
                        #expect(fake.events() == ["end"], "the end, and no start for the ended activity")
                        let depth = try await run.store.outboxStatus().depth
                        #expect(depth == 0)
                    }
                }
            }
        }
    }

    /// The provider is down from kick-off to the first goal: when it comes back, the start that waited since
    /// kick-off carries the state at 44', not the 0–0 of the first minute.
    @Test func aStartThatWaitedCarriesTheNewestState() async throws {
        try await LifecycleBed.with(registering: FakeProviderCase.registerTwoDevices) { bed in
            bed.fake.setOutage(.status(429, reason: "TooManyRequests", retryAfter: 60))
            for step in 1...3 { try await bed.step(step) }
            bed.fake.setOutage(nil)
            bed.wall.advance(600)
            _ = try await bed.worker.runOnce()
            let events = try bed.fake.accepted.map { try JSONParser.parse($0.body)["aps"] }
            let starts = events.filter { $0?["event"] == "start" }
            #expect(starts.count == 1, "\(events)")
            #expect(events.compactMap { $0?["event"]?.stringValue }.sorted() == ["start", "update"])
            #expect(starts.first??["content-state"]?["awayScore"] == 1, "the start carries the score at 44'")
            #expect(starts.first??["content-state"]?["clock"] == "44'")
        }
    }
}
