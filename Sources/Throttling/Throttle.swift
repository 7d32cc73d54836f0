import LiveRelayCore

/// Settings of the throttle, per attributes type where it matters.
public struct ThrottleConfiguration: Sendable, Hashable {
    public var defaultBudget: BudgetPolicy
    /// Budgets by attributes type.
    public var budgets: [String: BudgetPolicy]
    /// Seconds between two pushes of one activity, so timestamps stay distinct and devices keep every update.
    public var minimumInterval: Int
    /// `auto` wants priority 10 at or above this relevance (and always with an alert).
    public var autoRelevanceThreshold: Double

    public init(
        defaultBudget: BudgetPolicy = .conservative, budgets: [String: BudgetPolicy] = [:], minimumInterval: Int = 1,
        autoRelevanceThreshold: Double = 75
    ) {
        self.defaultBudget = defaultBudget
        self.budgets = budgets
        self.minimumInterval = minimumInterval
        self.autoRelevanceThreshold = autoRelevanceThreshold
    }

    public func budget(for attributesType: String) -> BudgetPolicy { budgets[attributesType] ?? defaultBudget }
}

/// Keeps every activity within Apple's push budget while the important moments still go out at once.
///
/// At most one push is pending per activity (a newer one merges into it, latest state wins). Release picks
/// ready pushes by highest relevance, then oldest, up to the provider's allowance; a push that wants
/// priority 10 gets it while the activity's budget lasts, then is downgraded to 5 without its alert, or held
/// until the budget refills when its rule says so. Starts are push-to-start and do not count against the
/// activity's budget. Pure: `now` is a parameter, the caller persists `states`.
public struct Throttle: Sendable {
    public var configuration: ThrottleConfiguration
    /// Every activity the throttle knows, with its budget window and pending push.
    public private(set) var states: [ActivityKey: ActivityThrottleState] = [:]
    /// The pending pushes' release order and earliest release time, kept beside `states` so a release scans
    /// small values instead of copying whole states.
    private var pendingIndex: [ActivityKey: PendingEntry] = [:]

    private struct PendingEntry {
        var relevance: Double
        var enqueuedAt: Int
        var readyAt: Int
    }

    public init(configuration: ThrottleConfiguration = ThrottleConfiguration()) {
        self.configuration = configuration
    }

    /// Puts back states saved earlier (by a previous cron tick).
    public mutating func restore(_ saved: [ActivityKey: ActivityThrottleState]) {
        for (key, state) in saved {
            states[key] = state
            reindex(key)
        }
    }

    /// Number of activities with a pending push.
    public var pendingCount: Int { pendingIndex.count }

    private mutating func reindex(_ key: ActivityKey) {
        pendingIndex[key] = states[key].flatMap { Throttle.entry($0, minimumInterval: configuration.minimumInterval) }
    }

    /// The index entry of a state (read in place: no copy of the pending push).
    private static func entry(_ state: borrowing ActivityThrottleState, minimumInterval: Int) -> PendingEntry? {
        guard let relevance = state.pending.map({ $0.push.relevanceScore?.value ?? 0 }),
            let enqueuedAt = state.pending?.enqueuedAt
        else { return nil }
        var t = enqueuedAt
        if let last = state.lastSentAt { t = max(t, last + minimumInterval) }
        if let held = state.heldUntil { t = max(t, held) }
        return PendingEntry(relevance: relevance, enqueuedAt: enqueuedAt, readyAt: t)
    }

    /// Records that an activity's app reported frequent updates on or off (a larger budget).
    public mutating func setFrequentUpdates(_ on: Bool, for activity: ActivityKey, attributesType: String) {
        states[activity, default: ActivityThrottleState(attributesType: attributesType)].frequentUpdates = on
    }

    /// Hands a push to the throttle.
    @discardableResult
    public mutating func submit(_ pending: PendingPush, now: Int) -> SubmitOutcome {
        let key = pending.push.activity
        // Mutated in place, and indexed from the same access: no copy of the state, one hash.
        let minimumInterval = configuration.minimumInterval
        let (outcome, entry) = Throttle.enqueue(
            pending, now: now, minimumInterval: minimumInterval,
            into: &states[key, default: ActivityThrottleState(attributesType: pending.push.attributesType)])
        pendingIndex[key] = entry
        return outcome
    }

