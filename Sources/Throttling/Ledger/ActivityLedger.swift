public import LiveRelayCore

/// Folds rule intents into full content-states, one push per activity per change.
///
/// iOS replaces the whole content-state on every update, so the ledger keeps each activity's last full state
/// and merges every patch into it. A push whose merged state equals the last one is dropped; several rules
/// firing on one change make one push carrying the highest relevance; timestamps strictly increase.
/// Pure: the records come in and go out as values, `now` is a parameter.
/// The pushes it makes are pending: the `Throttle` chooses their final priority.
public struct ActivityLedger: Sendable {
    /// How long an ended activity stays on the lock screen when its end rule gives no `dismissal-after`:
    /// four hours, the longest iOS keeps one. Every end carries its dismissal date, so the system removes
    /// the activity when LiveRelay says, not at a time nobody wrote down.
    public static let defaultDismissalAfter = 4 * 3600

    public init() {}

    /// Applies the intents of one change (or one poll) to the records, returning one decision per activity,
    /// in activity-key order. `records` is updated with what was decided.
    public func apply(_ intents: [ActivityIntent], to records: inout [ActivityKey: ActivityRecord], now: Int)
        -> [LedgerDecision]
    {
        // In key order, and within a key in the rules' order; most activities are named once (a personal
        // rule's thousand alerts), and one intent is its own merge.
        let order = intents.indices.sorted { (intents[$0].activity, $0) < (intents[$1].activity, $1) }
        var decisions: [LedgerDecision] = []
        decisions.reserveCapacity(order.count)
        records.reserveCapacity(records.count + order.count)
        var first = 0
        while first < order.count {
            let key = intents[order[first]].activity
            var end = first + 1
            while end < order.count, intents[order[end]].activity == key { end += 1 }
            let merged =
                end == first + 1
                ? MergedIntent(intents[order[first]]) : MergedIntent(order[first..<end].map { intents[$0] })
            decisions.append(decide(merged, record: &records[key], now: now))
            first = end
        }
        return decisions
    }

    /// Records which pushes reached a device: a delivered `start` makes its activity active (it was
    /// pending since the start was decided). Returns the records that changed, in key order.
    public func delivered(_ pushes: [LiveActivityPush], records: inout [ActivityKey: ActivityRecord])
        -> [ActivityRecord]
    {
        var changed: [ActivityKey] = []
        for push in pushes where push.event == .start {
            guard var record = records[push.activity], record.phase == .pending else { continue }
            record.phase = .active
            records[push.activity] = record
            changed.append(push.activity)
        }
        return changed.sorted().map { records[$0]! }
    }

    private func decide(_ intent: MergedIntent, record: inout ActivityRecord?, now: Int) -> LedgerDecision {
        var event = intent.event
        let running = record.map { $0.phase != .ended } ?? false
        if event == .start, running {
            // The activity is already live (a start rule fired again): keep it current instead.
            event = .update
        }
        if event == .start, record?.phase == .ended {
            return .skip(activity: intent.activity, ruleIDs: intent.ruleIDs, reason: .alreadyEnded)
        }
        if event != .start, !running {
            return .skip(activity: intent.activity, ruleIDs: intent.ruleIDs, reason: .notStarted)
        }
        let base = event == .start ? JSONValue.emptyObject : record!.state
        let state = base.applyingMergePatch(.object(intent.patch))
        // A timer rule may push the same state again (a refresh that renews the stale date); a change may not.
        if event == .update, state == base, !intent.timer {
            return .skip(activity: intent.activity, ruleIDs: intent.ruleIDs, reason: .unchanged)
        }
        let timestamp = max(now, (record?.lastTimestamp ?? Int.min) + 1)
        var push = LiveActivityPush(
            activity: intent.activity, attributesType: intent.attributesType, event: event, timestamp: timestamp,
            contentState: state, attributes: event == .start ? (intent.attributes ?? .emptyObject) : nil,
            alert: intent.alert, relevanceScore: intent.relevance,
            staleDate: intent.staleAfter.map { timestamp + $0 },
            dismissalDate: event == .end ? timestamp + (intent.dismissalAfter ?? Self.defaultDismissalAfter) : nil,
            priority: intent.priority == .low ? .low : .high, ruleIDs: intent.ruleIDs, entity: intent.entity)
        // A subscription's own activity starts on its device alone.
        if event == .start { push.device = intent.subscription?.device }
        let earlier = record
        record = ActivityRecord(
            key: intent.activity, attributesType: intent.attributesType,
            phase: event == .start ? .pending : event == .end ? .ended : (earlier?.phase ?? .active),
            state: state, lastTimestamp: timestamp, entity: intent.entity,
            startedAt: event == .start ? timestamp : earlier?.startedAt,
            facts: intent.facts ?? earlier?.facts, sentAt: earlier?.sentAt,
            timers: event == .start ? [:] : earlier?.timers ?? [:],
            changedAt: event == .start || state != base ? timestamp : earlier?.changedAt,
            delivered: earlier?.delivered,
            start: event == .start
                ? ActivityStart(
                    attributes: push.attributes ?? .emptyObject, alert: push.alert, lateJoin: intent.lateJoin,
                    subscription: intent.subscription)
                : earlier?.start)
        return .push(
            PendingPush(push: push, policy: intent.priority, whenBudgetSpent: intent.whenBudgetSpent, enqueuedAt: now))
    }
}

