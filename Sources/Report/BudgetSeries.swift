/// The priority-10 budget over time, as the throttle's `SendWindow` keeps it: each priority-10 update or
/// end spends one push, which returns exactly one period after it was sent; starts are outside the budget.
public enum BudgetSeries {
    /// A point after every send and every refill, in time order; at the same moment a refill comes before
    /// a send (the window forgets expired sends before it records a new one).
    /// - Parameters:
    ///   - pushes: the activity's pushes, in release order.
    ///   - period: the budget's period in seconds; `0` (unknown) gives no points.
    public static func points(_ pushes: [ReportPush], period: Int) -> [BudgetPoint] {
        guard period > 0 else { return [] }
        let sends = pushes.filter { $0.priority == 10 && $0.event != "start" }.map(\.at)
        // (time, +1 send / -1 refill), refills first at a tie.
        var changes = sends.map { ($0, 1) } + sends.map { ($0 + period, -1) }
        changes.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        var used = 0
        return changes.map { at, delta in
            used += delta
            return BudgetPoint(at: at, used: used, change: delta > 0 ? "send" : "refill")
        }
    }
}
