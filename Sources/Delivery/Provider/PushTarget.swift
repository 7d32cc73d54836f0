public import LiveRelayCore

/// Where one push goes: a device's push-to-start token (for `start`), an activity's update token, or an
/// activity's APNs broadcast channel (an update or end to every device subscribed to it, iOS 18).
public struct PushTarget: Sendable, Hashable {
    /// Which kind of token a push needs.
    public enum TokenKind: String, Sendable, Hashable {
        case pushToStart = "push-to-start"
        case activity = "activity"
        /// A broadcast to ``PushTarget/channel``.
        case channel = "channel"
    }

    /// Whether the token starts activities or updates one.
    public var kind: TokenKind
    /// The hex token; `nil` when no device is registered yet (the console provider still shows the request).
    public var token: String?
    /// The APNs environment the app registered the token in; `nil` when unknown.
    public var environment: PushEnvironment?
    /// The device the token belongs to, for logs; never the token itself.
    public var device: String?
    /// What FCM, Pushwoosh or Getui address the push to; empty for APNs and the console.
    public var address: ProviderAddress
    /// The broadcast channel: the one a `channel` target's broadcast goes to, or the one the activity a
    /// push-to-start target starts subscribes to (`input-push-channel`); `nil` otherwise.
    public var channel: String?
    /// A broadcast's channel's storage policy (0: no message stored, 1: the most recent), fixed when the
    /// channel was made: `apns-expiration` must follow it; `nil`: the provider's current setting.
    public var channelPolicy: Int?

    /// Creates a target.
    public init(
        kind: TokenKind, token: String?, environment: PushEnvironment? = nil, device: String? = nil,
        address: ProviderAddress = ProviderAddress(), channel: String? = nil, channelPolicy: Int? = nil
    ) {
        self.channel = channel
        self.channelPolicy = channelPolicy
        self.kind = kind
        self.token = token
        self.environment = environment
        self.device = device
        self.address = address
    }

    /// The kind of token an event is addressed to.
    public static func kind(for event: PushEvent) -> TokenKind { event == .start ? .pushToStart : .activity }

    /// A broadcast to an activity's channel.
    public static func broadcast(_ channel: String, policy: Int? = nil) -> PushTarget {
        PushTarget(kind: .channel, token: nil, channel: channel, channelPolicy: policy)
    }
}
