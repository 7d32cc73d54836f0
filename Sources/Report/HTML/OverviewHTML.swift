/// One row per activity on the report's shared time axis: its pushes and holds as a strip, and its counts;
/// each row links to the activity's detail below.
struct OverviewHTML {
    let report: ReplayReport

    func write(into html: inout HTMLWriter) {
        let scale = TimeScale(from: report.from, until: report.until, left: 2, right: 318)
        html.open("section", ["id": "overview"])
        html.element("h2", [:], "Overview")
        html.open("table", ["class": "overview"])
        html.open("thead")
        html.open("tr")
        html.element("th", [:], "activity")
        html.element("th", [:], "phase")
        html.element("th", [:], "\(ReportTime.clock(report.from))–\(ReportTime.clock(report.until)) UTC")
        for name in ["pushes", "at 10", "at 5", "alerts", "downgraded", "held", "merged", "skipped", "budget low"] {
            html.element("th", ["class": "n"], name)
        }
        html.close("tr")
        html.close("thead")
        html.open("tbody")
        for activity in report.activities {
            html.open("tr")
            html.open("td", ["class": "key"])
            html.element("a", ["href": "#\(ActivityHTML.anchor(activity.key))"], activity.key)
            html.close("td")
            html.element("td", [:], activity.phase ?? "")
            html.open("td", ["class": "strip"])
            strip(activity, scale: scale, into: &html)
            html.close("td")
            let c = activity.counts
            for n in [c.pushes, c.high, c.low, c.alerts, c.downgraded, c.held, c.merged, c.skipped, c.budgetLow] {
                html.element("td", ["class": "n"], String(n))
            }
            html.close("tr")
        }
        html.close("tbody")
        html.close("table")
        html.close("section")
    }

    private func strip(_ activity: ActivityReport, scale: TimeScale, into html: inout HTMLWriter) {
        html.open("svg", ["class": "strip", "viewBox": "0 0 320 22", "role": "img", "aria-label": activity.key])
        html.empty(
            "line",
            [
                "class": "rule", "x1": ReportTime.number(scale.x(activity.from)),
                "x2": ReportTime.number(scale.x(activity.until)), "y1": "11", "y2": "11",
            ])
        for hold in activity.holds {
            let x0 = scale.x(hold.at)
            let x1 = scale.x(hold.releasedAt ?? hold.until)
            html.empty(
                "rect",
                [
                    "class": "hold", "x": ReportTime.number(x0), "y": "3", "width": ReportTime.number(max(x1 - x0, 2)),
                    "height": "16",
                ])
        }
        for push in activity.pushes {
            html.open("g", ["class": "push p\(push.priority)\(push.downgraded ? " downgraded" : "")"])
            html.element("title", [:], TimelineSVG.describe(push))
            html.empty(
                "circle",
                [
                    "cx": ReportTime.number(scale.x(push.at)), "cy": "11",
                    "r": ReportTime.number(3.5 + min(max(push.relevance ?? 0, 0), 100) / 100 * 3),
                ])
            html.close("g")
        }
        html.close("svg")
    }
}
