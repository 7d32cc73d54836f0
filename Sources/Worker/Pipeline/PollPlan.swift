public import Feeds
public import LiveRelayCore
public import Rules
public import Throttling

/// Everything one poll of one feed decided, before delivery: each change, the rules it fired, and what the
/// ledger made of them. `replay` prints it; `tick` and `run` deliver its pushes.
public struct PollPlan: Sendable {
    public var feed: String
    public var now: Int
    /// Set when the body could not be used; then there are no steps and nothing was saved.
    public var feedError: FeedError?
    /// True when the server answered 304 Not Modified.
    public var notModified: Bool = false
    /// Number of entities the body held.
    public var entityCount: Int = 0
    public var steps: [ChangeStep] = []

    /// The pushes handed to the throttle, in decision order.
    public var pushes: [PendingPush] {
        steps.flatMap(\.decisions).compactMap { if case .push(let p) = $0 { return p } else { return nil } }
    }

    public init(feed: String, now: Int) {
        self.feed = feed
        self.now = now
    }
}

/// One entity's change and its consequences.
public struct ChangeStep: Sendable {
    public var change: FeedChange
    /// Ids of the rules whose `when` held.
    public var fired: [String]
    public var errors: [RuleError]
    public var decisions: [LedgerDecision]
    /// What the throttle did with each push of `decisions` (queued, or merged into a pending one).
    public var queued: [ActivityKey: SubmitOutcome] = [:]
    /// For a timer look: the timer rules that came due (`id (every 600 s)`); empty for a change.
    public var timers: [String] = []
}
