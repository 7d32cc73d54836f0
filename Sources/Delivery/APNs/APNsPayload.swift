import LiveRelayCore

/// The JSON body APNs expects for a Live Activity push.
public struct APNsPayload: Sendable, Hashable, Codable {
    public var aps: APS

    /// The `aps` dictionary of a Live Activity push.
    public struct APS: Sendable, Hashable, Codable {
        public var timestamp: Int
        public var event: PushEvent
        public var contentState: JSONValue
        public var attributesType: String?
        public var attributes: JSONValue?
        public var alert: LiveActivityAlert?
        public var relevanceScore: RelevanceScore?
        public var staleDate: Int?
        public var dismissalDate: Int?

        enum CodingKeys: String, CodingKey {
            case timestamp, event, alert, attributes
            case contentState = "content-state"
            case attributesType = "attributes-type"
            case relevanceScore = "relevance-score"
            case staleDate = "stale-date"
            case dismissalDate = "dismissal-date"
        }
    }

    public init(_ push: LiveActivityPush) {
        aps = APS(
            timestamp: push.timestamp, event: push.event, contentState: push.contentState,
            attributesType: push.event == .start ? push.attributesType : nil,
            attributes: push.event == .start ? (push.attributes ?? .emptyObject) : nil, alert: push.alert,
            relevanceScore: push.relevanceScore, staleDate: push.staleDate, dismissalDate: push.dismissalDate)
    }
}
