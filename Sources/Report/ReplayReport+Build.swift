import LiveRelayCore

extension ReplayReport {
    /// The report of a trace. Pure: the same trace always gives the same report.
    ///
    /// An activity's timeline holds every change of the entities whose changes reached it (so the facts
    /// before its start show too), its pushes, its holds (each closed by the activity's next send) and its
    /// budget points (``BudgetSeries``). A push's `merged` counts the merges since the activity's previous
    /// send, up to its own release: at one moment, looks come before releases, as the pipeline runs them.
    public static func build(_ trace: ReportTrace) -> ReplayReport {
        var entitiesOf: [String: [String]] = [:]
        var keys = Set(trace.activities.map(\.key))
        for look in trace.looks {
            for outcome in look.outcomes {
                keys.insert(outcome.activity)
                if !(entitiesOf[outcome.activity]?.contains(look.entity) ?? false) {
                    entitiesOf[outcome.activity, default: []].append(look.entity)
                }
            }
        }
        keys.formUnion(trace.releases.map(\.activity))
        let info = Dictionary(trace.activities.map { ($0.key, $0) }) { a, _ in a }
        let looksOf = Dictionary(grouping: trace.looks, by: \.entity)
        let releasesOf = Dictionary(grouping: trace.releases, by: \.activity)
        let activities = keys.sorted().map { key in
            activity(
                key, info: info[key], entities: entitiesOf[key] ?? [],
                looks: (entitiesOf[key] ?? []).flatMap { looksOf[$0] ?? [] }.sorted { $0.at < $1.at },
                releases: releasesOf[key] ?? [])
        }
        let times =
            trace.steps.map(\.at) + activities.flatMap { [$0.from, $0.until] } + trace.looks.map(\.at)
        return ReplayReport(
            version: formatVersion, title: trace.title, source: trace.source, from: times.min() ?? 0,
            until: times.max() ?? 0, steps: trace.steps, activities: activities,
            summary: summary(trace, activities: activities), plotted: trace.plotted.isEmpty ? nil : trace.plotted)
    }

    private static func activity(
        _ key: String, info: ReportTrace.Activity?, entities: [String], looks: [ReportTrace.Look],
        releases: [ReportTrace.Release]
    ) -> ActivityReport {
        var changes = looks.map { change($0, for: key) }
        // An entity that comes into the feed after it left it is back, not new.
        var left = Set<String>()
        for i in changes.indices {
            if changes[i].presence == "gone" { left.insert(changes[i].entity) }
            if changes[i].presence == "new", left.remove(changes[i].entity) != nil { changes[i].presence = "back" }
        }
        var pushes: [ReportPush] = []
        var holds: [ReportHold] = []
        var merges = changes.filter { $0.outcome == "merged" }.map(\.at)[...]
        for release in releases {
            if release.kind == "held" {
                holds.append(ReportHold(at: release.at, until: release.until ?? release.at, rules: release.rules))
                continue
            }
            var mergedCount = 0
            while let first = merges.first, first <= release.at {
                mergedCount += 1
                merges.removeFirst()
            }
            var heldSince: Int?
            if let open = holds.indices.last, holds[open].releasedAt == nil {
                holds[open].releasedAt = release.at
                heldSince = holds[open].at
            }
            pushes.append(
                ReportPush(
                    at: release.at, event: release.event ?? "update", priority: release.priority ?? 5,
                    downgraded: release.downgraded, relevance: release.relevance, alert: release.alert,
                    rules: release.rules, timestamp: release.timestamp, merged: mergedCount, heldSince: heldSince,
                    contentState: release.contentState,
                    change: release.contentState.map {
                        stateChange(from: pushes.last { $0.contentState != nil }?.contentState, to: $0)
                    }))
        }
        let budget = info?.budget ?? ReportBudget(size: 0, period: 0)
        let points = BudgetSeries.points(pushes, period: budget.period)
        let times = changes.map(\.at) + pushes.map(\.at) + holds.flatMap { [$0.at, $0.until] }
        var counts = ActivityCounts(budgetLow: budget.size - (points.map(\.used).max() ?? 0))
        counts.pushes = pushes.count
        counts.high = pushes.filter { $0.priority == 10 }.count
        counts.low = pushes.count - counts.high
        counts.alerts = pushes.filter { $0.alert != nil }.count
        counts.downgraded = pushes.filter(\.downgraded).count
        counts.held = holds.count
        counts.merged = changes.filter { $0.outcome == "merged" }.count
        counts.skipped = changes.filter { $0.outcome == "skipped" }.count
        return ActivityReport(
            key: key, attributesType: info?.attributesType ?? "", phase: info?.phase, entities: entities,
            budget: budget, from: times.min() ?? 0, until: times.max() ?? 0, changes: changes, pushes: pushes,
            holds: holds, budgetPoints: points, counts: counts)
    }

    /// The members of `new` (by dotted path, objects entered) that differ from `old`: changed or added with
    /// their value, removed as `null`. Every member when there is no `old`.
    static func stateChange(from old: JSONValue?, to new: JSONValue) -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        func walk(_ a: JSONValue?, _ b: JSONValue?, _ path: String) {
            let x = a?.objectValue
            let y = b?.objectValue
            // Into objects (one side may be absent: added or removed); a member that changed type is a value.
            if x != nil || y != nil, a == nil || x != nil, b == nil || y != nil {
                for key in Set((x ?? [:]).keys).union((y ?? [:]).keys) {
                    walk(x?[key], y?[key], path.isEmpty ? key : path + "." + key)
                }
                return
            }
            guard a != b, !path.isEmpty else { return }
            out[path] = b ?? .null
        }
        walk(old, new, "")
        return out
    }

    private static func change(_ look: ReportTrace.Look, for key: String) -> ReportChange {
        let outcome = look.outcomes.first { $0.activity == key }
        return ReportChange(
            at: look.at, entity: look.entity, changed: look.changed, facts: look.facts,
            rules: outcome?.rules ?? look.fired, timers: look.timers, errors: look.errors,
            outcome: outcome?.kind ?? "none", reason: outcome?.reason, into: outcome?.into, presence: look.presence)
    }
}
