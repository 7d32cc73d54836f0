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

    public init(
        activity: ActivityKey, attributesType: String, entity: EntityKey, startedAt: Int, looks: [String: Int] = [:],
        changedAt: Int? = nil
    ) {
        self.activity = activity
        self.attributesType = attributesType
        self.entity = entity
        self.startedAt = startedAt
        self.looks = looks
        self.changedAt = changedAt
    }
}
