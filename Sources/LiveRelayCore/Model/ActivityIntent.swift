/// What one rule wants done to one Live Activity after one change: the rule engine's output and the
/// ledger's input. Expressions are already evaluated; `patch` holds only the fields this rule sets.
public struct ActivityIntent: Sendable, Hashable {
    public var activity: ActivityKey
    public var attributesType: String
    public var event: PushEvent
    /// Content-state fields to set, as a JSON merge patch (RFC 7386): nested objects merge, `null` removes.
    public var patch: [String: JSONValue]
    /// Static attributes for `start`.
    public var attributes: JSONValue?
    public var alert: LiveActivityAlert?
    public var relevance: RelevanceScore?
    public var priority: PriorityPolicy
    /// What to do when the activity's priority-10 budget is spent.
    public var whenBudgetSpent: BudgetExhaustion
    /// Seconds after `now` at which the state is stale.
    public var staleAfter: Int?
    /// Seconds after `now` at which an ended activity is dismissed.
    public var dismissalAfter: Int?
    /// The rule that produced this intent, and the entity change that made it fire.
    public var ruleID: String
    public var entity: EntityKey
    /// The entity's facts when the rule fired, kept with the activity as `activity.facts`.
    public var facts: JSONValue?
    /// True when a timer rule made the intent (it came due; no fact changed).
    public var timer: Bool
    /// For a start: whether a device that subscribes to the entity while the activity runs gets a start too
    /// (its rule file's `late-join`).
    public var lateJoin: Bool
    /// For a personal rule's intent: the subscription whose activity it is (a start goes to its device
    /// alone); `nil` for a shared rule's.
    public var subscription: SubscriptionOwner?

    public init(
        activity: ActivityKey, attributesType: String, event: PushEvent, patch: [String: JSONValue] = [:],
        attributes: JSONValue? = nil, alert: LiveActivityAlert? = nil, relevance: RelevanceScore? = nil,
        priority: PriorityPolicy = .auto, whenBudgetSpent: BudgetExhaustion = .downgrade, staleAfter: Int? = nil,
        dismissalAfter: Int? = nil, ruleID: String,
        entity: EntityKey, facts: JSONValue? = nil, timer: Bool = false, lateJoin: Bool = true
    ) {
        self.lateJoin = lateJoin
        self.facts = facts
        self.timer = timer
        self.activity = activity
        self.attributesType = attributesType
        self.event = event
        self.patch = patch
        self.attributes = attributes
        self.alert = alert
        self.relevance = relevance
        self.priority = priority
        self.whenBudgetSpent = whenBudgetSpent
        self.staleAfter = staleAfter
        self.dismissalAfter = dismissalAfter
        self.ruleID = ruleID
        self.entity = entity
    }
}