    private static func enqueue(
        _ pending: PendingPush, now: Int, minimumInterval: Int, into state: inout ActivityThrottleState
    ) -> (SubmitOutcome, PendingEntry?) {
        // A state made before the first push (frequent updates reported early) learns its type now.
        if state.attributesType.isEmpty { state.attributesType = pending.push.attributesType }
        let outcome: SubmitOutcome
        if let existing = state.pending.take() {
            state.pending = existing.merged(with: pending)
            state.stats.coalesced += 1
            outcome = .coalesced(into: existing.push.ruleIDs)
        } else {
            var queued = pending
            queued.enqueuedAt = min(pending.enqueuedAt, now)
            state.pending = queued
            outcome = .queued
        }
        return (outcome, entry(state, minimumInterval: minimumInterval))
    }

    /// When the earliest pending push can next be released, if any is pending.
    public func nextWakeup() -> Int? {
        pendingIndex.values.lazy.map(\.readyAt).min()
    }

    /// Releases up to `limit` ready pushes (the provider's allowance now), most relevant first, then oldest.
    /// Pushes held for the budget are reported once when they start waiting.
    public mutating func release(now: Int, limit: Int = .max) -> [ThrottleDecision] {
        var ready: [(key: ActivityKey, relevance: Double, enqueuedAt: Int)] = []
        ready.reserveCapacity(pendingIndex.count)
        for (key, entry) in pendingIndex where entry.readyAt <= now {
            ready.append((key, entry.relevance, entry.enqueuedAt))
        }
        ready.sort {
            $0.relevance != $1.relevance
                ? $0.relevance > $1.relevance
                : $0.enqueuedAt != $1.enqueuedAt ? $0.enqueuedAt < $1.enqueuedAt : $0.key < $1.key
        }
        var decisions: [ThrottleDecision] = []
        var sent = 0
        for entry in ready {
            if sent >= limit { break }
            let decision = Throttle.decide(
                entry.key, now: now, configuration: configuration, state: &states[entry.key]!)
            if case .send? = decision {
                sent += 1
                pendingIndex[entry.key] = nil
            } else {
                reindex(entry.key)
            }
            if let decision { decisions.append(decision) }
        }
        return decisions
    }

    private static func decide(
        _ key: ActivityKey, now: Int, configuration: ThrottleConfiguration, state: inout ActivityThrottleState
    ) -> ThrottleDecision? {
        // Moved out, not copied; put back only when the push is held.
        var pending = state.pending.take()!
        let budget = configuration.budget(for: state.attributesType)
        let size = state.frequentUpdates ? budget.frequentUpdatesSize : budget.size
        state.window.expire(now: now, period: budget.period)
        let isStart = pending.push.event == .start
        let wantsHigh: Bool
        switch pending.policy {
        case .high: wantsHigh = true
        case .low: wantsHigh = false
        case .auto:
            wantsHigh =
                pending.push.alert != nil
                || (pending.push.relevanceScore?.value ?? 0) >= configuration.autoRelevanceThreshold
        }
        var downgraded = false
        if isStart {
            pending.push.priority = .high
        } else if wantsHigh, state.window.remaining(size: size) > 0 {
            pending.push.priority = .high
            state.window.record(now)
        } else if wantsHigh, pending.whenBudgetSpent == .hold {
            let until = state.window.nextRefill(size: size, period: budget.period) ?? now
            let first = state.heldUntil == nil
            state.heldUntil = until
            if first { state.stats.held += 1 }
            state.pending = pending
            return first ? .held(key, until: until, ruleIDs: pending.push.ruleIDs) : nil
        } else {
            downgraded = wantsHigh
            pending.push.priority = .low
        }
        if pending.push.priority == .low { pending.push.alert = nil }
        if isStart {
            state.stats.starts += 1
        } else if pending.push.priority == .high {
            state.stats.sentHigh += 1
        } else {
            state.stats.sentLow += 1
        }
        if downgraded { state.stats.downgraded += 1 }
        state.pending = nil
        state.heldUntil = nil
        state.lastSentAt = now
        return .send(pending.push, downgraded: downgraded)
    }
}
