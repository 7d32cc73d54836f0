public import LiveRelayCore

/// Where one push goes: a device's push-to-start token (for `start`) or an activity's update token.
public struct PushTarget: Sendable, Hashable {
    /// Which kind of token a push needs.
    public enum TokenKind: String, Sendable, Hashable {
        case pushToStart = "push-to-start"
        case activity = "activity"
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

    /// Creates a target.
    public init(
        kind: TokenKind, token: String?, environment: PushEnvironment? = nil, device: String? = nil,
        address: ProviderAddress = ProviderAddress()
    ) {
        self.kind = kind
        self.token = token
        self.environment = environment
        self.device = device
        self.address = address
    }

    /// The kind of token an event is addressed to.
    public static func kind(for event: PushEvent) -> TokenKind { event == .start ? .pushToStart : .activity }
}
