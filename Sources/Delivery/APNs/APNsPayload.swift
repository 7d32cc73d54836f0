public import LiveRelayCore

/// The JSON body APNs expects for a Live Activity push.
public struct APNsPayload: Sendable, Hashable, Codable {
    /// The `aps` dictionary: everything of a Live Activity push lives in it.
    public var aps: APS

    /// The `aps` dictionary of a Live Activity push.
    public struct APS: Sendable, Hashable, Codable {
        /// UNIX seconds; the device ignores a push not newer than the last one it saw.
        public var timestamp: Int
        /// `start`, `update` or `end`.
        public var event: PushEvent
        /// The whole content-state, as the app's `ContentState` decodes it.
        public var contentState: JSONValue
        /// For `start`: the Swift type name of the app's `ActivityAttributes`.
        public var attributesType: String?
        /// For `start`: the static attributes.
        public var attributes: JSONValue?
        /// The alert; required for `start`.
        public var alert: LiveActivityAlert?
        /// Orders the device's activities; higher is more important.
        public var relevanceScore: RelevanceScore?
        /// UNIX seconds after which the activity shows as stale.
        public var staleDate: Int?
        /// UNIX seconds at which an ended activity leaves the lock screen.
        public var dismissalDate: Int?
        /// For `start` (iOS 18): `1` asks the device to report the new activity's update token.
        public var inputPushToken: Int?
        /// For `start` (iOS 18): the broadcast channel the new activity subscribes to.
        public var inputPushChannel: String?

        enum CodingKeys: String, CodingKey {
            case timestamp, event, alert, attributes
            case contentState = "content-state"
            case attributesType = "attributes-type"
            case relevanceScore = "relevance-score"
            case staleDate = "stale-date"
            case dismissalDate = "dismissal-date"
            case inputPushToken = "input-push-token"
            case inputPushChannel = "input-push-channel"
        }
    }

    /// The payload of a push; attributes go only with `start`.
    public init(_ push: LiveActivityPush) {
        let start = push.event == .start
        aps = APS(
            timestamp: push.timestamp, event: push.event, contentState: push.contentState,
            attributesType: start ? push.attributesType : nil,
            attributes: start ? (push.attributes ?? .emptyObject) : nil, alert: push.alert,
            relevanceScore: push.relevanceScore, staleDate: push.staleDate, dismissalDate: push.dismissalDate,
            inputPushToken: start && push.inputPushToken == true && push.inputPushChannel == nil ? 1 : nil,
            inputPushChannel: start ? push.inputPushChannel : nil)
    }
}
