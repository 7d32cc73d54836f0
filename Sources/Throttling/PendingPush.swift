public import LiveRelayCore

/// A push the ledger decided and the throttle has not released yet. Its priority is not final: the throttle
/// chooses it at release from the policy and the activity's budget.
public struct PendingPush: Sendable, Hashable, Codable {
    /// The full push; `push.priority` is provisional until release.
    public var push: LiveActivityPush
    public var policy: PriorityPolicy
    public var whenBudgetSpent: BudgetExhaustion
    /// When the first of the pushes merged into this one was queued: the tie-breaker "oldest first".
    public var enqueuedAt: Int
    /// How many later pushes were merged into this one.
    public var coalesced: Int

    public init(
        push: LiveActivityPush, policy: PriorityPolicy, whenBudgetSpent: BudgetExhaustion = .downgrade, enqueuedAt: Int
    ) {
        self.push = push
        self.policy = policy
        self.whenBudgetSpent = whenBudgetSpent
        self.enqueuedAt = enqueuedAt
        coalesced = 0
    }

    /// Latest wins: the newer push's state and timestamp, the older's place in the queue, the highest
    /// relevance and the alert that goes with it, the strongest policy, the start's attributes if either is a
    /// start, and every rule id.
    public func merged(with newer: PendingPush) -> PendingPush {
        var out = newer
        out.enqueuedAt = min(enqueuedAt, newer.enqueuedAt)
        out.coalesced = coalesced + newer.coalesced + 1
        out.policy = policy.merged(with: newer.policy)
        out.whenBudgetSpent = whenBudgetSpent == .hold || newer.whenBudgetSpent == .hold ? .hold : .downgrade
        let olderRelevance = push.relevanceScore?.value ?? -1
        let newerRelevance = newer.push.relevanceScore?.value ?? -1
        out.push.relevanceScore = olderRelevance > newerRelevance ? push.relevanceScore : newer.push.relevanceScore
        if newer.push.alert == nil || (push.alert != nil && olderRelevance > newerRelevance) {
            out.push.alert = push.alert ?? newer.push.alert
        }
        if push.event == .start, newer.push.event != .end {
            out.push.event = .start
            out.push.attributes = push.attributes
        }
        if push.event == .end { out.push.event = .end }
        out.push.dismissalDate = newer.push.dismissalDate ?? push.dismissalDate
        out.push.ruleIDs = push.ruleIDs + newer.push.ruleIDs
        return out
    }
}
