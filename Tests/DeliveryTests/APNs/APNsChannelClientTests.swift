import Delivery
import Foundation
import HTTP
import LiveRelayTesting
import Testing

/// Broadcast channel management (iOS 18) through the real client, libcurl over HTTP/2 + TLS, against the
/// fake APNs' channel endpoints, which refuse what Apple's documents say APNs refuses.
@Suite("APNs channel management")
struct APNsChannelClientTests {
    typealias Bed = APNsTestbed

    static func client(_ bed: APNsTestbed, bundleID: String = Bed.bundleID) -> APNsChannelClient {
        APNsChannelClient(
            endpoint: .init(url: bed.fake.url), bundleID: bundleID, transport: bed.transport, timeout: .seconds(60),
            authorization: { [provider = bed.provider] in try await provider.authorization() })
    }

    /// Create (each policy), read, list, delete: what the fake holds follows; a deleted channel is gone.
    @Test func createReadListDelete() async throws {
        try await Bed.with { bed in
            let client = Self.client(bed)
            let scores = try await client.create(.noStorage)
            let news = try await client.create(.mostRecent)
            #expect(scores != news)
            #expect(Data(base64Encoded: scores) != nil)
            #expect(bed.fake.channels == [scores: 0, news: 1])
            #expect(bed.fake.createdChannels == [scores, news])
            #expect(try await client.read(scores) == .noStorage)
            #expect(try await client.read(news) == .mostRecent)
            #expect(try await client.list().sorted() == [scores, news].sorted())
            try await client.delete(scores)
            #expect(try await client.list() == [news])
            #expect(bed.fake.deletedChannels == [scores])
            // Deleted under us: every later request on it says the channel is gone.
            await #expect(throws: ChannelFailure.self) { try await client.read(scores) }
            do throws(ChannelFailure) {
                try await client.delete(scores)
                Issue.record("a deleted channel was deleted again")
            } catch {
                #expect(error.kind == .channelGone)
                #expect(error.reason == "ChannelNotRegistered")
                #expect(error.status == 400)
            }
            // The provider token was shared with pushes, and never appears in a failure.
            #expect(bed.provider.mintedTokens == 1)
            #expect(bed.fake.rejections.map(\.reason) == ["ChannelNotRegistered", "ChannelNotRegistered"])
        }
    }

    /// The 10,000-channel limit (set lower here): the next create is `limitReached`, and a delete makes room.
    @Test func theChannelLimit() async throws {
        try await Bed.with { bed in
            bed.fake.setChannelLimit(2)
            let client = Self.client(bed)
            let first = try await client.create(.noStorage)
            _ = try await client.create(.noStorage)
            do throws(ChannelFailure) {
                _ = try await client.create(.noStorage)
                Issue.record("a third channel was created over the limit")
            } catch {
                #expect(error.kind == .limitReached)
                #expect(error.reason == "CannotCreateChannelConfig")
                #expect(error.description.contains("10,000"))
            }
            try await client.delete(first)
            _ = try await client.create(.mostRecent)
            #expect(bed.fake.channels.count == 2)
        }
    }

    /// Broadcast not enabled for the App ID: a configuration error that says where to fix it.
    @Test func featureNotEnabledIsAConfigurationError() async throws {
        try await Bed.with { bed in
            bed.fake.setBroadcastEnabled(false)
            do throws(ChannelFailure) {
                _ = try await Self.client(bed).create(.noStorage)
                Issue.record("created with broadcast off")
            } catch {
                #expect(error.kind == .configuration)
                #expect(error.reason == "FeatureNotEnabled")
                #expect(error.description.contains("developer portal"))
            }
        }
    }

