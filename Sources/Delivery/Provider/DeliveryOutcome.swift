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

extension DeliveryOutcome {
    /// The provider's words for the outcome (`delivered` for a delivery).
    public var reason: String {
        switch self {
        case .delivered: "delivered"
        case .retry(_, let reason), .dropToken(let reason), .refreshCredentials(let reason),
            .configurationError(let reason), .rejected(let reason):
            reason
        }
    }
}
