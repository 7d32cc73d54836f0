import Delivery
import Foundation
import HTTP
import LiveRelayCore
import LiveRelayTesting
import Testing

/// Broadcasts (iOS 18) through the real provider, libcurl over HTTP/2 + TLS, into the fake APNs, which
/// checks them as strictly as Apple's documents describe.
@Suite("APNs broadcasts")
struct APNsBroadcastTests {
    typealias Bed = APNsTestbed

    static func withChannels(
        _ policy: APNsChannelClient.StoragePolicy = .noStorage, inputPushToken: Bool = false,
        _ body: (APNsTestbed, BroadcastChannels) async throws -> Void
    ) async throws {
        try await Bed.with(configure: { configuration in
            configuration.inputPushToken = inputPushToken
            configuration.broadcast = APNsProvider.Broadcast(
                url: configuration.endpoint.url, management: .init(url: configuration.endpoint.url),
                storagePolicy: policy)
        }) { bed in
            let channels = try #require(bed.provider.channels)
            try await body(bed, channels)
        }
    }

    @Test func anUpdateGoesToTheChannelOnceWithApplesHeaders() async throws {
        try await Self.withChannels { bed, channels in
            let channel = try await channels.create()
            let push = Bed.update(3)
            let outcome = await bed.provider.deliver(push, to: .broadcast(channel))
            #expect(outcome == .delivered, "\(bed.fake.rejections)")
            let sent = try #require(bed.fake.broadcasts.first)
            #expect(sent.path == "/4/broadcasts/apps/\(Bed.bundleID)")
            #expect(sent.headers["apns-channel-id"] == channel)
            #expect(sent.headers["apns-push-type"] == "liveactivity")
            #expect(sent.headers["apns-priority"] == "5")
            #expect(sent.headers["apns-expiration"] == "0", "a channel that stores nothing takes expiration 0 only")
            #expect(sent.headers["apns-topic"] == nil)
            #expect(UUID(uuidString: sent.headers["apns-request-id"] ?? "") != nil)
            #expect(sent.body == String(decoding: try APNsRequestEncoder.payload(for: push), as: UTF8.self))
        }
    }

    @Test func aStoringChannelKeepsTheExpiration() async throws {
        try await Self.withChannels(.mostRecent) { bed, channels in
            let channel = try await channels.create()
            let push = Bed.update(1)
            #expect(await bed.provider.deliver(push, to: .broadcast(channel)) == .delivered)
            #expect(bed.fake.broadcasts.first?.headers["apns-expiration"] == String(push.timestamp + 3600))
        }
    }

    @Test func theFakeRefusesANonZeroExpirationOnANoStorageChannel() async throws {
        // The provider configured for storing channels, the channel made without storage: APNs refuses, and
        // only this push is given up (not the provider).
        try await Self.withChannels(.mostRecent) { bed, _ in
            let channel = try await APNsChannelClient(
                endpoint: .init(url: bed.fake.url), bundleID: Bed.bundleID, transport: bed.transport,
                timeout: .seconds(60),
                authorization: { [provider = bed.provider] in try await provider.authorization() }
            ).create(.noStorage)
            let outcome = await bed.provider.deliver(Bed.update(1), to: .broadcast(channel))
            guard case .rejected(let reason) = outcome else {
                Issue.record("expected a rejection, got \(outcome)")
                return
            }
            #expect(reason.contains("BadExpirationDate"))
            #expect(bed.fake.rejections.map(\.reason) == ["BadExpirationDate"])
            // With the channel's own policy recorded (as the worker does), the expiration follows it.
            #expect(await bed.provider.deliver(Bed.update(2), to: .broadcast(channel, policy: 0)) == .delivered)
            #expect(bed.fake.broadcasts.last?.headers["apns-expiration"] == "0")
        }
    }

    @Test func aBroadcastMayCarryMoreThanADevicePushButNotMoreThan5120Bytes() async throws {
        try await Self.withChannels { bed, channels in
            let channel = try await channels.create()
            func push(_ bytes: Int) -> LiveActivityPush {
                var push = Bed.update(1)
                push.contentState = ["note": .string(String(repeating: "x", count: bytes))]
                return push
            }
            let large = push(4500)
            #expect(throws: APNsPayloadError.self) { try APNsRequestEncoder.payload(for: large) }
            #expect(await bed.provider.deliver(large, to: .broadcast(channel)) == .delivered)
            let outcome = await bed.provider.deliver(push(5200), to: .broadcast(channel))
            guard case .rejected(let reason) = outcome else {
                Issue.record("expected a rejection, got \(outcome)")
                return
            }
            #expect(reason.contains("5120"))
            #expect(bed.fake.requestCount == 2, "the oversized one is refused before sending")
        }
    }

    @Test func aStartIsNeverBroadcast() async throws {
        try await Self.withChannels { bed, channels in
            let channel = try await channels.create()
            var start = Bed.update(1)
            start.event = .start
            start.attributes = ["home": "AUS"]
            start.alert = LiveActivityAlert(title: "Kick-off")
            let outcome = await bed.provider.deliver(start, to: .broadcast(channel))
            guard case .rejected(let reason) = outcome else {
                Issue.record("expected a rejection, got \(outcome)")
                return
            }
            #expect(reason.contains("start_broadcast"))
            #expect(bed.fake.broadcasts.isEmpty)
        }
    }

    @Test func aChannelDeletedUnderUsOrBroadcastTurnedOffGivesTheChannelUp() async throws {
        try await Self.withChannels { bed, channels in
            let channel = try await channels.create()
            bed.fake.removeChannel(channel)
            guard case .dropToken(let reason) = await bed.provider.deliver(Bed.update(1), to: .broadcast(channel))
            else {
                Issue.record("a gone channel must be dropped like a dead token")
                return
            }
            #expect(reason.contains("ChannelNotRegistered"))
            let other = try await channels.create()
            bed.fake.setBroadcastEnabled(false)
            // Broadcast turned off: the channel is given up (its activity goes by tokens), the provider goes on.
            guard case .dropToken(let text) = await bed.provider.deliver(Bed.update(2), to: .broadcast(other)) else {
                Issue.record("FeatureNotEnabled on a broadcast must give the channel up")
                return
            }
            #expect(text.contains("FeatureNotEnabled") && text.contains("developer portal"))
            #expect(
                await bed.provider.deliver(Bed.update(3), to: PushTarget(kind: .activity, token: Bed.token(1)))
                    == .delivered)
        }
    }

    @Test func aPushToStartForAChannelAsksForTheChannelNotATokenDevice() async throws {
        try await Self.withChannels(inputPushToken: true) { bed, channels in
            let channel = try await channels.create()
            var start = Bed.update(1)
            start.event = .start
            start.attributes = ["home": "AUS"]
            start.alert = LiveActivityAlert(title: "Kick-off")
            let token = String(repeating: "ab", count: 32)
            let target = PushTarget(kind: .pushToStart, token: token, channel: channel)
            #expect(await bed.provider.deliver(start, to: target) == .delivered, "\(bed.fake.rejections)")
            let plain = PushTarget(kind: .pushToStart, token: token)
            #expect(await bed.provider.deliver(start, to: plain) == .delivered)
            let bodies = bed.fake.accepted.map(\.body)
            #expect(
                bodies[0].contains("\"input-push-channel\":\"\(channel)\""))
            #expect(!bodies[0].contains("input-push-token"))
            #expect(bodies[1].contains("\"input-push-token\":1") && !bodies[1].contains("input-push-channel"))
        }
    }
}
