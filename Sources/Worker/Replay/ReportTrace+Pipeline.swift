import LiveRelayCore
public import Report
import Rules
public import Throttling

extension ReportTrace.Look {
    /// What one change (or timer look) decided, as the report reads it: the headline facts, the rules that
    /// fired or failed, and per activity whether a push was queued, merged into the waiting one, or why not.
    public init(_ step: ChangeStep, at: Int, plotted: [String] = []) {
        let outcomes = step.decisions.map { decision -> ReportTrace.Outcome in
            switch decision {
            case .skip(let activity, let rules, let reason):
                return .init(activity: activity.rawValue, rules: rules, kind: "skipped", reason: reason.description)
            case .push(let pending):
                let push = pending.push
                if case .coalesced(let into)? = step.queued[push.activity] {
                    return .init(
                        activity: push.activity.rawValue, rules: push.ruleIDs, kind: "merged", into: into,
                        event: push.event.rawValue)
                }
                return .init(
                    activity: push.activity.rawValue, rules: push.ruleIDs, kind: "queued", event: push.event.rawValue)
            }
        }
        self.init(
            at: at, entity: step.change.entity.description, changed: step.change.changedPaths,
            facts: ReportFacts.headline(of: step.change.current, plotted: plotted), fired: step.fired,
            timers: step.timers, errors: step.errors.map { RuleFailure(rule: $0.rule, message: $0.message) },
            outcomes: outcomes)
        if step.timers.isEmpty {
            presence = step.change.current == nil ? "gone" : step.change.previous == nil ? "new" : nil
        }
    }
}

extension ReportTrace.Release {
    /// A throttle decision at `at`: a push sent (at its final priority, downgraded or not) or held.
    public init(_ decision: ThrottleDecision, at: Int) {
        switch decision {
        case .held(let key, let until, let rules):
            self.init(at: at, activity: key.rawValue, kind: "held", rules: rules, until: until)
        case .send(let push, let downgraded):
            self.init(
                at: at, activity: push.activity.rawValue, kind: "sent", rules: push.ruleIDs,
                event: push.event.rawValue, priority: push.priority.rawValue, downgraded: downgraded,
                relevance: push.relevanceScore?.value, alert: ReportAlert(push.alert), timestamp: push.timestamp,
                contentState: push.contentState)
        }
    }
}
