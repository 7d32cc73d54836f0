extension ReplayReport {
    /// The totals of the activities, the feed errors of the steps, and each rule's record over every look
    /// (an entity without an activity included) and every push.
    static func summary(_ trace: ReportTrace, activities: [ActivityReport]) -> ReportSummary {
        var summary = ReportSummary()
        let pushes = activities.flatMap(\.pushes)
        summary.pushes = pushes.count
        summary.alerts = activities.reduce(0) { $0 + $1.counts.alerts }
        summary.downgraded = activities.reduce(0) { $0 + $1.counts.downgraded }
        summary.held = activities.reduce(0) { $0 + $1.counts.held }
        summary.merged = activities.reduce(0) { $0 + $1.counts.merged }
        summary.skipped = activities.reduce(0) { $0 + $1.counts.skipped }
        summary.feedErrors = trace.steps.filter { $0.feedError != nil }.count
        summary.ruleErrors = trace.looks.reduce(0) { $0 + $1.errors.count }
        summary.byEvent = eventCounts(pushes)

        var rules: [String: RuleCount] = [:]
        func touch(_ rule: String, _ change: (inout RuleCount) -> Void) {
            change(&rules[rule, default: RuleCount(rule: rule)])
        }
        for look in trace.looks {
            for rule in Set(look.fired) { touch(rule) { $0.fired += 1 } }
            for error in look.errors { touch(error.rule) { $0.errors += 1 } }
            for outcome in look.outcomes {
                for rule in Set(outcome.rules) {
                    switch outcome.kind {
                    case "merged": touch(rule) { $0.merged += 1 }
                    case "skipped":
                        touch(rule) { count in
                            count.skipped += 1
                            if let reason = outcome.reason, !count.reasons.contains(reason) {
                                count.reasons.append(reason)
                            }
                        }
                    default: break
                    }
                }
            }
        }
        var producedBy: [String: [ReportPush]] = [:]
        for push in pushes { for rule in Set(push.rules) { producedBy[rule, default: []].append(push) } }
        for (rule, made) in producedBy {
            touch(rule) {
                $0.pushes = made.count
                $0.produced = eventCounts(made)
            }
        }
        summary.rules = rules.keys.sorted().map { rules[$0]! }
        return summary
    }

    /// Pushes by event (start, update, end, then others by name) and priority (10 first).
    static func eventCounts(_ pushes: [ReportPush]) -> [EventCount] {
        var counts: [String: [Int: Int]] = [:]
        for push in pushes { counts[push.event, default: [:]][push.priority, default: 0] += 1 }
        let known = ["start", "update", "end"]
        let events = counts.keys.sorted {
            (known.firstIndex(of: $0) ?? known.count, $0) < (known.firstIndex(of: $1) ?? known.count, $1)
        }
        return events.flatMap { event in
            counts[event]!.keys.sorted(by: >).map {
                EventCount(event: event, priority: $0, count: counts[event]![$0]!)
            }
        }
    }
}
