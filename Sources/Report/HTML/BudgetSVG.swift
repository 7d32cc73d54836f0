/// One activity's priority-10 budget over time: the pushes in use (a step line) against the budget
/// (dashed), a dot where a send spent one, a green mark where one returned, a red cross where a push was
/// downgraded, and the waits for the budget shaded.
struct BudgetSVG {
    static let width = 1000.0
    static let height = 110.0
    let activity: ActivityReport
    let scale: TimeScale

    init(_ activity: ActivityReport) {
        self.activity = activity
        scale = TimeScale.padded(from: activity.from, until: activity.until, left: 90, right: Self.width - 20)
    }

    func write(into html: inout HTMLWriter) {
        let budget = activity.budget
        let top = max(budget.size, activity.budgetPoints.map(\.used).max() ?? 0, 1)
        let (y0, y1) = (80.0, 12.0)
        func y(_ used: Int) -> Double { y0 - (y0 - y1) * Double(used) / Double(top) }
        html.open(
            "svg",
            [
                "class": "budget", "viewBox": "0 0 \(Int(Self.width)) \(Int(Self.height))", "role": "img",
                "aria-label": "Priority-10 budget of \(activity.key)",
            ])
        html.element("text", ["class": "lane", "x": "4", "y": ReportTime.number(y(top) + 4)], "\(top) in use")
        html.element("text", ["class": "lane", "x": "4", "y": ReportTime.number(y0 + 4)], "0")
        for hold in activity.holds {
            let x0 = scale.x(hold.at)
            let x1 = scale.x(hold.releasedAt ?? hold.until)
            html.empty(
                "rect",
                [
                    "class": "hold", "x": ReportTime.number(x0), "y": ReportTime.number(y1),
                    "width": ReportTime.number(max(x1 - x0, 2)), "height": ReportTime.number(y0 - y1),
                ])
        }
        // The budget line.
        html.open("g", ["class": "budget-line"])
        html.element(
            "title", [:],
            "budget: \(budget.size) priority-10 push\(budget.size == 1 ? "" : "es") per \(ReportTime.duration(budget.period))\(budget.frequentUpdates ? " (frequent updates)" : "")"
        )
        html.empty(
            "line",
            [
                "x1": ReportTime.number(scale.left), "x2": ReportTime.number(scale.right),
                "y1": ReportTime.number(y(budget.size)), "y2": ReportTime.number(y(budget.size)),
            ])
        html.element(
            // Under the line, inside the chart, so neither the line nor the chart's edge cuts it.
            "text", ["x": ReportTime.number(scale.left + 4), "y": ReportTime.number(y(budget.size) + 13)],
            "budget \(budget.size) per \(ReportTime.duration(budget.period))")
        html.close("g")
        // The pushes in use, as a step line from zero.
        var d = "M\(ReportTime.number(scale.left)) \(ReportTime.number(y(0)))"
        for point in activity.budgetPoints where point.at <= scale.until {
            let x = ReportTime.number(scale.x(max(point.at, scale.from)))
            d += " H\(x) V\(ReportTime.number(y(point.used)))"
        }
        d += " H\(ReportTime.number(scale.right))"
        html.empty("path", ["class": "used", "d": d])
        for point in activity.budgetPoints where point.at <= scale.until {
            let x = ReportTime.number(scale.x(point.at))
            html.open("g", ["class": point.change, "data-at": String(point.at), "data-used": String(point.used)])
            html.element(
                "title", [:],
                "\(ReportTime.clock(point.at)) \(point.change == "send" ? "a priority-10 push spends one" : "one returns to the budget"): \(point.used) of \(budget.size) in use"
            )
            if point.change == "send" {
                html.empty("circle", ["cx": x, "cy": ReportTime.number(y(point.used)), "r": "3.5"])
            } else {
                html.empty("path", ["d": "M\(x) \(ReportTime.number(y(point.used) - 1)) l-5 8 l10 0 z"])
            }
            html.close("g")
        }
        // Pushes that return to the budget after the activity's timeline: listed at its right edge.
        let later = activity.budgetPoints.filter { $0.at > scale.until }
        for (i, point) in later.enumerated() {
            html.open("g", ["class": "refill later", "data-at": String(point.at), "data-used": String(point.used)])
            html.element(
                "title", [:],
                "\(ReportTime.full(point.at)) one returns to the budget: \(point.used) of \(budget.size) in use")
            if i == later.count - 1 {
                html.element(
                    "text",
                    ["x": ReportTime.number(scale.right), "y": ReportTime.number(y0 - 4), "text-anchor": "end"],
                    "\(later.count) return\(later.count == 1 ? "s" : "") after this, the last at \(ReportTime.clock(point.at)) ▸"
                )
            }
            html.close("g")
        }
        for push in activity.pushes where push.downgraded {
            let x = ReportTime.number(scale.x(push.at))
            html.open("g", ["class": "downgrade", "data-at": String(push.at)])
            html.element(
                "title", [:], "\(ReportTime.clock(push.at)) \(push.event) downgraded to priority 5: budget spent")
            html.empty("path", ["d": "M\(x) \(ReportTime.number(y(budget.size) - 6)) m-5 -5 l10 10 m0 -10 l-10 10"])
            html.close("g")
        }
        axis(&html, y: 88, scale: scale)
        html.close("svg")
    }
}
