public import LiveRelayCore

/// The APNs part of the `provider` section (`"type": "apns"`), beside `bundle-id` and `expiration`:
///
/// ```json
/// "provider": {"type": "apns", "bundle-id": "com.example.scores", "key-id": "ABC123DEFG",
///              "team-id": "DEF123GHIJ", "key": {"file": "AuthKey_ABC123DEFG.p8"}, "environment": "production"}
/// ```
public struct APNsProviderConfig: ProviderSettings {
    /// `apns`.
    public static let kind = ProviderKind.apns

    /// The id of the `.p8` signing key.
    public var keyID: String
    /// The developer team id.
    public var teamID: String
    /// Where the `.p8` key is read from.
    public var key: SecretReference
    /// `production` or `sandbox`.
    public var environment: PushEnvironment
    /// A custom server instead of Apple's (tests).
    public var endpoint: String?
    /// Threads of the push lane, each with HTTP/2 connections of its own (one more each time every stream
    /// of its connections is taken, up to 16).
    public var connections: Int
    /// Requests in flight per connection at most.
    public var maxConcurrentStreams: Int
    /// Seconds between provider tokens.
    public var tokenRefresh: Int
    /// Seconds one request may take.
    public var timeout: Int
    /// Ask started activities for their update token (`input-push-token`).
    public var inputPushToken: Bool
    /// Broadcast channels (`channels`); `nil`: tokens only.
    public var channels: Channels?

    /// The `channels` object: `{"storage-policy": 0, "broadcast-endpoint"?, "management-endpoint"?, "delete-after"?}`.
    public struct Channels: Sendable, Decodable {
        public var storagePolicy: APNsChannelClient.StoragePolicy
        public var broadcastEndpoint: String?
        public var managementEndpoint: String?
        public var deleteAfter: Int
        /// `max-broadcasts` per `window` seconds to one channel.
        public var maxBroadcasts: Int
        public var window: Int

        enum CodingKeys: String, CodingKey {
            case window
            case maxBroadcasts = "max-broadcasts"
            case storagePolicy = "storage-policy"
            case broadcastEndpoint = "broadcast-endpoint"
            case managementEndpoint = "management-endpoint"
            case deleteAfter = "delete-after"
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let policy = try c.decodeIfPresent(Int.self, forKey: .storagePolicy) ?? 0
            guard let storagePolicy = APNsChannelClient.StoragePolicy(rawValue: policy) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .storagePolicy, in: c, debugDescription: "storage-policy must be 0 or 1")
            }
            self.storagePolicy = storagePolicy
            broadcastEndpoint = try c.decodeIfPresent(String.self, forKey: .broadcastEndpoint)
            managementEndpoint = try c.decodeIfPresent(String.self, forKey: .managementEndpoint)
            deleteAfter = try c.decodeIfPresent(Int.self, forKey: .deleteAfter) ?? 4 * 3600
            maxBroadcasts = try c.decodeIfPresent(Int.self, forKey: .maxBroadcasts) ?? 30
            window = try c.decodeIfPresent(Int.self, forKey: .window) ?? 60
        }

        /// The provider's broadcast settings: Apple's hosts unless set; with the provider's `endpoint` set
        /// (a test server), that server for both.
        public func broadcast(environment: PushEnvironment, endpoint: String?) -> APNsProvider.Broadcast {
            let apple = APNsProvider.Broadcast.apple(environment, storagePolicy: storagePolicy)
            return APNsProvider.Broadcast(
                url: broadcastEndpoint ?? endpoint ?? apple.url,
                management: (managementEndpoint ?? endpoint).map(APNsChannelClient.Endpoint.init(url:))
                    ?? apple.management,
                storagePolicy: storagePolicy, deleteAfter: deleteAfter, maxBroadcasts: maxBroadcasts, window: window)
        }
    }

    enum CodingKeys: String, CodingKey {
        case key, environment, endpoint, connections, timeout
        case keyID = "key-id"
        case teamID = "team-id"
        case maxConcurrentStreams = "max-concurrent-streams"
        case tokenRefresh = "token-refresh"
        case inputPushToken = "input-push-token"
        case channels
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        keyID = try c.decode(String.self, forKey: .keyID)
        teamID = try c.decode(String.self, forKey: .teamID)
        key = try c.decode(SecretReference.self, forKey: .key)
        environment = try c.decodeIfPresent(PushEnvironment.self, forKey: .environment) ?? .production
        endpoint = try c.decodeIfPresent(String.self, forKey: .endpoint)
        connections = try c.decodeIfPresent(Int.self, forKey: .connections) ?? 1
        maxConcurrentStreams = try c.decodeIfPresent(Int.self, forKey: .maxConcurrentStreams) ?? 1000
        tokenRefresh = try c.decodeIfPresent(Int.self, forKey: .tokenRefresh) ?? 3000
        timeout = try c.decodeIfPresent(Int.self, forKey: .timeout) ?? 10
        inputPushToken = try c.decodeIfPresent(Bool.self, forKey: .inputPushToken) ?? false
        channels = try c.decodeIfPresent(Channels.self, forKey: .channels)
    }

    /// Whether `channels` is set.
    public var hasChannels: Bool { channels != nil }

    /// The provider, its key read now.
    public func makeProvider(_ context: ProviderContext) throws(ProviderSetupError) -> any PushProvider {
        let signingKey: APNsSigningKey
        do {
            signingKey = try APNsSigningKey(pem: try context.secret(key, key: "key"), keyID: keyID, teamID: teamID)
        } catch let error as ProviderSetupError {
            throw error
        } catch {
            throw ProviderSetupError(key: "key", message: "\(error)")
        }
        return APNsProvider(
            configuration: APNsProvider.Configuration(
                endpoint: endpoint.map { APNsEndpoint(url: $0, environment: environment) } ?? .apple(environment),
                bundleID: context.bundleID, expirationSeconds: context.expiration, tokenRefreshInterval: tokenRefresh,
                requestTimeout: .seconds(timeout), inputPushToken: inputPushToken,
                broadcast: channels?.broadcast(environment: environment, endpoint: endpoint),
                maxInFlight: connections * maxConcurrentStreams),
            key: signingKey,
            transport: try context.transport(connections: connections, streams: maxConcurrentStreams, http2: true),
            now: context.now, tokenCache: context.tokenCache)
    }
}
