public import LiveRelayCore

/// Settings of the throttle, per attributes type where it matters.
public struct ThrottleConfiguration: Sendable, Hashable {
    public var defaultBudget: BudgetPolicy
    /// Budgets by attributes type.
    public var budgets: [String: BudgetPolicy]
    /// Seconds between two pushes of one activity, so timestamps stay distinct and devices keep every update.
    public var minimumInterval: Int
    /// `auto` wants priority 10 at or above this relevance (and always with an alert).
    public var autoRelevanceThreshold: Double
    /// Each lane's request rate (a lane is the provider a push goes to, by its id); a lane not listed has
    /// no limit.
    public var lanes: [String: RequestRate]

    public init(
        defaultBudget: BudgetPolicy = .conservative, budgets: [String: BudgetPolicy] = [:], minimumInterval: Int = 1,
        autoRelevanceThreshold: Double = 75, lanes: [String: RequestRate] = [:]
    ) {
        self.defaultBudget = defaultBudget
        self.budgets = budgets
        self.minimumInterval = minimumInterval
        self.autoRelevanceThreshold = autoRelevanceThreshold
        self.lanes = lanes
    }

    public func budget(for attributesType: String) -> BudgetPolicy { budgets[attributesType] ?? defaultBudget }
}

/// Keeps every activity within Apple's push budget while the important moments still go out at once.
///
/// At most one push is pending per activity (a newer one merges into it, latest state wins). Release picks
/// ready pushes by highest relevance, then oldest, up to the provider's allowance; a push that wants
/// priority 10 gets it while the activity's budget lasts, then is downgraded to 5 without its alert, or held
/// until the budget refills when its rule says so. Starts are push-to-start and do not count against the
/// activity's budget. Each push draws from the request rate of its lane (the provider it goes to): a lane
/// whose bucket is empty waits, the others go on. Pure: `now` is a parameter, the caller persists `states`.
public struct Throttle: Sendable {
    public let configuration: ThrottleConfiguration
    /// Each lane's token bucket (``ThrottleConfiguration/lanes``), kept in memory: a new process starts
    /// with full buckets.
    private var buckets: [String: TokenBucket]
    /// Every activity's state, in the order the throttle first saw it; `slotOf` finds one by key. A slot is
    /// never removed, so an index stays valid and a release never hashes a key.
    private var slots: [ActivityThrottleState] = []
    private var keys: [ActivityKey] = []
    private var slotOf: [ActivityKey: Int] = [:]
    /// The pending pushes' release order and earliest release time, by slot, kept beside the states so a
    /// release scans small values instead of whole states; `pendingSlots` lists the slots that have one.
    private var entries: [PendingEntry?] = []
    private var pendingSlots: [Int] = []
    private var pendingPosition: [Int] = []

    private struct PendingEntry {
        var relevance: Double
        var enqueuedAt: Int
        var readyAt: Int
    }

    public init(configuration: ThrottleConfiguration = ThrottleConfiguration()) {
        self.configuration = configuration
        buckets = configuration.lanes.mapValues { TokenBucket(rate: $0.rate, burst: $0.burst, now: 0) }
    }

    /// Every activity the throttle knows, with its budget window and pending push (built on each call).
    public var states: [ActivityKey: ActivityThrottleState] {
        Dictionary(uniqueKeysWithValues: zip(keys, slots))
    }

    /// One activity's state, if the throttle knows the activity.
    public func state(for key: ActivityKey) -> ActivityThrottleState? {
        slotOf[key].map { slots[$0] }
    }

    /// Whether the throttle holds a state for the activity (restored or made by a push).
    public func knows(_ key: ActivityKey) -> Bool { slotOf[key] != nil }

    /// Number of activities the throttle holds.
    public var count: Int { slots.count }

    /// Puts back states saved earlier (by a previous cron tick); a state replaces the one held for its key.
    public mutating func restore(_ saved: [ActivityKey: ActivityThrottleState]) {
        for (key, state) in saved {
            let slot = self.slot(key, attributesType: state.attributesType)
            slots[slot] = state
            setEntry(slot, Throttle.entry(slots[slot], minimumInterval: configuration.minimumInterval))
        }
    }

    /// Number of activities with a pending push.
    public var pendingCount: Int { pendingSlots.count }

    /// The slot of `key`, made (empty) when the throttle has not seen it.
    private mutating func slot(_ key: ActivityKey, attributesType: String) -> Int {
        if let slot = slotOf[key] { return slot }
        let slot = slots.count
        slots.append(ActivityThrottleState(attributesType: attributesType))
        keys.append(key)
        entries.append(nil)
        pendingPosition.append(-1)
        slotOf[key] = slot
        return slot
    }

