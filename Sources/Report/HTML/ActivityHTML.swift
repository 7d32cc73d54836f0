import LiveRelayCore

/// One activity's detail: its timeline, its budget chart, and its pushes as a table (folded, so a long
/// replay's page stays short).
struct ActivityHTML {
    let activity: ActivityReport

    /// The element id of an activity's section (`activity-` and its key, other characters as `-`).
    static func anchor(_ key: String) -> String {
        "activity-"
            + String(
                key.unicodeScalars.map {
                    ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                        || $0 == "_" ? Character($0) : "-"
                })
    }

    /// A push's change from the previous one, as people read it: `price 100,650 · changePercent 0.53`
    /// (`removed` for a member taken out; `unchanged` when the state is the same, as a refresh sends).
    static func changeText(_ push: ReportPush) -> String? {
        guard let change = push.change else { return nil }
        if change.isEmpty { return "unchanged" }
        return change.keys.sorted().map { key -> String in
            let value = change[key]!
            switch value {
            case .null: return "\(key) removed"
            case .string(let text): return "\(key) \(text)"
            default: return "\(key) \(value.jsonString())"
            }
        }.joined(separator: " · ")
    }

    func write(into html: inout HTMLWriter) {
        let c = activity.counts
        let budget = activity.budget
        html.open("section", ["class": "activity", "id": Self.anchor(activity.key), "data-key": activity.key])
        html.element("h2", [:], activity.key)
        html.element(
            "p", ["class": "meta"],
            "\(activity.attributesType)\(activity.phase.map { ", \($0)" } ?? "") · \(activity.entities.joined(separator: ", ")) · "
                + "\(c.pushes) pushes (\(c.high) at 10, \(c.low) at 5), \(c.alerts) alerts, \(c.downgraded) downgraded, "
                + "\(c.held) held, \(c.merged) merged, \(c.skipped) skipped · budget \(budget.size) per \(ReportTime.duration(budget.period))"
        )
        TimelineSVG(activity).write(into: &html)
        html.element("h3", [:], "Priority-10 budget")
        BudgetSVG(activity).write(into: &html)
        html.open("details")
        html.element(
            "summary", [:],
            "\(activity.pushes.count) pushes, \(activity.holds.count) hold\(activity.holds.count == 1 ? "" : "s") (table)"
        )
        html.open("table", ["class": "pushes"])
        html.open("tr")
        for name in [
            "time (UTC)", "event", "priority", "content-state (what changed)", "relevance", "alert", "rules", "how",
        ] {
            html.element("th", [:], name)
        }
        html.close("tr")
        for push in activity.pushes {
            var how: [String] = []
            if push.downgraded { how.append("downgraded (budget spent)") }
            if let since = push.heldSince { how.append("held since \(ReportTime.clock(since))") }
            if push.merged > 0 { how.append("\(push.merged) merged in") }
            html.open("tr")
            html.element("td", [:], ReportTime.clock(push.at, seconds: true))
            html.element("td", [:], push.event)
            html.element("td", ["class": "n"], String(push.priority))
            html.element(
                "td", ["class": "content", "title": push.contentState?.jsonString()], Self.changeText(push) ?? "")
            html.element("td", ["class": "n"], push.relevance.map(ReportTime.value) ?? "")
            html.element("td", [:], push.alert?.text ?? "")
            html.element("td", [:], TimelineSVG.unique(push.rules).joined(separator: ", "))
            html.element("td", [:], how.joined(separator: "; "))
            html.close("tr")
        }
        html.close("table")
        html.close("details")
        html.close("section")
    }
}
