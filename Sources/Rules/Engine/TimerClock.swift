/// When a timer rule comes due for one activity: a pure decision, with the time it came due (so a late
/// pass does not shift the rule's rhythm) or the time to look again.
public enum TimerClock {
    public enum Decision: Sendable, Hashable {
        /// Due; it came due at `at` (≤ now), the time to keep as its last look.
        case due(at: Int)
        /// Not due before `until`.
        case wait(until: Int)
        /// Not due again until something changes (a quiet rule that already looked in this quiet spell).
        case done
    }

    /// - `every n`: due n seconds after the activity's start, then every n seconds after the last due time;
    ///   a pass that comes late keeps the rhythm (it looks once, at the latest due time it passed).
    /// - `quiet n`: due once the entity has gone n seconds without a change (counted from the start when
    ///   its last change was earlier, or when the feed no longer has it), once per quiet spell. `changedAt` is
    ///   the last change of the facts the rule names, when it names some.
    public static func decide(_ trigger: RuleTrigger, startedAt: Int, lastLook: Int?, changedAt: Int?, now: Int)
        -> Decision
    {
        switch trigger {
        case .change:
            return .done
        case .every(let period):
            let anchor = max(lastLook ?? startedAt, startedAt)
            guard now >= anchor + period else { return .wait(until: anchor + period) }
            return .due(at: anchor + (now - anchor) / period * period)
        case .quiet(let span, _):
            let since = max(changedAt ?? startedAt, startedAt)
            let at = since + span
            if let lastLook, lastLook >= at { return .done }
            return now >= at ? .due(at: at) : .wait(until: at)
        }
    }
}
