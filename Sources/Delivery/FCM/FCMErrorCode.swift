/// An FCM error code (`error.details[].errorCode`, or `error.status` when no detail carries one) and what the
/// `Sender` does about it. From the FCM HTTP v1 `ErrorCode` reference; codes not in the table are kept as
/// they came and classified by the HTTP status.
public struct FCMErrorCode: Sendable, Hashable, CustomStringConvertible {
    /// The code as FCM writes it.
    public let rawValue: String
    /// What to do about it.
    public let action: DeliveryAction

    private init(_ rawValue: String, _ action: DeliveryAction) {
        self.rawValue = rawValue
        self.action = action
    }

    /// A code from a response: a known one, or an unknown one classified by `status` (429 and 5xx retry,
    /// 401 refreshes the access token, 403 is a configuration error, 404 drops the token, the rest rejects
    /// the push).
    public init(rawValue: String, status: Int) {
        if let known = Self.all.first(where: { $0.rawValue == rawValue }) {
            self = known
            return
        }
        let action: DeliveryAction =
            switch status {
            case 429, 500...599: .retry
            case 401: .refreshCredentials
            case 403: .configuration
            case 404: .dropToken
            default: .rejectPush
            }
        self.init(rawValue, action)
    }

    /// The code.
    public var description: String { rawValue }

    /// The registration token is no longer valid (the app was removed, or the token expired): drop it.
    public static let unregistered = FCMErrorCode("UNREGISTERED", .dropToken)
    /// The project's or the device's sending quota is spent: retry later (`Retry-After`).
    public static let quotaExceeded = FCMErrorCode("QUOTA_EXCEEDED", .retry)
    /// FCM is overloaded: retry with backoff.
    public static let unavailable = FCMErrorCode("UNAVAILABLE", .retry)
    /// An unknown error in FCM: retry with backoff.
    public static let internalError = FCMErrorCode("INTERNAL", .retry)
    /// The request is malformed (a field LiveRelay builds wrongly): every push would fail alike.
    public static let invalidArgument = FCMErrorCode("INVALID_ARGUMENT", .configuration)
    /// The registration token belongs to another sender (project).
    public static let senderIDMismatch = FCMErrorCode("SENDER_ID_MISMATCH", .configuration)
    /// The APNs key or certificate uploaded to Firebase is missing or wrong.
    public static let thirdPartyAuthError = FCMErrorCode("THIRD_PARTY_AUTH_ERROR", .configuration)
    /// The access token expired or was revoked: fetch a new one and retry once.
    public static let unauthenticated = FCMErrorCode("UNAUTHENTICATED", .refreshCredentials)
    /// The service account may not send for the project.
    public static let permissionDenied = FCMErrorCode("PERMISSION_DENIED", .configuration)

    /// Every code in the table.
    public static let all: [FCMErrorCode] = [
        .unregistered, .quotaExceeded, .unavailable, .internalError, .invalidArgument, .senderIDMismatch,
        .thirdPartyAuthError, .unauthenticated, .permissionDenied,
    ]

    /// The code of an error body: the first `details[].errorCode`, else `status`, else the HTTP status.
    public static func of(_ body: FCMErrorBody?, status: Int) -> FCMErrorCode {
        let code =
            body?.error.details?.lazy.compactMap(\.errorCode).first ?? body?.error.status ?? "HTTP \(status)"
        return FCMErrorCode(rawValue: code, status: status)
    }
}
