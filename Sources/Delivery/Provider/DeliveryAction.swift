public import HTTP

/// What the `Sender` does about a provider's answer, whichever provider gave it. Each provider's error
/// table (APNs reasons, FCM codes, Pushwoosh statuses, Getui codes) maps its answers onto these.
public enum DeliveryAction: String, Sendable, Hashable, CaseIterable {
    /// Temporary: try again with backoff.
    case retry
    /// Too many requests to this one target (a device token, a broadcast channel): not again at once; the
    /// outbox sends the target's newest state once it has room.
    case throttle
    /// The token (or provider address) is dead: remove it from the registry and never use it again.
    case dropToken
    /// The provider's credentials expired: refresh them and retry once.
    case refreshCredentials
    /// The request itself is wrong for every push (key, topic, application): stop the provider loudly.
    case configuration
    /// Only this push is wrong: give it up, keep the provider and the token.
    case rejectPush
}

extension DeliveryOutcome {
    /// The outcome an action leads to; `reason` names the provider's answer, `retryAfter` is the answer's
    /// `Retry-After` in seconds (used by `.retry` and `.throttle` only).
    public init(_ action: DeliveryAction, reason: String, retryAfter: Int? = nil) {
        switch action {
        case .retry: self = .retry(afterSeconds: retryAfter, reason: reason)
        case .throttle: self = .throttled(afterSeconds: retryAfter, reason: reason)
        case .dropToken: self = .dropToken(reason: reason)
        case .refreshCredentials: self = .refreshCredentials(reason: reason)
        case .configuration: self = .configurationError(reason: reason)
        case .rejectPush: self = .rejected(reason: reason)
        }
    }

    /// The outcome of an HTTP answer the provider's table classified as `action`, honouring the answer's
    /// `Retry-After`.
    public init(_ action: DeliveryAction, reason: String, answer: HTTPResponse) {
        self.init(action, reason: reason, retryAfter: answer.retryAfterSeconds)
    }

    /// A request that got no answer from `service` (`APNs`, `FCM`, …): retried, except for what will not
    /// pass next time either (a TLS failure, a malformed URL), which stops the provider.
    public static func unanswered(_ error: HTTPError, by service: String) -> DeliveryOutcome {
        switch error.code {
        case .tls, .invalidURL:
            return .configurationError(reason: "cannot reach \(service): \(error.code): \(error.message)")
        default:
            return .retry(afterSeconds: nil, reason: "no answer from \(service): \(error.code)")
        }
    }
}
