public import LiveRelayCore

/// What the ledger made of the intents for one activity after one change.
public enum LedgerDecision: Sendable, Hashable {
    /// Hand this push to the throttle.
    case push(PendingPush)
    /// Nothing to send, and why (for logs and `replay`).
    case skip(activity: ActivityKey, ruleIDs: [String], reason: SkipReason)
}

/// Why an intent produced no push.
public enum SkipReason: Sendable, Hashable, CustomStringConvertible {
    /// The merged content-state equals the last one sent.
    case unchanged
    /// An update or end for an activity that was never started (or already ended).
    case notStarted
    /// A start for an activity that has already ended; it is not started again for the same key.
    case alreadyEnded
    /// The state (or a start's attributes) breaks the attributes type's content-state contract: the app
    /// could not decode it, so it is never sent; the activity keeps its last state.
    case breaksContract(String)

    public var description: String {
        switch self {
        case .breaksContract(let breach): return "refused by the contract: \(breach)"
        case .unchanged: return "content-state unchanged since the last push"
        case .notStarted: return "the activity is not running"
        case .alreadyEnded: return "the activity has already ended"
        }
    }
}
