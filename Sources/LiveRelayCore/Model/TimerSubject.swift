/// One live activity as the timer rules see it: what decides whether a timer rule is due for it, without its
/// content-state (a timer pass reads this for every live activity, the rest only for those due).
public struct TimerSubject: Sendable, Hashable {
    public var activity: ActivityKey
    public var attributesType: String
    /// The entity of the activity's last push: timer rules of its feed apply, and see its facts.
    public var entity: EntityKey
    /// The timestamp of the activity's start.
    public var startedAt: Int
    /// When each timer rule last came due for it, by rule id.
    public var looks: [String: Int]
    /// When the entity's facts last changed; `nil` when the feed no longer has the entity.
    public var changedAt: Int?
    /// The light part of the activity's view, read with the due times: its phase (`pending` or `active`),
    /// the timestamp of its last push and of its last delivered one. A rule that reads no more of the
    /// activity (nor the facts) is decided from these without reading the activity's record.
    public var phase: String
    public var pushedAt: Int?
    public var sentAt: Int?
    /// The timestamp of the activity's last push that changed its content-state (`activity.changed-at`).
    public var activityChangedAt: Int?
    /// When each fact a `quiet` rule names last changed in the entity, by the name the rule gives; a name
    /// missing has not changed since LiveRelay began watching it.
    public var factsChangedAt: [String: Int]

    public init(
        activity: ActivityKey, attributesType: String, entity: EntityKey, startedAt: Int, looks: [String: Int] = [:],
        changedAt: Int? = nil, phase: String = "active", pushedAt: Int? = nil, sentAt: Int? = nil,
        activityChangedAt: Int? = nil, factsChangedAt: [String: Int] = [:]
    ) {
        self.activity = activity
        self.attributesType = attributesType
        self.entity = entity
        self.startedAt = startedAt
        self.looks = looks
        self.changedAt = changedAt
        self.phase = phase
        self.pushedAt = pushedAt
        self.sentAt = sentAt
        self.activityChangedAt = activityChangedAt
        self.factsChangedAt = factsChangedAt
    }
}
