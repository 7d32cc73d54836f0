/// The report's totals: pushes by event and priority, and each rule's record (fired, pushes it is on and
/// what they were, merges, skips with their reasons, errors).
struct SummaryHTML {
    let report: ReplayReport

    func write(into html: inout HTMLWriter) {
        let summary = report.summary
        html.open("section", ["id": "summary"])
        html.element("h2", [:], "Summary")
        html.open("div", ["class": "tables"])
        html.open("table", ["class": "by-event"])
        row(&html, header: true, ["event", "priority", "pushes"])
        for count in summary.byEvent { row(&html, [count.event, String(count.priority), String(count.count)]) }
        row(&html, ["all", "", String(summary.pushes)])
        html.close("table")
        html.open("table", ["class": "totals"])
        row(&html, header: true, ["", "count"])
        let totals = [
            ("with an alert", summary.alerts), ("downgraded", summary.downgraded), ("held", summary.held),
            ("merged", summary.merged), ("skipped", summary.skipped), ("rule errors", summary.ruleErrors),
            ("feed errors", summary.feedErrors),
        ]
        for (name, count) in totals { row(&html, [name, String(count)]) }
        html.close("table")
        html.open("table", ["class": "rules"])
        row(&html, header: true, ["rule", "fired", "pushes", "produced", "merged", "skipped", "errors"])
        for rule in summary.rules {
            let produced = rule.produced.map { "\($0.count) \($0.event) at \($0.priority)" }.joined(separator: ", ")
            let skipped = rule.skipped == 0 ? "0" : "\(rule.skipped): \(rule.reasons.joined(separator: "; "))"
            row(
                &html,
                [
                    rule.rule, String(rule.fired), String(rule.pushes), produced, String(rule.merged), skipped,
                    String(rule.errors),
                ])
        }
        html.close("table")
        html.close("div")
        html.close("section")
    }

    /// A table row; numbers are right-aligned.
    private func row(_ html: inout HTMLWriter, header: Bool = false, _ cells: [String]) {
        html.open("tr")
        for cell in cells {
            let numeric = !header && !cell.isEmpty && cell.allSatisfy(\.isNumber)
            html.element(header ? "th" : "td", ["class": numeric ? "n" : nil], cell)
        }
        html.close("tr")
    }
}
