public import LiveRelayCore

extension APNsProvider {
    /// How the provider reaches APNs.
    public struct Configuration: Sendable {
        /// The server and its environment.
        public var endpoint: APNsEndpoint
        /// The app's bundle id (the topic is `<bundle id>.push-type.liveactivity`).
        public var bundleID: String
        /// `apns-expiration`: seconds after a push's timestamp during which APNs may store it.
        public var expirationSeconds: Int
        /// Seconds between provider tokens (clamped to 20…55 minutes).
        public var tokenRefreshInterval: Int
        /// The limit for one request.
        public var requestTimeout: Duration
        /// Ask for the new activity's update token on every start (`input-push-token`, iOS 18).
        public var inputPushToken: Bool
        /// Broadcast channels (iOS 18); `nil`: tokens only.
        public var broadcast: Broadcast?
        /// Requests in flight at most: the transport's connections times the streams of each, so the window
        /// follows what the connections can carry instead of a fixed number.
        public var maxInFlight: Int

        /// Creates a configuration.
        public init(
            endpoint: APNsEndpoint, bundleID: String, expirationSeconds: Int = 3600,
            tokenRefreshInterval: Int = 50 * 60, requestTimeout: Duration = .seconds(10), inputPushToken: Bool = false,
            broadcast: Broadcast? = nil, maxInFlight: Int = 100
        ) {
            self.broadcast = broadcast
            self.maxInFlight = maxInFlight
            self.endpoint = endpoint
            self.bundleID = bundleID
            self.expirationSeconds = expirationSeconds
            self.tokenRefreshInterval = tokenRefreshInterval
            self.requestTimeout = requestTimeout
            self.inputPushToken = inputPushToken
        }
    }

    /// Where broadcasts and channel-management requests go, and the channels' storage policy. Apple's pages
    /// disagree on the broadcast host (the prose names the push host, the sample frames
    /// `api-broadcast.push.apple.com`), so both hosts are settings.
    public struct Broadcast: Sendable, Hashable {
        /// The base URL broadcasts are posted to (`/4/broadcasts/apps/<bundle id>`).
        public var url: String
        /// The channel-management server.
        public var management: APNsChannelClient.Endpoint
        /// The storage policy of the channels created (0 for scores: a higher publishing budget).
        public var storagePolicy: APNsChannelClient.StoragePolicy
        /// Seconds after an end without a dismissal date at which its channel is deleted.
        public var deleteAfter: Int
        /// The most broadcasts to one channel in any `window` seconds (0: no pace).
        public var maxBroadcasts: Int
        /// The pace's window, in seconds.
        public var window: Int

        /// Settings; a trailing slash of `url` is dropped.
        public init(
            url: String, management: APNsChannelClient.Endpoint,
            storagePolicy: APNsChannelClient.StoragePolicy = .noStorage, deleteAfter: Int = 4 * 3600,
            maxBroadcasts: Int = 0, window: Int = 60
        ) {
            self.maxBroadcasts = maxBroadcasts
            self.window = window
            self.deleteAfter = deleteAfter
            self.url = APNsEndpoint(url: url, environment: .production).url
            self.management = management
            self.storagePolicy = storagePolicy
        }

        /// Apple's hosts for an environment, the broadcast host as the prose says (the push host).
        public static func apple(_ environment: PushEnvironment, storagePolicy: APNsChannelClient.StoragePolicy)
            -> Broadcast
        {
            Broadcast(
                url: APNsEndpoint.apple(environment).url,
                management: environment == .sandbox ? .sandbox : .production, storagePolicy: storagePolicy)
        }
    }
}
