public import LiveRelayCore

/// What the throttle did with a pending push at release time.
public enum ThrottleDecision: Sendable, Hashable {
    /// Send it now. `downgraded` is true when it wanted priority 10 and went out at 5 (without its alert)
    /// because the activity's budget was spent.
    case send(LiveActivityPush, downgraded: Bool)
    /// It wants priority 10, its rule says hold, and the budget is spent: it waits until `until`.
    case held(ActivityKey, until: Int, ruleIDs: [String])

    /// The activity the decision is about.
    public var activity: ActivityKey {
        switch self {
        case .send(let push, _): push.activity
        case .held(let key, _, _): key
        }
    }
}

/// What happened to a push handed to the throttle.
public enum SubmitOutcome: Sendable, Hashable {
    /// Queued as the activity's pending push.
    case queued
    /// Merged into the push already pending for the activity (latest wins); it will not go out on its own.
    case coalesced(into: [String])
}

/// Per-activity counts, for summaries and metrics.
public struct ThrottleStats: Sendable, Hashable, Codable {
    /// Push-to-start pushes (always priority 10, outside the update budget).
    public var starts = 0
    /// Updates and ends sent at priority 10 (each spent budget).
    public var sentHigh = 0
    public var sentLow = 0
    public var downgraded = 0
    public var coalesced = 0
    public var held = 0
    public init() {}
}

/// The throttle's memory of one activity; persisted between cron ticks.
public struct ActivityThrottleState: Sendable, Hashable, Codable {
    public var attributesType: String
    public var window = SendWindow()
    public var lastSentAt: Int?
    public var pending: PendingPush?
    /// Set while the pending push waits for the budget.
    public var heldUntil: Int?
    /// The app reported that the user enabled frequent updates.
    public var frequentUpdates = false
    public var stats = ThrottleStats()

    public init(attributesType: String) { self.attributesType = attributesType }
}
