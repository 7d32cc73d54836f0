extension ReplayReport {
    /// The report as one self-contained page: no network, no external script, style or font. A header and
    /// a legend; for several activities, an overview (one row each on a shared time axis); the summary
    /// (pushes by event and priority, each rule's record); then each activity's timeline, budget chart and
    /// pushes. Every value that came from a feed, a rule or a sequence is escaped; the markup is
    /// XHTML-compatible, so it parses as XML too. A small inline script marks the page `data-rendered="ok"`
    /// once it ran (or lists errors in `data-errors`), for a browser test.
    public func html() -> String {
        var html = HTMLWriter(capacity: 4096 + activities.count * 16_384)
        html.raw("<!DOCTYPE html>\n")
        html.open("html", ["lang": "en"])
        html.open("head")
        html.empty("meta", ["charset": "utf-8"])
        html.empty("meta", ["name": "viewport", "content": "width=device-width, initial-scale=1"])
        html.element("title", [:], "LiveRelay report: \(title)")
        html.open("style")
        html.raw(ReportStyle.css)
        html.close("style")
        html.close("head")
        html.open("body")
        header(&html)
        if activities.count > 1 { OverviewHTML(report: self).write(into: &html) }
        SummaryHTML(report: self).write(into: &html)
        for activity in activities { ActivityHTML(activity: activity).write(into: &html) }
        html.open("script")
        html.raw(ReportStyle.script)
        html.close("script")
        html.close("body")
        html.close("html")
        return html.text
    }

    private func header(_ html: inout HTMLWriter) {
        html.open("header")
        html.element("h1", [:], title)
        html.open("p", ["class": "meta"])
        html.text(
            "\(source == "live" ? "Recent history" : "Replay") from \(ReportTime.full(from)) to \(ReportTime.full(until)) (UTC): "
                + "\(steps.count) feed bodies, \(activities.count) activit\(activities.count == 1 ? "y" : "ies"), "
                + "\(summary.pushes) pushes, \(summary.held) held, \(summary.merged) merged, "
                + "\(summary.downgraded) downgraded, \(summary.skipped) skipped, \(summary.feedErrors) feed errors.")
        html.close("p")
        let errors = steps.filter { $0.feedError != nil }
        if !errors.isEmpty {
            html.open("ul", ["class": "feed-errors"])
            for step in errors {
                html.element(
                    "li", [:],
                    "feed error at \(ReportTime.clock(step.at, seconds: true)) (step \(step.index + 1)\(step.note.map { ", \($0)" } ?? "")): \(step.feedError!) — no change, previous facts kept"
                )
            }
            html.close("ul")
        }
        html.raw(ReportStyle.legend)
        html.close("header")
    }
}
