/// A `reason` APNs gives in an error response body (`{"reason": "BadDeviceToken"}`), with the status it
/// comes with and what the `Sender` does about it. From Apple's "Handling notification responses from
/// APNs"; reasons not in the table are kept as they came (``init(rawValue:)``) and classified by status.
public struct APNsErrorReason: Sendable, Hashable, CustomStringConvertible {
    /// The reason as APNs writes it.
    public let rawValue: String
    /// The HTTP status APNs answers it with.
    public let status: Int
    /// What to do about it.
    public let action: DeliveryAction

    private init(_ rawValue: String, _ status: Int, _ action: DeliveryAction) {
        self.rawValue = rawValue
        self.status = status
        self.action = action
    }

    /// A reason from a response: a known one, or an unknown one classified by its status (5xx and 429
    /// retry, 410 drops the token, 403 is a configuration error, anything else rejects the push).
    public init(rawValue: String, status: Int) {
        if let known = Self.all.first(where: { $0.rawValue == rawValue }) {
            self = known
            return
        }
        let action: DeliveryAction =
            switch status {
            case 429, 500...599: .retry
            case 410: .dropToken
            case 403: .configuration
            default: .rejectPush
            }
        self.init(rawValue, status, action)
    }

    /// The reason and status: `BadDeviceToken (400)`.
    public var description: String { "\(rawValue) (\(status))" }

