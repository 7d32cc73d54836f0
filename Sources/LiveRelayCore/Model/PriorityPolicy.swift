/// What a push that wants priority 10 does when its activity's budget is spent.
public enum BudgetExhaustion: String, Sendable, Hashable, Codable, CaseIterable {
    /// Go out now at priority 5, without its alert.
    case downgrade
    /// Wait until a priority-10 push returns to the budget, then go out at 10 with its alert.
    case hold
}

/// How a rule asks for its pushes to be prioritised; the throttle turns it into an APNs priority.
public enum PriorityPolicy: String, Sendable, Hashable, Codable, CaseIterable {
    /// Priority 10 while the activity's budget lasts.
    case high
    /// Priority 5: delivered when the device sees fit; does not count against the budget.
    case low
    /// Priority 10 for changes with an alert or a relevance at or above the configured threshold, else 5.
    case auto

    /// The stronger of two policies, for merging several rules firing on one change.
    public func merged(with other: PriorityPolicy) -> PriorityPolicy {
        if self == .high || other == .high { return .high }
        if self == .auto || other == .auto { return .auto }
        return .low
    }
}
