/// One push for one Live Activity, ready for a provider: the full content-state (never a diff), a timestamp
/// strictly greater than the activity's previous one, and the priority the throttle chose.
public struct LiveActivityPush: Sendable, Hashable, Codable {
    /// Which activity.
    public var activity: ActivityKey
    /// The Swift type name of the app's `ActivityAttributes`.
    public var attributesType: String
    public var event: PushEvent
    /// UNIX seconds; devices drop a push whose timestamp is not newer than the last one they saw.
    public var timestamp: Int
    /// The whole content-state after merging this change's patch.
    public var contentState: JSONValue
    /// Static attributes, for `start` only.
    public var attributes: JSONValue?
    public var alert: LiveActivityAlert?
    public var relevanceScore: RelevanceScore?
    /// UNIX seconds after which the system shows the activity as stale.
    public var staleDate: Int?
    /// UNIX seconds at which an ended activity leaves the lock screen.
    public var dismissalDate: Int?
    public var priority: PushPriority
    /// The rules whose firing made this push, for logs and `replay` output.
    public var ruleIDs: [String]
    /// The feed entity whose change made this push; a `start` goes to the devices subscribed to it.
    /// Optional so throttle states saved before it existed still decode.
    public var entity: EntityKey?
    /// For `start` (iOS 18): ask the device to report the new activity's update token
    /// (APNs `input-push-token`). Optional so older saved states still decode.
    public var inputPushToken: Bool?
    /// For `start` (iOS 18): the broadcast channel the new activity subscribes to (APNs
    /// `input-push-channel`); the provider sets it for a target that subscribes by channel, it is never
    /// queued.
    public var inputPushChannel: String?
    /// For a late joiner's `start`: the one device it goes to (a device that subscribed to the entity after
    /// the activity started); `nil` sends to every device subscribed to the entity.
    public var device: String?

    public init(
        activity: ActivityKey, attributesType: String, event: PushEvent, timestamp: Int, contentState: JSONValue,
        attributes: JSONValue? = nil, alert: LiveActivityAlert? = nil, relevanceScore: RelevanceScore? = nil,
        staleDate: Int? = nil, dismissalDate: Int? = nil, priority: PushPriority, ruleIDs: [String] = [],
        entity: EntityKey? = nil, inputPushToken: Bool? = nil
    ) {
        self.activity = activity
        self.attributesType = attributesType
        self.event = event
        self.timestamp = timestamp
        self.contentState = contentState
        self.attributes = attributes
        self.alert = alert
        self.relevanceScore = relevanceScore
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.priority = priority
        self.ruleIDs = ruleIDs
        self.entity = entity
        self.inputPushToken = inputPushToken
    }
}

/// One push of one activity: its activity and timestamp (timestamps strictly increase per activity).
public struct PushID: Sendable, Hashable {
    /// The activity.
    public var activity: ActivityKey
    /// The push's timestamp.
    public var timestamp: Int

    /// Creates an id.
    public init(activity: ActivityKey, timestamp: Int) {
        self.activity = activity
        self.timestamp = timestamp
    }
}

extension LiveActivityPush {
    /// Its activity and timestamp.
    public var id: PushID { PushID(activity: activity, timestamp: timestamp) }
}

/// The rule ids of what LiveRelay decides without a rule: no rule file may name a rule so.
public enum ReservedRuleID {
    /// A late joiner's start (a device that followed the entity while its activity ran).
    public static let lateJoin = "late-join"
    /// The end of a deleted subscription's activity.
    public static let subscriptionDeleted = "subscription-deleted"
    /// Every reserved id.
    public static let all: Set<String> = [lateJoin, subscriptionDeleted]
}

extension LiveActivityPush {
    /// Whether this is a late joiner's start, not one a rule decided.
    public var isLateJoin: Bool { event == .start && ruleIDs == [ReservedRuleID.lateJoin] }
}