/// Several intents for one activity, folded: the strongest event, patches in rule order, the highest
/// relevance and the strongest priority.
struct MergedIntent: Equatable {
    var activity: ActivityKey
    var attributesType: String
    var event: PushEvent
    var patch: [String: JSONValue]
    var attributes: JSONValue?
    var alert: LiveActivityAlert?
    var relevance: RelevanceScore?
    var priority: PriorityPolicy
    var whenBudgetSpent: BudgetExhaustion
    var staleAfter: Int?
    var dismissalAfter: Int?
    var ruleIDs: [String]
    var entity: EntityKey
    var facts: JSONValue?
    var timer: Bool
    /// False when a start rule among them is in a file with `late-join: none`.
    var lateJoin: Bool
    /// The subscription whose activity it is, for personal rules' intents.
    var subscription: SubscriptionOwner?

    /// One intent, as the fold of it alone would have it.
    init(_ intent: ActivityIntent) {
        lateJoin = intent.event != .start || intent.lateJoin
        subscription = intent.subscription
        activity = intent.activity
        entity = intent.entity
        facts = intent.facts
        timer = intent.timer
        attributesType = intent.attributesType
        event = intent.event
        patch = intent.patch
        attributes = intent.attributes
        alert = intent.alert
        relevance = intent.relevance
        priority = intent.priority
        whenBudgetSpent = intent.whenBudgetSpent
        staleAfter = intent.staleAfter
        dismissalAfter = intent.dismissalAfter
        ruleIDs = [intent.ruleID]
    }

    init(_ intents: [ActivityIntent]) {
        lateJoin = !intents.contains { $0.event == .start && !$0.lateJoin }
        subscription = intents.first { $0.subscription != nil }?.subscription
        let first = intents[0]
        activity = first.activity
        entity = first.entity
        facts = intents.last { $0.facts != nil }?.facts
        timer = intents.contains { $0.timer }
        attributesType = first.attributesType
        event =
            intents.contains { $0.event == .end }
            ? .end : intents.contains { $0.event == .start } ? .start : first.event
        patch = intents.reduce(into: [:]) { MergedIntent.compose(&$0, $1.patch) }
        attributes = intents.last { $0.attributes != nil }?.attributes
        let byRelevance = intents.filter { $0.alert != nil }.max {
            ($0.relevance?.value ?? 0) < ($1.relevance?.value ?? 0)
        }
        alert = byRelevance?.alert
        relevance = intents.compactMap(\.relevance).max()
        priority = intents.dropFirst().reduce(first.priority) { $0.merged(with: $1.priority) }
        whenBudgetSpent = intents.contains { $0.whenBudgetSpent == .hold } ? .hold : .downgrade
        staleAfter = intents.compactMap(\.staleAfter).min()
        dismissalAfter = intents.compactMap(\.dismissalAfter).max()
        ruleIDs = intents.map(\.ruleID)
    }

    /// Composes two merge patches into one: later members win, nested objects compose, and `null` (remove)
    /// survives so the composed patch still removes what either patch removed.
    static func compose(_ base: inout [String: JSONValue], _ later: [String: JSONValue]) {
        for (key, value) in later {
            if case .object(let inner) = value, case .object(var existing)? = base[key] {
                compose(&existing, inner)
                base[key] = .object(existing)
            } else {
                base[key] = value
            }
        }
    }
}
