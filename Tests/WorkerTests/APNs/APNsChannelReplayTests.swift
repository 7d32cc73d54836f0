import Delivery
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Logging
import Store
import Testing
import Worker
import WorkerTesting

/// The recorded match through the composition root into the fake APNs with broadcast channels (iOS 18): the
/// channel created before the start, the start by push-to-start with `input-push-channel`, every update and
/// the end as one broadcast, the channel deleted after the activity's dismissal.
@Suite("Recorded match into the fake APNs by broadcast channel")
struct APNsChannelReplayTests {
    typealias Setup = MatchReplay
    static let secondStartToken = "81" + String(repeating: "b2", count: 79)
    static let secondActivityToken = "6e" + String(repeating: "4d", count: 79)
    /// The dismissal date of the match's end.
    static let dismissal = 1_783_115_100

    static func modes(_ mode: String) -> [String: JSONValue] {
        ["activity-modes": [["attributes-type": "MatchAttributes", "mode": .string(mode)]]]
    }

    /// Two devices follow the match: iphone-a subscribes by channel (iOS 18), iphone-b goes by tokens.
    static func registerTwoDevices(_ store: SQLiteStore) async throws {
        try await Setup.registerDevice(store)
        try await store.setChannelSubscriber(device: "iphone-a", true, now: 0)
        try await store.subscribe(device: "iphone-b", to: Setup.match, now: 0)
        try await store.registerPushToStartToken(
            device: "iphone-b", attributesType: "MatchAttributes", token: secondStartToken, environment: .sandbox,
            now: 0)
    }

    /// Once started, only the device that is not a channel subscriber reports an update token.
    static func registerSecondActivityToken(_ store: SQLiteStore) async throws {
        try await store.registerActivityToken(
            activity: "match-760499", device: "iphone-b", token: secondActivityToken, environment: .sandbox, now: 0)
    }

    /// The recorded pushes in a stable order (pushes of one moment go out at once): by timestamp, the
    /// broadcast first, then by token.
    static func ordered(_ pushes: [FakeAPNsPush]) throws -> [FakeAPNsPush] {
        func timestamp(_ push: FakeAPNsPush) throws -> Int {
            let object = try JSONSerialization.jsonObject(with: Data(push.body.utf8)) as? [String: Any]
            return (object?["aps"] as? [String: Any])?["timestamp"] as? Int ?? 0
        }
        return try pushes.map { (try timestamp($0), $0) }.sorted { a, b in
            if a.0 != b.0 { return a.0 < b.0 }
            if a.1.isBroadcast != b.1.isBroadcast { return a.1.isBroadcast }
            return a.1.token < b.1.token
        }.map(\.1)
    }

    @Test func channelModeStartsByChannelBroadcastsEveryUpdateOnceAndDeletesTheChannel() async throws {
        try await Setup.withFakeAPNs(channels: ["storage-policy": 0], extra: Self.modes("channel")) { setup, fake in
            let store = try await setup.replay(
                registering: Setup.registerDevice,
                finished: { worker in
                    // Kept until the ended activity leaves the lock screen (its dismissal date), then deleted.
                    let kept = try await worker.pipeline.store.channels()
                    #expect(kept.map(\.deleteAt) == [Self.dismissal])
                    #expect(try await worker.pipeline.deleteDueChannels(now: Self.dismissal - 1).isEmpty)
                    #expect(fake.deletedChannels.isEmpty)
                    #expect(try await worker.pipeline.deleteDueChannels(now: Self.dismissal) == kept.map(\.id))
                })
            #expect(fake.rejections.isEmpty, "\(fake.rejections)")
            let channel = try #require(fake.createdChannels.first)
            #expect(fake.createdChannels.count == 1)
            let recorded = fake.accepted
            #expect(recorded.map(\.isBroadcast) == [false] + Array(repeating: true, count: 6))
            #expect(recorded[0].token == Setup.startToken)
            #expect(recorded[0].body.contains("\"input-push-channel\":"))
            #expect(recorded.dropFirst().allSatisfy { $0.channel == channel && $0.headers["apns-expiration"] == "0" })
            // The same events and states as the token golden, one request each.
            let lines = try recorded.map { push in
                let body = try JSONSerialization.jsonObject(with: Data(push.body.utf8)) as! [String: Any]
                let aps = body["aps"] as! [String: Any]
                return try Setup.eventLine(aps["event"] as? String ?? "?", aps["content-state"])
            }
            #expect(lines == (try Setup.apnsEvents()))
            #expect(fake.deletedChannels == [channel])
            #expect(try await store.channels().isEmpty)
            let (actual, expected) = try Setup.golden(
                "expected-apns-channel.json", try FakeAPNsPush.goldenJSON(recorded))
            #expect(actual == expected)
        }
    }

    @Test func bothModeBroadcastsToSubscribersAndPushesTheRestByToken() async throws {
        try await Setup.withFakeAPNs(channels: ["storage-policy": 0], extra: Self.modes("both")) { setup, fake in
            let store = try await setup.replay(
                registering: Self.registerTwoDevices, started: Self.registerSecondActivityToken,
                finished: { worker in _ = try await worker.pipeline.deleteDueChannels(now: Self.dismissal) })
            #expect(fake.rejections.isEmpty, "\(fake.rejections)")
            let recorded = try Self.ordered(fake.accepted)
            let starts = recorded.filter { $0.body.contains("\"event\":\"start\"") }
            #expect(starts.map(\.token) == [Setup.startToken, Self.secondStartToken])
            #expect(starts[0].body.contains("input-push-channel") && !starts[1].body.contains("input-push-channel"))
            let updates = recorded.filter { !$0.body.contains("\"event\":\"start\"") }
            #expect(updates.count == 12, "each of the 6 moments: one broadcast, one token push")
            #expect(updates.filter(\.isBroadcast).count == 6)
            #expect(updates.filter { !$0.isBroadcast }.allSatisfy { $0.token == Self.secondActivityToken })
            #expect(try await store.channels().isEmpty)
            let (actual, expected) = try Setup.golden("expected-apns-both.json", try FakeAPNsPush.goldenJSON(recorded))
            #expect(actual == expected)
        }
    }
}
