import Foundation
public import LiveRelayCore

/// The body of `POST /v1/projects/{project}/messages:send` for a Live Activity push, as the FCM Live
/// Activity guide shows it: the app's registration token, the Live Activity token, the APNs priority, and
/// the same `aps` dictionary APNs takes.
public struct FCMSendRequest: Sendable, Hashable, Codable {
    /// The message.
    public var message: Message

    /// `message`.
    public struct Message: Sendable, Hashable, Codable {
        /// The FCM registration token of the app install.
        public var token: String
        /// The APNs part.
        public var apns: APNs
    }

    /// `message.apns`.
    public struct APNs: Sendable, Hashable, Codable {
        /// The push-to-start token for a start, the activity's update token for an update or an end.
        public var liveActivityToken: String
        /// `apns-priority` and `apns-expiration` (FCM sets the push type and topic).
        public var headers: [String: String]
        /// `{"aps": …}`, exactly as APNs would receive it.
        public var payload: APNsPayload

        enum CodingKeys: String, CodingKey {
            case liveActivityToken = "live_activity_token"
            case headers, payload
        }
    }

    /// The request for one push to one install.
    /// - Parameter expirationSeconds: how long after its timestamp APNs may keep the push for an offline
    ///   device (`apns-expiration`).
    public init(
        _ push: LiveActivityPush, registrationToken: String, liveActivityToken: String, expirationSeconds: Int = 3600
    ) {
        message = Message(
            token: registrationToken,
            apns: APNs(
                liveActivityToken: liveActivityToken,
                headers: [
                    "apns-priority": String(push.priority.rawValue),
                    "apns-expiration": String(push.timestamp + expirationSeconds),
                ],
                payload: APNsPayload(push)))
    }
}

/// FCM's error body: `{"error": {"code": 404, "message": "…", "status": "NOT_FOUND", "details": [{"@type":
/// "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "UNREGISTERED"}]}}`.
public struct FCMErrorBody: Sendable, Hashable, Codable {
    /// `error`.
    public var error: Status

    /// A `google.rpc.Status`.
    public struct Status: Sendable, Hashable, Codable {
        /// The HTTP status.
        public var code: Int?
        /// Words; not logged (it may quote the request).
        public var message: String?
        /// The canonical status (`NOT_FOUND`, `INVALID_ARGUMENT`, …).
        public var status: String?
        /// Typed details; FCM's carry an `errorCode`.
        public var details: [Detail]?
    }

    /// One entry of `details`.
    public struct Detail: Sendable, Hashable, Codable {
        /// `type.googleapis.com/google.firebase.fcm.v1.FcmError`, …
        public var type: String?
        /// FCM's own code (`UNREGISTERED`, `QUOTA_EXCEEDED`, …).
        public var errorCode: String?

        enum CodingKeys: String, CodingKey {
            case type = "@type"
            case errorCode
        }

        /// Creates a detail.
        public init(type: String? = "type.googleapis.com/google.firebase.fcm.v1.FcmError", errorCode: String?) {
            self.type = type
            self.errorCode = errorCode
        }
    }

    /// Creates a body.
    public init(code: Int, status: String, message: String, errorCode: String?) {
        error = Status(
            code: code, message: message, status: status,
            details: errorCode.map { [Detail(errorCode: $0)] })
    }
}
