import LiveRelayCore
import Rules
import StoreCore
import Throttling

/// What rules read as `activity`: the record LiveRelay keeps of the activity and its priority-10 budget.
/// See `docs/rules.md` ("The activity") for when each member changes.
enum ActivityView {
    /// The view of `record` (absent: phase `none`, empty state) with its `budget`.
    static func value(_ record: ActivityRecord?, budget: JSONValue) -> JSONValue {
        guard let record else {
            guard case .object(var members) = RuleEngine.unknownActivity else { return RuleEngine.unknownActivity }
            members["budget"] = budget
            return .object(members)
        }
        func time(_ t: Int?) -> JSONValue { t.map { .int($0) } ?? .null }
        return .object([
            "phase": .string(record.phase.rawValue), "state": record.state, "facts": record.facts ?? .null,
            "started-at": time(record.startedAt), "pushed-at": .int(record.lastTimestamp),
            "changed-at": time(record.changedAt ?? record.startedAt), "sent-at": time(record.sentAt),
            "delivered-state": record.deliveredState ?? .null, "budget": budget,
        ])
    }

    /// The budget members: the window's size and period, the priority-10 pushes it holds now, how many are
    /// left, when the next returns (null when some are left) and whether a push waits in the throttle.
    static func budget(_ state: ActivityThrottleState?, policy: BudgetPolicy, now: Int) -> JSONValue {
        let size = state?.frequentUpdates == true ? policy.frequentUpdatesSize : policy.size
        var window = state?.window ?? SendWindow()
        window.expire(now: now, period: policy.period)
        return .object([
            "size": .int(size), "period": .int(policy.period), "used": .int(window.sends.count),
            "remaining": .int(window.remaining(size: size)),
            "refill-at": window.nextRefill(size: size, period: policy.period).map { .int($0) } ?? .null,
            "held": .bool(state?.pending != nil),
        ])
    }
}

extension Decider {
    /// The `activity` each of these activities (key → attributes type) shows rules now, and the records
    /// found (an activity with none shows phase `none`).
    func activityViews(_ keys: [ActivityKey: String], now: Int) async throws(StoreFailure) -> (
        views: [ActivityKey: JSONValue], records: [ActivityKey: ActivityRecord]
    ) {
        guard !keys.isEmpty else { return ([:], [:]) }
        let records = try await store.activities(keys.keys)
        let budgets = try await queue.budgetViews(keys, now: now)
        var views: [ActivityKey: JSONValue] = [:]
        views.reserveCapacity(keys.count)
        // An activity with no record and no throttle state shows the same as every other of its attributes
        // type: made once.
        var unknown: [String: JSONValue] = [:]
        for (key, attributesType) in keys {
            let budget = budgets.views[key]
            guard records[key] != nil || budget != nil else {
                if let made = unknown[attributesType] {
                    views[key] = made
                } else {
                    let made = ActivityView.value(nil, budget: budgets.untouched[attributesType] ?? .null)
                    unknown[attributesType] = made
                    views[key] = made
                }
                continue
            }
            views[key] = ActivityView.value(
                records[key], budget: budget ?? budgets.untouched[attributesType] ?? .null)
        }
        return (views, records)
    }
}
