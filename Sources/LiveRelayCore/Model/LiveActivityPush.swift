/// One push for one Live Activity, ready for a provider: the full content-state (never a diff), a timestamp
/// strictly greater than the activity's previous one, and the priority the throttle chose.
///
/// Its fields sit behind one reference (``CopyOnWrite``): a push goes from stage to stage (the rules, the
/// ledger, the throttle, the release) and is copied at each, and a copy is one retain where a copy of the
/// fields is one per string, array and JSON value in them.
public struct LiveActivityPush: Sendable, Hashable, Codable {
    /// The stored fields (their names are the push's JSON keys).
    struct Fields: Sendable, Hashable, Codable {
        var activity: ActivityKey
        var attributesType: String
        var event: PushEvent
        var timestamp: Int
        var contentState: JSONValue
        var attributes: JSONValue?
        var alert: LiveActivityAlert?
        var relevanceScore: RelevanceScore?
        var staleDate: Int?
        var dismissalDate: Int?
        var priority: PushPriority
        var ruleIDs: [String]
        var entity: EntityKey?
        var inputPushToken: Bool?
        var inputPushChannel: String?
        var device: String?
    }

    @CopyOnWrite private var fields: Fields

    /// Which activity.
    public var activity: ActivityKey {
        get { fields.activity }
        _modify { yield &fields.activity }
    }
    /// The Swift type name of the app's `ActivityAttributes`.
    public var attributesType: String {
        get { fields.attributesType }
        _modify { yield &fields.attributesType }
    }
    public var event: PushEvent {
        get { fields.event }
        _modify { yield &fields.event }
    }
    /// UNIX seconds; devices drop a push whose timestamp is not newer than the last one they saw.
    public var timestamp: Int {
        get { fields.timestamp }
        _modify { yield &fields.timestamp }
    }
    /// The whole content-state after merging this change's patch.
    public var contentState: JSONValue {
        get { fields.contentState }
        _modify { yield &fields.contentState }
    }
    /// Static attributes, for `start` only.
    public var attributes: JSONValue? {
        get { fields.attributes }
        _modify { yield &fields.attributes }
    }
    public var alert: LiveActivityAlert? {
        get { fields.alert }
        _modify { yield &fields.alert }
    }
    public var relevanceScore: RelevanceScore? {
        get { fields.relevanceScore }
        _modify { yield &fields.relevanceScore }
    }
    /// UNIX seconds after which the system shows the activity as stale.
    public var staleDate: Int? {
        get { fields.staleDate }
        _modify { yield &fields.staleDate }
    }
    /// UNIX seconds at which an ended activity leaves the lock screen.
    public var dismissalDate: Int? {
        get { fields.dismissalDate }
        _modify { yield &fields.dismissalDate }
    }
    public var priority: PushPriority {
        get { fields.priority }
        _modify { yield &fields.priority }
    }
    /// The rules whose firing made this push, for logs and `replay` output.
    public var ruleIDs: [String] {
        get { fields.ruleIDs }
        _modify { yield &fields.ruleIDs }
    }
    /// The feed entity whose change made this push; a `start` goes to the devices subscribed to it.
    /// Optional so throttle states saved before it existed still decode.
    public var entity: EntityKey? {
        get { fields.entity }
        _modify { yield &fields.entity }
    }
    /// For `start` (iOS 18): ask the device to report the new activity's update token
    /// (APNs `input-push-token`). Optional so older saved states still decode.
    public var inputPushToken: Bool? {
        get { fields.inputPushToken }
        _modify { yield &fields.inputPushToken }
    }
    /// For `start` (iOS 18): the broadcast channel the new activity subscribes to (APNs
    /// `input-push-channel`); the provider sets it for a target that subscribes by channel, it is never
    /// queued.
    public var inputPushChannel: String? {
        get { fields.inputPushChannel }
        _modify { yield &fields.inputPushChannel }
    }
    /// For a late joiner's `start`: the one device it goes to (a device that subscribed to the entity after
    /// the activity started); `nil` sends to every device subscribed to the entity.
    public var device: String? {
        get { fields.device }
        _modify { yield &fields.device }
    }

    public init(
        activity: ActivityKey, attributesType: String, event: PushEvent, timestamp: Int, contentState: JSONValue,
        attributes: JSONValue? = nil, alert: LiveActivityAlert? = nil, relevanceScore: RelevanceScore? = nil,
        staleDate: Int? = nil, dismissalDate: Int? = nil, priority: PushPriority, ruleIDs: [String] = [],
        entity: EntityKey? = nil, inputPushToken: Bool? = nil
    ) {
        fields = Fields(
            activity: activity, attributesType: attributesType, event: event, timestamp: timestamp,
            contentState: contentState, attributes: attributes, alert: alert, relevanceScore: relevanceScore,
            staleDate: staleDate, dismissalDate: dismissalDate, priority: priority, ruleIDs: ruleIDs,
            entity: entity, inputPushToken: inputPushToken, inputPushChannel: nil, device: nil)
    }

    public init(from decoder: any Decoder) throws { fields = try Fields(from: decoder) }

    public func encode(to encoder: any Encoder) throws { try fields.encode(to: encoder) }

    public static func == (a: LiveActivityPush, b: LiveActivityPush) -> Bool {
        a.$fields.shares(b.$fields) || a.fields == b.fields
    }

    public func hash(into hasher: inout Hasher) { fields.hash(into: &hasher) }
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
