import Foundation
import LiveRelayCore
import LiveRelayTesting
import Store
import Testing

/// The broadcast-channel routes as an app backend calls them.
@Suite("Token API: broadcast channels")
struct ChannelAPITests {
    static let startToken = String(repeating: "0a", count: 32)

    @Test func theChannelIdOfAnActivityIsKnownWhileItIsOpen() async throws {
        try await APITestServer.with { api async throws in
            let path = "/v1/activities/match-1/channel"
            #expect(
                try await api.client.request("GET", path) == (404, #"{"error":"activity match-1 has no open channel"}"#)
            )
            try await api.store.saveChannel(
                ActivityChannel(activity: "match-1", provider: "apns", id: "c2NvcmVz", storagePolicy: 0, createdAt: 900)
            )
            #expect(
                try await api.client.request("GET", path)
                    == (200, #"{"activity":"match-1","channel-id":"c2NvcmVz","created-at":900,"storage-policy":0}"#))
            // Once its deletion is scheduled (the activity ended), no app should subscribe to it any more.
            try await api.store.scheduleChannelDeletion(activity: "match-1", at: 2_000)
            #expect(try await api.client.request("GET", path).status == 404)
            #expect(try await api.client.request("GET", "/v1/activities/bad%20key/channel").status == 400)
        }
    }

    @Test func aDeviceRegistersAsAChannelSubscriberAndBack() async throws {
        try await APITestServer.with { api async throws in
            let entity = EntityKey(feed: "espn-worldcup", id: "1")
            try await api.store.subscribe(device: "iphone-a", to: entity, now: 0)
            try await api.store.registerPushToStartToken(
                device: "iphone-a", attributesType: "MatchAttributes", token: Self.startToken, environment: .sandbox,
                now: 0)
            func subscriber() async throws -> Bool? {
                try await api.store.pushToStartTokens(
                    entity: entity, attributesType: "MatchAttributes", environment: nil
                )
                .first?.channelSubscriber
            }
            #expect(try await subscriber() == false)
            let path = "/v1/devices/iphone-a/channel-subscriber"
            #expect(try await api.client.request("PUT", path).status == 204)
            #expect(try await subscriber() == true)
            #expect(try await api.client.request("PUT", path).status == 204, "idempotent")
            #expect(try await api.client.request("DELETE", path).status == 204)
            #expect(try await subscriber() == false)
            #expect(try await api.client.request("PUT", "/v1/devices/a%2Fb/channel-subscriber").status == 400)
            #expect(
                try await APIClient(port: api.port, bearer: "wrong", transport: api.transport).request("PUT", path)
                    .status == 401)
        }
    }
}
