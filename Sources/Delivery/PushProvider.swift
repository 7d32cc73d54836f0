import LiveRelayCore

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

/// The outcome of one delivery attempt, classified so the `Sender` can act on it the same way for every
/// provider.
public enum DeliveryOutcome: Sendable, Hashable {
    /// The provider's service accepted the push.
    case delivered
    /// A temporary failure: try again, after the given number of seconds if the provider said so.
    case retry(afterSeconds: Int?, reason: String)
    /// The token is no longer valid: forget it, never use it again.
    case dropToken(reason: String)
    /// The provider's credentials were rejected as expired: refresh them and retry once.
    case refreshCredentials(reason: String)
    /// The provider is misconfigured (wrong topic, wrong key): stop using it and say so loudly.
    case configurationError(reason: String)
    /// This push cannot be sent as it is (a start without an alert, a payload over the size limit, no token):
    /// do not retry it; the provider and the token stay in use.
    case rejected(reason: String)
}

/// A way of delivering Live Activity pushes (APNs, FCM, Pushwoosh, Getui, the console). A provider encodes,
/// sends and classifies; retries, logging and metrics live once in the `Sender`.
public protocol PushProvider: Sendable {
    /// The provider's name in logs and metrics (`apns`, `console`, …).
    var name: String { get }
    /// Delivers one push to one target.
    func deliver(_ push: LiveActivityPush, to target: PushTarget) async -> DeliveryOutcome
    /// Called by the `Sender` after a `.refreshCredentials` outcome, before it retries once.
    func refreshCredentials() async
    /// How many targets one request can carry: Pushwoosh 1000, Getui 200, 1 for APIs without a batch form.
    var maxBatchSize: Int { get }
}

extension PushProvider {
    /// Providers without renewable credentials have nothing to refresh.
    public func refreshCredentials() async {}
    /// Most APIs take one target per request.
    public var maxBatchSize: Int { 1 }
}

/// A provider whose API addresses several targets in one request (Pushwoosh `devices`, Getui batch).
/// The `Sender` hands it up to ``PushProvider/maxBatchSize`` targets at once and acts on each target's
/// outcome as it would for a single push.
public protocol BatchPushProvider: PushProvider {
    /// Delivers one push to several targets; one outcome per target, in the same order.
    func deliver(_ push: LiveActivityPush, to targets: [PushTarget]) async -> [DeliveryOutcome]
}

extension DeliveryOutcome {
    /// A stable short name for metrics and logs.
    public var metricLabel: String {
        switch self {
        case .delivered: return "delivered"
        case .retry: return "retry"
        case .dropToken: return "token_dropped"
        case .refreshCredentials: return "refresh_credentials"
        case .configurationError: return "configuration_error"
        case .rejected: return "rejected"
        }
    }
}
