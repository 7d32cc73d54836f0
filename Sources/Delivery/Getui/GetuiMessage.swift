import Foundation
public import LiveRelayCore

/// One message of Getui's RestAPI v2 push to a `cid`: the body of `POST /v2/{appId}/push/single/cid` and
/// one entry of `msg_list` in `POST /v2/{appId}/push/single/batch/cid`.
///
/// The Live Activity travels in `push_channel.ios` as Getui's Live Activity guide shows it (`type`
/// `liveactivity`, the activity's `laId` for an update or an end, and an `aps` with `timestamp`, `event`,
/// `content-state`, `attributes-type` and `attributes` for a start, `dismissal-date`, `alert`); Getui hands
/// it to APNs. `push_message`, which the API requires, carries a small transmission naming the activity and
/// the event, for an app that is online on Getui's own channel.
public struct GetuiMessage: Sendable, Hashable, Codable {
    /// Getui drops a message whose `request_id` it has seen; 10 to 32 characters.
    public var requestID: String
    /// Offline time to live.
    public var settings: Settings
    /// The one `cid` the message goes to.
    public var audience: Audience
    /// Getui's own channel.
    public var pushMessage: PushMessage
    /// The vendor channels: here only iOS.
    public var pushChannel: PushChannel

    enum CodingKeys: String, CodingKey {
        case settings, audience
        case requestID = "request_id"
        case pushMessage = "push_message"
        case pushChannel = "push_channel"
    }

    /// `settings`.
    public struct Settings: Sendable, Hashable, Codable {
        /// Milliseconds Getui keeps the message for an offline device, -1 to 3 days.
        public var ttl: Int
    }

    /// `audience`: exactly one `cid` per message.
    public struct Audience: Sendable, Hashable, Codable {
        /// The app install's Getui client id.
        public var cid: [String]
    }

    /// `push_message`.
    public struct PushMessage: Sendable, Hashable, Codable {
        /// A JSON text for the app.
        public var transmission: String
    }

    /// `push_channel`.
    public struct PushChannel: Sendable, Hashable, Codable {
        /// `ios`.
        public var ios: IOS
    }

    /// `push_channel.ios` for a Live Activity.
    public struct IOS: Sendable, Hashable, Codable {
        /// Always `liveactivity`.
        public var type: String
        /// The activity's Getui id; absent for a start (push-to-start creates the activity).
        public var laId: String?
        /// What APNs receives.
        public var aps: APS
        /// A badge change (`+1`, or a number), when configured.
        public var autoBadge: String?

        enum CodingKeys: String, CodingKey {
            case type, laId, aps
            case autoBadge = "auto_badge"
        }
    }

    /// `push_channel.ios.aps`: the fields Getui's guide lists for Live Activities.
    public struct APS: Sendable, Hashable, Codable {
        /// UNIX seconds; strictly increasing per activity.
        public var timestamp: Int
        /// `start`, `update` or `end`.
        public var event: PushEvent
        /// The whole content-state.
        public var contentState: JSONValue
        /// For a start: the app's `ActivityAttributes` type.
        public var attributesType: String?
        /// For a start: the static attributes.
        public var attributes: JSONValue?
        /// UNIX seconds at which an ended activity leaves the lock screen.
        public var dismissalDate: Int?
        /// The alert; required for a start.
        public var alert: LiveActivityAlert?
        /// `0`, as in the guide: a Live Activity push is not a background push.
        public var contentAvailable: Int

        enum CodingKeys: String, CodingKey {
            case timestamp, event, attributes, alert
            case contentState = "content-state"
            case attributesType = "attributes-type"
            case dismissalDate = "dismissal-date"
            case contentAvailable = "content-available"
        }
    }

    /// The transmission text: `{"activity": …, "event": …, "timestamp": …}`.
    struct Transmission: Codable {
        var activity: String
        var event: PushEvent
        var timestamp: Int
    }

    /// The message of `push` to `cid`; `laID` is used for an update or an end.
    public init(
        _ push: LiveActivityPush, cid: String, laID: String, requestID: String, ttlMilliseconds: Int,
        autoBadge: String? = nil
    ) {
        let start = push.event == .start
        self.requestID = requestID
        settings = Settings(ttl: ttlMilliseconds)
        audience = Audience(cid: [cid])
        let transmission = Transmission(
            activity: push.activity.rawValue, event: push.event, timestamp: push.timestamp)
        pushMessage = PushMessage(
            transmission: (try? transmission.canonicalJSON()).map { String(decoding: $0, as: UTF8.self) } ?? "{}")
        pushChannel = PushChannel(
            ios: IOS(
                type: "liveactivity", laId: start ? nil : laID,
                aps: APS(
                    timestamp: push.timestamp, event: push.event, contentState: push.contentState,
                    attributesType: start ? push.attributesType : nil,
                    attributes: start ? (push.attributes ?? .emptyObject) : nil, dismissalDate: push.dismissalDate,
                    alert: push.alert, contentAvailable: 0),
                autoBadge: autoBadge))
    }
}

/// The body of `POST /v2/{appId}/push/single/batch/cid`: up to 200 messages, each to one `cid`.
public struct GetuiBatch: Sendable, Hashable, Codable {
    /// Getui takes at most this many messages in one batch.
    public static let maximumMessages = 200

    /// `false`: answer with each message's task, so the request's outcome is known.
    public var isAsync: Bool
    /// The messages.
    public var msgList: [GetuiMessage]

    enum CodingKeys: String, CodingKey {
        case isAsync = "is_async"
        case msgList = "msg_list"
    }

    /// A synchronous batch.
    public init(_ messages: [GetuiMessage]) {
        isAsync = false
        msgList = messages
    }
}
