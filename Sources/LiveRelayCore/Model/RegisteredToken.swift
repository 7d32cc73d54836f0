/// A push token as the registry holds it.
public struct RegisteredToken: Sendable, Hashable {
    /// The device it belongs to (an id the app chose).
    public var device: String
    /// The token, in lower-case hex.
    public var token: String
    /// The APNs environment the app registered it in.
    public var environment: PushEnvironment
    /// Whether the device registered as a broadcast-channel subscriber (iOS 18): in `both` mode its
    /// activities follow the channel instead of its tokens.
    public var channelSubscriber: Bool

    /// Creates a record.
    public init(device: String, token: String, environment: PushEnvironment, channelSubscriber: Bool = false) {
        self.channelSubscriber = channelSubscriber
        self.device = device
        self.token = token
        self.environment = environment
    }
}