    /// Another app's bundle id, or one with a push-type suffix, is refused as a configuration error; an
    /// APNs outage is one to retry.
    @Test func wrongBundleAndOutage() async throws {
        try await Bed.with { bed in
            for bundle in ["com.example.other", Bed.bundleID + ".push-type.liveactivity"] {
                do throws(ChannelFailure) {
                    _ = try await Self.client(bed, bundleID: bundle).list()
                    Issue.record("listed the channels of \(bundle)")
                } catch {
                    #expect(error.kind == .configuration, "\(bundle): \(error)")
                }
            }
            bed.fake.script([.status(503, reason: "ServiceUnavailable", retryAfter: 7)])
            do throws(ChannelFailure) {
                _ = try await Self.client(bed).create(.noStorage)
                Issue.record("created during an outage")
            } catch {
                #expect(error.kind == .retry)
                #expect(error.retryAfter == 7)
            }
            #expect(bed.fake.channels.isEmpty)
        }
    }

    /// The fake refuses malformed channel requests as APNs does (raw requests, each wrong in one way).
    @Test(
        arguments: [
            (
                "POST", "channels", nil, #"{"message-storage-policy": 2, "push-type": "LiveActivity"}"#, 400,
                "BadRequestPayload"
            ),
            (
                "POST", "channels", nil, #"{"message-storage-policy": 0, "push-type": "Alert"}"#, 400,
                "BadRequestPayload"
            ),
            ("POST", "channels", nil, #"{"message-storage-policy": 0}"#, 400, "BadRequestPayload"),
            ("GET", "channels", nil, nil, 400, "MissingChannelId"),
            ("DELETE", "channels", "not base64!", nil, 400, "BadChannelId"),
            ("GET", "channels", "dW5rbm93bg==", nil, 400, "ChannelNotRegistered"),
            ("PUT", "channels", nil, nil, 404, "BadPath"),
            ("GET", "nothing", nil, nil, 404, "BadPath"),
        ] as [(String, String, String?, String?, Int, String)])
    func malformedRequests(
        method: String, resource: String, channel: String?, body: String?, status: Int, reason: String
    ) async throws {
        try await Bed.with { bed in
            var headers = [HTTPHeader("authorization", try await bed.provider.authorization())]
            if let channel { headers.append(HTTPHeader("apns-channel-id", channel)) }
            let response = try await bed.transport.send(
                HTTPRequest(
                    method: method, url: "\(bed.fake.url)/1/apps/\(Bed.bundleID)/\(resource)", headers: headers,
                    body: body.map { Data($0.utf8) }, timeout: .seconds(60)))
            #expect(response.status == status)
            #expect(String(decoding: response.body, as: UTF8.self).contains(#""reason":"\#(reason)""#))
            #expect(bed.fake.channels.isEmpty)
        }
    }

    /// Without a provider token, or with another team's, channel requests are refused like pushes.
    @Test func theProviderTokenIsChecked() async throws {
        try await Bed.with { bed in
            let none = APNsChannelClient(
                endpoint: .init(url: bed.fake.url), bundleID: Bed.bundleID, transport: bed.transport,
                timeout: .seconds(60), authorization: { "bearer not.a.token" })
            do throws(ChannelFailure) {
                _ = try await none.create(.noStorage)
                Issue.record("created without a valid provider token")
            } catch {
                #expect(error.kind == .configuration)
                #expect(error.status == 403)
                #expect(!error.description.contains("not.a.token"))
            }
        }
    }

    /// The failure classification on its own (pure).
    @Test func classification() {
        func kind(_ status: Int, _ reason: String?) -> ChannelFailure.Kind {
            ChannelFailure.classify(operation: "create", status: status, reason: reason).kind
        }
        #expect(kind(400, "ChannelNotRegistered") == .channelGone)
        #expect(kind(400, "CannotCreateChannelConfig") == .limitReached)
        #expect(kind(400, "FeatureNotEnabled") == .configuration)
        #expect(kind(403, "ExpiredProviderToken") == .configuration)
        #expect(kind(404, nil) == .configuration)
        #expect(kind(429, "TooManyRequests") == .retry)
        #expect(kind(500, nil) == .retry)
        #expect(kind(400, "BadRequestPayload") == .rejected)
    }
}