    // 400
    /// The collapse identifier exceeds 64 bytes.
    public static let badCollapseId = APNsErrorReason("BadCollapseId", 400, .configuration)
    /// The token is not a valid token, or is from the other environment. Dropped after checking the
    /// environment (see `APNsProvider`).
    public static let badDeviceToken = APNsErrorReason("BadDeviceToken", 400, .dropToken)
    /// `apns-expiration` is not a UNIX time.
    public static let badExpirationDate = APNsErrorReason("BadExpirationDate", 400, .configuration)
    /// `apns-id` is not a UUID.
    public static let badMessageId = APNsErrorReason("BadMessageId", 400, .configuration)
    /// `apns-priority` is not 10, 5 or 1.
    public static let badPriority = APNsErrorReason("BadPriority", 400, .configuration)
    /// `apns-topic` is invalid.
    public static let badTopic = APNsErrorReason("BadTopic", 400, .configuration)
    /// The token belongs to another app (topic). Dropped only once the topic is known good (see `APNsProvider`).
    public static let deviceTokenNotForTopic = APNsErrorReason("DeviceTokenNotForTopic", 400, .dropToken)
    /// A header was repeated.
    public static let duplicateHeaders = APNsErrorReason("DuplicateHeaders", 400, .configuration)
    /// The connection sat idle: send again.
    public static let idleTimeout = APNsErrorReason("IdleTimeout", 400, .retry)
    /// `apns-push-type` is missing or wrong for the topic.
    public static let invalidPushType = APNsErrorReason("InvalidPushType", 400, .configuration)
    /// The path has no token.
    public static let missingDeviceToken = APNsErrorReason("MissingDeviceToken", 400, .rejectPush)
    /// `apns-topic` is missing (required with token authentication).
    public static let missingTopic = APNsErrorReason("MissingTopic", 400, .configuration)
    /// The body is empty.
    public static let payloadEmpty = APNsErrorReason("PayloadEmpty", 400, .rejectPush)
    /// Pushing to this topic is not allowed.
    public static let topicDisallowed = APNsErrorReason("TopicDisallowed", 400, .configuration)
    // 400, broadcast channels (iOS 18)
    /// Broadcast is not enabled for the app's App ID (the developer portal's Push Notifications settings).
    public static let featureNotEnabled = APNsErrorReason("FeatureNotEnabled", 400, .configuration)
    /// No `apns-channel-id` header on a request that needs one.
    public static let missingChannelId = APNsErrorReason("MissingChannelId", 400, .configuration)
    /// `apns-channel-id` is malformed or too long.
    public static let badChannelId = APNsErrorReason("BadChannelId", 400, .configuration)
    /// No such channel (deleted, or created in the other environment): the channel is gone, like a dead
    /// token (the worker stops using it and says so).
    public static let channelNotRegistered = APNsErrorReason("ChannelNotRegistered", 400, .dropToken)
    /// The app has as many channels as APNs allows (10,000 per environment).
    public static let cannotCreateChannelConfig = APNsErrorReason("CannotCreateChannelConfig", 400, .rejectPush)
    // 403
    /// The certificate is invalid.
    public static let badCertificate = APNsErrorReason("BadCertificate", 403, .configuration)
    /// The certificate is for the other environment.
    public static let badCertificateEnvironment = APNsErrorReason("BadCertificateEnvironment", 403, .configuration)
    /// The provider token is older than an hour: mint a new one.
    public static let expiredProviderToken = APNsErrorReason("ExpiredProviderToken", 403, .refreshCredentials)
    /// The action is not allowed.
    public static let forbidden = APNsErrorReason("Forbidden", 403, .configuration)
    /// The provider token's signature, key id or team id is wrong.
    public static let invalidProviderToken = APNsErrorReason("InvalidProviderToken", 403, .configuration)
    /// No `authorization` header and no client certificate.
    public static let missingProviderToken = APNsErrorReason("MissingProviderToken", 403, .configuration)
    /// The key id in the token does not belong to the team.
    public static let unrelatedKeyIdInToken = APNsErrorReason("UnrelatedKeyIdInToken", 403, .configuration)
    /// The key is restricted to the other environment.
    public static let badEnvironmentKeyIdInToken = APNsErrorReason("BadEnvironmentKeyIdInToken", 403, .configuration)
    // 404, 405
    /// The path is not `/3/device/<token>`.
    public static let badPath = APNsErrorReason("BadPath", 404, .configuration)
    /// The method is not `POST`.
    public static let methodNotAllowed = APNsErrorReason("MethodNotAllowed", 405, .configuration)
    // 410
    /// The token has expired.
    public static let expiredToken = APNsErrorReason("ExpiredToken", 410, .dropToken)
    /// The token is no longer active for the topic (the app was removed, or the activity ended).
    public static let unregistered = APNsErrorReason("Unregistered", 410, .dropToken)
    // 413
    /// The payload is too large; LiveRelay checks the size before sending, so its limit is wrong.
    public static let payloadTooLarge = APNsErrorReason("PayloadTooLarge", 413, .configuration)
    // 429
    /// Provider tokens are replaced too often (more than once in 20 minutes).
    public static let tooManyProviderTokenUpdates = APNsErrorReason("TooManyProviderTokenUpdates", 429, .retry)
    /// Too many requests to the same token, or broadcasts to the same channel, in a short time.
    public static let tooManyRequests = APNsErrorReason("TooManyRequests", 429, .throttle)
    // 500, 503
    /// An internal server error.
    public static let internalServerError = APNsErrorReason("InternalServerError", 500, .retry)
    /// The service is unavailable.
    public static let serviceUnavailable = APNsErrorReason("ServiceUnavailable", 503, .retry)
    /// The server is shutting down.
    public static let shutdown = APNsErrorReason("Shutdown", 503, .retry)

    /// Every reason in Apple's table.
    public static let all: [APNsErrorReason] = [
        .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
        .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
        .missingTopic, .payloadEmpty, .topicDisallowed, .featureNotEnabled, .missingChannelId, .badChannelId,
        .channelNotRegistered, .cannotCreateChannelConfig, .badCertificate, .badCertificateEnvironment,
        .expiredProviderToken, .forbidden, .invalidProviderToken, .missingProviderToken, .unrelatedKeyIdInToken,
        .badEnvironmentKeyIdInToken, .badPath, .methodNotAllowed, .expiredToken, .unregistered, .payloadTooLarge,
        .tooManyProviderTokenUpdates, .tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown,
    ]
}
