import Delivery
import Testing

@Suite struct APNsErrorReasonTests {
    typealias Action = DeliveryAction

    /// Apple's table, reason by reason: status and what LiveRelay does.
    static let table: [(String, Int, Action)] = [
        ("BadCollapseId", 400, .configuration), ("BadDeviceToken", 400, .dropToken),
        ("BadExpirationDate", 400, .configuration), ("BadMessageId", 400, .configuration),
        ("BadPriority", 400, .configuration), ("BadTopic", 400, .configuration),
        ("DeviceTokenNotForTopic", 400, .dropToken), ("DuplicateHeaders", 400, .configuration),
        ("IdleTimeout", 400, .retry), ("InvalidPushType", 400, .configuration),
        ("MissingDeviceToken", 400, .rejectPush), ("MissingTopic", 400, .configuration),
        ("PayloadEmpty", 400, .rejectPush), ("TopicDisallowed", 400, .configuration),
        // Broadcast channels (iOS 18): a gone channel is dropped like a dead token.
        ("FeatureNotEnabled", 400, .configuration), ("MissingChannelId", 400, .configuration),
        ("BadChannelId", 400, .configuration), ("ChannelNotRegistered", 400, .dropToken),
        ("CannotCreateChannelConfig", 400, .rejectPush),
        ("BadCertificate", 403, .configuration), ("BadCertificateEnvironment", 403, .configuration),
        ("ExpiredProviderToken", 403, .refreshCredentials), ("Forbidden", 403, .configuration),
        ("InvalidProviderToken", 403, .configuration), ("MissingProviderToken", 403, .configuration),
        ("UnrelatedKeyIdInToken", 403, .configuration), ("BadEnvironmentKeyIdInToken", 403, .configuration),
        ("BadPath", 404, .configuration), ("MethodNotAllowed", 405, .configuration),
        ("ExpiredToken", 410, .dropToken), ("Unregistered", 410, .dropToken),
        ("PayloadTooLarge", 413, .configuration), ("TooManyProviderTokenUpdates", 429, .retry),
        ("TooManyRequests", 429, .throttle), ("InternalServerError", 500, .retry),
        ("ServiceUnavailable", 503, .retry), ("Shutdown", 503, .retry),
    ]

    @Test(arguments: table)
    func everyReasonHasOneAction(reason: String, status: Int, action: Action) {
        let classified = APNsErrorReason(rawValue: reason, status: status)
        #expect(classified.action == action)
        #expect(classified.status == status)
        #expect(APNsErrorReason.all.contains(classified))
    }

    @Test func theTableCoversEveryKnownReason() {
        #expect(Set(APNsErrorReason.all.map(\.rawValue)) == Set(Self.table.map(\.0)))
    }

    @Test(arguments: [(502, Action.retry), (429, .retry), (410, .dropToken), (403, .configuration), (400, .rejectPush)])
    func anUnknownReasonIsClassifiedByItsStatus(status: Int, action: Action) {
        let reason = APNsErrorReason(rawValue: "SomethingNew", status: status)
        #expect(reason.action == action)
        #expect(reason.description == "SomethingNew (\(status))")
    }
}