    private mutating func setEntry(_ slot: Int, _ entry: PendingEntry?) {
        entries[slot] = entry
        let position = pendingPosition[slot]
        if entry != nil, position < 0 {
            pendingPosition[slot] = pendingSlots.count
            pendingSlots.append(slot)
        } else if entry == nil, position >= 0 {
            let last = pendingSlots.removeLast()
            if last != slot {
                pendingSlots[position] = last
                pendingPosition[last] = position
            }
            pendingPosition[slot] = -1
        }
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
        slots[slot(activity, attributesType: attributesType)].frequentUpdates = on
    }

    /// Hands a push to the throttle.
    @discardableResult
    public mutating func submit(_ pending: consuming PendingPush, now: Int) -> SubmitOutcome {
        let slot = self.slot(pending.push.activity, attributesType: pending.push.attributesType)
        // Mutated in place, and indexed from the same access: no copy of the state.
        let (outcome, entry) = Throttle.enqueue(
            pending, now: now, minimumInterval: configuration.minimumInterval, into: &slots[slot])
        setEntry(slot, entry)
        return outcome
    }

    private static func enqueue(
        _ pending: consuming PendingPush, now: Int, minimumInterval: Int, into state: inout ActivityThrottleState
    ) -> (SubmitOutcome, PendingEntry?) {
        // A state made before the first push (frequent updates reported early) learns its type now.
        if state.attributesType.isEmpty { state.attributesType = pending.push.attributesType }
        let outcome: SubmitOutcome
        if let existing = state.pending.take() {
            state.pending = existing.merged(with: pending)
            state.stats.coalesced += 1
            outcome = .coalesced(into: existing.push.ruleIDs)
        } else {
            pending.enqueuedAt = min(pending.enqueuedAt, now)
            state.pending = pending
            outcome = .queued
        }
        return (outcome, entry(state, minimumInterval: minimumInterval))
    }

    /// When the earliest pending push can next be released, if any is pending.
    public func nextWakeup() -> Int? {
        pendingSlots.lazy.compactMap { entries[$0]?.readyAt }.min()
    }

    /// Releases up to `limit` ready pushes (the provider's allowance now), most relevant first, then oldest.
    /// Pushes held for the budget are reported once when they start waiting.
    public mutating func release(now: Int, limit: Int = .max) -> [ThrottleDecision] {
        var remaining = [limit]
        return release(now: now, remaining: &remaining, lane: { _ in 0 })
    }

    /// Releases ready pushes most relevant first, then oldest, each within the request rate of its lane
    /// (``ThrottleConfiguration/lanes``): `lane` names the lane a pending push goes to. A lane that has spent
    /// its bucket skips its pushes and the others go on; a lane without a rate has no limit.
    public mutating func release(now: Int, lane: (LiveActivityPush) -> String) -> [ThrottleDecision] {
        let names = Array(buckets.keys)
        var remaining = names.map { buckets[$0]!.available(now: Double(now)) } + [.max]
        let allowed = remaining
        let decisions = release(now: now, remaining: &remaining) { state in
            state.pending.map { names.firstIndex(of: lane($0.push)) ?? names.count } ?? names.count
        }
        for (index, name) in names.enumerated() where allowed[index] > remaining[index] {
            buckets[name]!.take(allowed[index] - remaining[index], now: Double(now))
        }
        return decisions
    }

    /// The release: `remaining` is each lane's allowance, `lane` the lane index of a state's pending push.
    private mutating func release(
        now: Int, remaining: inout [Int], lane: (borrowing ActivityThrottleState) -> Int
    ) -> [ThrottleDecision] {
        var ready: [(slot: Int, relevance: Double, enqueuedAt: Int)] = []
        ready.reserveCapacity(pendingSlots.count)
        for slot in pendingSlots {
            if let entry = entries[slot], entry.readyAt <= now {
                ready.append((slot, entry.relevance, entry.enqueuedAt))
            }
        }
        let keys = self.keys
        ready.sort {
            $0.relevance != $1.relevance
                ? $0.relevance > $1.relevance
                : $0.enqueuedAt != $1.enqueuedAt ? $0.enqueuedAt < $1.enqueuedAt : keys[$0.slot] < keys[$1.slot]
        }
        var decisions: [ThrottleDecision] = []
        // Every lane's allowance below `ready.count` keeps the sum from overflowing.
        decisions.reserveCapacity(
            remaining.contains { $0 >= ready.count }
                ? ready.count : min(ready.count, remaining.reduce(0) { $0 + max($1, 0) }))
        for entry in ready {
            if remaining.allSatisfy({ $0 <= 0 }) { break }
            let l = lane(slots[entry.slot])
            if remaining[l] <= 0 { continue }
            let decision = Throttle.decide(
                keys[entry.slot], now: now, configuration: configuration, state: &slots[entry.slot])
            if case .send? = decision {
                remaining[l] -= 1
                setEntry(entry.slot, nil)
            } else {
                setEntry(entry.slot, Throttle.entry(slots[entry.slot], minimumInterval: configuration.minimumInterval))
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
