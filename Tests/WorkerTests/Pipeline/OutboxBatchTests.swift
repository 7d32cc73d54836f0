import Delivery
import Foundation
import LiveRelayCore
import StoreCore
import Testing

@testable import Worker

/// A round's rows grouped for the senders: by provider, then by push, in release order.
@Suite struct OutboxBatchTests {
    static func push(_ activity: String, _ timestamp: Int) -> LiveActivityPush {
        LiveActivityPush(
            activity: ActivityKey(activity), attributesType: "MatchAttributes", event: .update, timestamp: timestamp,
            contentState: ["home": .int(timestamp)], priority: .high)
    }

    static func row(_ push: LiveActivityPush, _ token: String, provider: String = "apns") -> OutboxEntry {
        OutboxEntry(
            push, json: push.writtenJSON(),
            to: PushTarget(kind: .activity, token: token, environment: .production, device: "d-" + token),
            provider: provider, nextAttempt: 0)
    }

    @Test func eachPushGathersItsRowsWhereverTheyFallAndAnUnreadableRowIsLeftOut() {
        let (a, b) = (Self.push("match-a", 10), Self.push("match-b", 20))
        var unreadable = Self.row(a, "t4")
        unreadable.push = Data("{".utf8)
        unreadable.key.activity = ActivityKey("match-c")
        let due = [
            Self.row(a, "t1"), Self.row(a, "t2"), Self.row(b, "t3"), unreadable, Self.row(a, "t5"),
            Self.row(b, "t6", provider: "fcm"), Self.row(b, "t7"), Self.row(b, "t8"),
        ]
        let batch = OutboxBatch(due, routes: ProviderRoutes(defaultProvider: "apns"), providers: ["apns", "fcm"])
        #expect(batch.rows.map(\.key.target) == ["t1", "t2", "t3", "t5", "t6", "t7", "t8"])
        let apns = batch.byProvider["apns"] ?? []
        #expect(apns.map { $0.targets.map(\.token) } == [["t1", "t2", "t5"], ["t3", "t7", "t8"]])
        #expect(batch.byProvider["fcm"]?.map { $0.targets.map(\.token) } == [["t6"]])
        #expect(apns.map(\.push.activity) == [ActivityKey("match-a"), ActivityKey("match-b")])
        #expect(apns.map(\.rows) == [[0, 1, 3], [2, 5, 6]])
        #expect(batch.byProvider["fcm"]?.map(\.rows) == [[4]])
        #expect(batch.pushOfRow == [0, 0, 1, 0, 1, 1, 1])
        #expect(batch.sentPushes.map(\.timestamp) == [10, 20])
    }

    @Test func aRoundWhoseRowsKeepTheirProvidersIsNotCopiedAndAnOlderRowTakesItsRoute() {
        let a = Self.push("match-a", 10)
        let due = (1...3).map { Self.row(a, "t\($0)") }
        let batch = OutboxBatch(due, routes: ProviderRoutes(defaultProvider: "apns"), providers: ["apns"])
        #expect(
            batch.rows.withUnsafeBufferPointer { $0.baseAddress } == due.withUnsafeBufferPointer { $0.baseAddress },
            "the round's own rows")
        // A row written before providers were recorded follows the routes; the round's array is left as read.
        var older = due
        older[1].provider = nil
        let routed = OutboxBatch(older, routes: ProviderRoutes(defaultProvider: "apns"), providers: ["apns"])
        #expect(routed.rows.map(\.provider) == ["apns", "apns", "apns"])
        #expect(older[1].provider == nil)
        #expect(routed.byProvider["apns"]?.map(\.rows) == [[0, 1, 2]])
    }
}
