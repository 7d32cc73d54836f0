import Delivery
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Logging
import Store
import Testing
import Throttling
import Worker
import WorkerTesting

/// iOS accepts only a few push-to-starts per device in a short window: a start over the limit waits in the
/// outbox until the device's window allows it.
@Suite struct PushToStartPacingTests {
    @Test func aSecondStartToTheSameDeviceWaitsForItsWindow() async throws {
        var loaded = try ConfigLoader.load(path: Repository.path("Samples/demo/liverelay.json"))
        loaded.config.throttle.pushToStartLimit = 1
        loaded.config.throttle.pushToStartWindow = 600
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteStore(path: dir.appendingPathComponent("state.sqlite").path)
        let token = "c0" + String(repeating: "d1", count: 79)
        for id in ["1", "2"] {
            try await store.subscribe(device: "phone", to: EntityKey(feed: "espn-worldcup", id: id), now: 0)
        }
        try await store.registerPushToStartToken(
            device: "phone", attributesType: "MatchAttributes", token: token, environment: .production, now: 0)
        let worker = try await LiveRelayWorker.build(
            loaded, rules: loaded.loadRules(), store: store, environment: .test())
        defer { worker.shutdown() }
        let pipeline = worker.pipeline
        for id in ["1", "2"] {
            let push = LiveActivityPush(
                activity: ActivityKey("match-\(id)"), attributesType: "MatchAttributes", event: .start, timestamp: 1000,
                contentState: ["homeScore": 0], attributes: .emptyObject, alert: LiveActivityAlert(title: "KO"),
                priority: .high, entity: EntityKey(feed: "espn-worldcup", id: id))
            _ = try await pipeline.queue.submit([PendingPush(push: push, policy: .high, enqueuedAt: 1000)], now: 1000)
        }
        _ = try await pipeline.release(now: 1000)
        #expect(try await pipeline.deliverDue(now: 1000).map(\.push.activity) == ["match-1"])
        #expect(try await store.outboxStatus().depth == 1)
        #expect(try await store.outboxStatus().nextAttempt == 1600)
        #expect(try await pipeline.deliverDue(now: 1599).isEmpty)
        #expect(try await pipeline.deliverDue(now: 1600).map(\.push.activity) == ["match-2"])
    }
}
