/// The outcome of one delivery attempt, classified so the `Sender` can act on it the same way for every
/// provider.
public enum DeliveryOutcome: Sendable, Hashable {
    /// The provider's service accepted the push.
    case delivered
    /// A temporary failure: try again, after the given number of seconds if the provider said so.
    case retry(afterSeconds: Int?, reason: String)
    /// This target (a device token, a broadcast channel) is sent to too often (APNs 429 `TooManyRequests`):
    /// the sender does not try again at once; the outbox sends the target's newest state when it has room.
    case throttled(afterSeconds: Int?, reason: String)
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
    /// True for a temporary failure (throttled included).
    public var isRetry: Bool {
        switch self {
        case .retry, .throttled: true
        default: false
        }
    }

    /// A stable short name for metrics and logs.
    public var metricLabel: String {
        switch self {
        case .delivered: return "delivered"
        case .retry: return "retry"
        case .throttled: return "throttled"
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
        case .retry(_, let reason), .throttled(_, let reason), .dropToken(let reason), .refreshCredentials(let reason),
            .configurationError(let reason), .rejected(let reason):
            reason
        }
    }
}

extension DeliveryOutcome {
    /// The longest reason kept, in characters; a provider's answer can be any size.
    public static let maxReasonLength = 300

    /// The outcome with its reason fit to log: credentials a server echoed (a JWT, a `Bearer` value, any long
    /// opaque run of token characters) replaced by `[redacted]`, and the text cut to ``maxReasonLength``.
    public var sanitized: DeliveryOutcome {
        switch self {
        case .delivered: self
        case .retry(let after, let reason): .retry(afterSeconds: after, reason: Self.sanitize(reason))
        case .throttled(let after, let reason): .throttled(afterSeconds: after, reason: Self.sanitize(reason))
        case .dropToken(let reason): .dropToken(reason: Self.sanitize(reason))
        case .refreshCredentials(let reason): .refreshCredentials(reason: Self.sanitize(reason))
        case .configurationError(let reason): .configurationError(reason: Self.sanitize(reason))
        case .rejected(let reason): .rejected(reason: Self.sanitize(reason))
        }
    }

    /// `text` without what looks like a credential, at most ``maxReasonLength`` characters.
    public static func sanitize(_ text: String) -> String {
        var out = text
        // `Bearer <anything>` and `key=<anything>` up to a separator; then opaque runs of 32 or more token
        // characters (JWTs, OAuth access tokens, API keys, device tokens).
        out.replace(/(?i)(bearer|basic|key=|token=)\s*[^\s"',;&}]+/) { match in "\(match.output.1) [redacted]" }
        out.replace(/[A-Za-z0-9_\-+\/=.]{32,}/) { _ in "[redacted]" }
        guard out.count > maxReasonLength else { return out }
        return String(out.prefix(maxReasonLength)) + "… (\(out.count - maxReasonLength) more characters)"
    }
}
