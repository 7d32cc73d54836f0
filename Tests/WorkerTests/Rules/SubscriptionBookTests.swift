import Foundation
import LiveRelayCore
import LiveRelayTesting
import Rules
import Store
import Testing
import Worker

/// The subscriptions a worker keeps between polls: read again when they were written, not otherwise, with
/// which of them own a running activity and how many alerts are behind each kept from the activities the
/// polls write.
@Suite struct SubscriptionBookTests {
    let btc = EntityKey(feed: "markets", id: "BTC")

    func subscription(_ id: String, above: Int) -> Subscription {
        Subscription(
            id: id, device: "d-\(id)", entity: btc, parameters: ["above": .int(above)], createdAt: 100)
    }

    @Test func aWriteIsSeenByTheNextPollAndARunningActivityIsKept() async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: directory.appendingPathComponent("state.sqlite").path)
        let rules = RuleLoader(knownFeeds: ["markets"]).load(paths: [
            Repository.path("Rules/personal-alerts.rules.json")
        ])
        let crossings = RuleEngine(rules: rules.rules).crossings
        let book = SubscriptionBook()
        #expect(try await book.sets(for: [btc], crossings: crossings, store: store).isEmpty)

        _ = try await store.putSubscription(subscription("b", above: 200), now: 100)
        _ = try await store.putSubscription(subscription("a", above: 100), now: 100)
        let first = try #require(try await book.sets(for: [btc], crossings: crossings, store: store)[btc])
        #expect(first.subscriptions.map(\.id) == ["a", "b"])
        #expect(first.live == [])

        // A start of b's activity is kept as running; its end as not, and as an alert behind b (said once).
        var record = ActivityRecord(
            key: "my-alert-b-0", attributesType: "PersonalAlertAttributes", phase: .pending, state: ["price": 200],
            lastTimestamp: 200, entity: btc, startedAt: 200,
            start: ActivityStart(
                attributes: .emptyObject, alert: nil, lateJoin: true, subscription: subscription("b", above: 200).owner)
        )
        book.note([record], before: [:])
        #expect(try await book.sets(for: [btc], crossings: crossings, store: store)[btc]?.live == [1])
        let started = record
        record.phase = .ended
        book.note([record], before: [record.key: started])
        book.note([record], before: [record.key: record])
        let ended = try #require(try await book.sets(for: [btc], crossings: crossings, store: store)[btc])
        #expect(ended.live == [])
        #expect(ended.view(1)["earlier-alerts"] == 1)
        #expect(ended.view(0)["earlier-alerts"] == 0)
        // Read from the store: the ended activity counts; so does one of an earlier subscription "a".
        try await store.save([record])
        var earlier = record
        earlier.key = "my-alert-a-0"
        earlier.phase = .active
        earlier.start?.subscription = SubscriptionOwner(id: "a", device: "d-a", createdAt: 50)
        try await store.save([earlier])
        book.forget()
        let read = try #require(try await book.sets(for: [btc], crossings: crossings, store: store)[btc])
        #expect(read.view(1)["earlier-alerts"] == 1)
        #expect(read.view(0)["earlier-alerts"] == 1, "a's activity is an earlier subscription's")
        #expect(read.live == [])
        #expect(read.subscription("b")?.earlierAlerts == 1)

        // A change of parameters, a new subscription and a deletion are each read by the next poll.
        _ = try await store.putSubscription(subscription("a", above: 150), now: 300)
        _ = try await store.putSubscription(subscription("c", above: 300), now: 300)
        let after = try #require(try await book.sets(for: [btc], crossings: crossings, store: store)[btc])
        #expect(after.subscriptions.map(\.id) == ["a", "b", "c"])
        #expect(after.subscriptions.first?.parameters == ["above": 150])
        // Forgotten (a worker taking the polls over): read again, with the running set from the store.
        book.forget()
        #expect(try await book.sets(for: [btc], crossings: crossings, store: store)[btc]?.subscriptions.count == 3)
        try await store.deleteSubscription(id: "a", now: 400)
        try await store.deleteSubscription(id: "b", now: 400)
        try await store.deleteSubscription(id: "c", now: 400)
        #expect(try await book.sets(for: [btc], crossings: crossings, store: store).isEmpty)
    }
}
