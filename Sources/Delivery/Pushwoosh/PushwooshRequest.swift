import Foundation
public import LiveRelayCore

/// The body of Pushwoosh's `POST /json/1.3/startLiveActivity` and `/json/1.3/updateLiveActivity`, exactly as
/// the API reference shows it: `{"request": {"application", "auth", "notifications": […]}}`.
public struct PushwooshRequest: Sendable, Hashable, Codable {
    /// Pushwoosh takes at most this many devices, or users, in one notification.
    public static let maximumRecipients = 1000

    /// `request`.
    public var request: Body

    /// The request's fields.
    public struct Body: Sendable, Hashable, Codable {
        /// The Pushwoosh application code.
        public var application: String
        /// The API access token.
        public var auth: String
        /// One entry per audience.
        public var notifications: [Notification]
    }

    /// One entry of `notifications`.
    public struct Notification: Sendable, Hashable, Codable {
        /// Start: the text shown by iOS versions without Live Activities.
        public var content: String?
        /// Start: the notification's title.
        public var title: String?
        /// The Live Activity data.
        public var liveActivity: LiveActivity
        /// The activity's id, chosen by LiveRelay at start and reused for its updates.
        public var liveActivityID: String
        /// Start: a segment (filter) code, instead of `devices` and `users`.
        public var filterCode: String?
        /// Start: push tokens (iOS tokens in lower case) or HWIDs, at most 1000.
        public var devices: [String]?
        /// Start: user ids, at most 1000; preferred by Pushwoosh to `devices`.
        public var users: [String]?

        enum CodingKeys: String, CodingKey {
            case content, title, devices, users
            case liveActivity = "live_activity"
            case liveActivityID = "live_activity_id"
            case filterCode = "filter_code"
        }
    }

    /// `live_activity`: `content-state` always; `attributes-type` and `attributes` for a start; `event`,
    /// `dismissal-date`, `relevance-score` and `stale-date` for an update or an end.
    public struct LiveActivity: Sendable, Hashable, Codable {
        /// `update` or `end`.
        public var event: PushEvent?
        /// The whole content-state.
        public var contentState: JSONValue
        /// Start: the app's `ActivityAttributes` type.
        public var attributesType: String?
        /// Start: the static attributes.
        public var attributes: JSONValue?
        /// UNIX seconds at which an ended activity leaves the lock screen.
        public var dismissalDate: Int?
        /// Orders the device's activities: an integer from 1 (see ``relevance(_:)``).
        public var relevanceScore: Int?
        /// UNIX seconds after which the activity is stale.
        public var staleDate: Int?

        enum CodingKeys: String, CodingKey {
            case event, attributes
            case contentState = "content-state"
            case attributesType = "attributes-type"
            case dismissalDate = "dismissal-date"
            case relevanceScore = "relevance-score"
            case staleDate = "stale-date"
        }
    }

    /// The path of the method a push uses.
    public static func path(for event: PushEvent) -> String {
        event == .start ? "/json/1.3/startLiveActivity" : "/json/1.3/updateLiveActivity"
    }

    /// The Live Activity data of a push.
    public static func liveActivity(_ push: LiveActivityPush) -> LiveActivity {
        if push.event == .start {
            return LiveActivity(
                contentState: push.contentState, attributesType: push.attributesType,
                attributes: push.attributes ?? .emptyObject)
        }
        return LiveActivity(
            event: push.event, contentState: push.contentState, dismissalDate: push.dismissalDate,
            relevanceScore: push.relevanceScore.map(relevance), staleDate: push.staleDate)
    }

    /// Pushwoosh's `relevance-score` for a push's: its API takes an integer from 1 upwards (100 suggested as
    /// the highest), so the score is rounded to the nearest integer (halves away from zero) and raised to 1
    /// when below: 12.5 → 13, 0.4 → 1, 0 → 1, 100 → 100.
    public static func relevance(_ score: RelevanceScore) -> Int {
        max(1, Int(min(score.value.rounded(), Double(Int.max / 2))))
    }

    /// The notifications of a start to `devices` and `users` (lists longer than ``maximumRecipients`` split
    /// into several notifications; users and devices apart, since Pushwoosh ignores devices beside users).
    public static func startNotifications(
        _ push: LiveActivityPush, liveActivityID: String, devices: [String], users: [String]
    ) -> [Notification] {
        let content = push.alert?.body ?? push.alert?.title ?? push.attributesType
        func notification(devices: [String]?, users: [String]?) -> Notification {
            Notification(
                content: content, title: push.alert?.title, liveActivity: liveActivity(push),
                liveActivityID: liveActivityID, devices: devices, users: users)
        }
        return chunks(users).map { notification(devices: nil, users: $0) }
            + chunks(devices.map(device)).map { notification(devices: $0, users: nil) }
    }

    /// A device as `devices` takes it: an iOS push token in lower case, as Pushwoosh requires; an HWID as it
    /// was registered (HWIDs are case-sensitive identifiers).
    static func device(_ address: String) -> String {
        let isPushToken =
            address.utf8.count >= 64 && address.utf8.count % 2 == 0 && address.utf8.allSatisfy(AddressCheck.isHexDigit)
        return isPushToken ? address.lowercased() : address
    }

    /// The notification of a start to a segment: `filter_code`, and neither `devices` nor `users` (which
    /// would leave it unclear which audience is meant).
    public static func segmentStartNotification(_ push: LiveActivityPush, liveActivityID: String, filterCode: String)
        -> Notification
    {
        Notification(
            content: push.alert?.body ?? push.alert?.title ?? push.attributesType, title: push.alert?.title,
            liveActivity: liveActivity(push), liveActivityID: liveActivityID, filterCode: filterCode)
    }

    /// The notification of an update or an end of one activity.
    public static func updateNotification(_ push: LiveActivityPush, liveActivityID: String) -> Notification {
        Notification(liveActivity: liveActivity(push), liveActivityID: liveActivityID)
    }

    private static func chunks(_ list: [String]) -> [[String]] {
        stride(from: 0, to: list.count, by: maximumRecipients).map {
            Array(list[$0..<min($0 + maximumRecipients, list.count)])
        }
    }
}

/// Pushwoosh's answer: `{"status_code": 200, "status_message": "OK", "response": {"Messages": […]}}`.
public struct PushwooshResponse: Sendable, Hashable, Codable {
    /// 200 on success; 210 for an argument error; others for authentication and server errors.
    public var statusCode: Int
    /// Words.
    public var statusMessage: String?
    /// The message codes created.
    public var response: Messages?

    /// `response`.
    public struct Messages: Sendable, Hashable, Codable {
        /// `Messages`.
        public var messages: [String]?

        enum CodingKeys: String, CodingKey {
            case messages = "Messages"
        }
    }

    enum CodingKeys: String, CodingKey {
        case statusCode = "status_code"
        case statusMessage = "status_message"
        case response
    }

    /// Creates an answer.
    public init(statusCode: Int, statusMessage: String?, messages: [String]? = nil) {
        self.statusCode = statusCode
        self.statusMessage = statusMessage
        response = messages.map { Messages(messages: $0) }
    }
}
