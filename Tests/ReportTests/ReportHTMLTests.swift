import Foundation
import LiveRelayCore
import LiveRelayTesting
import Report
import Testing

/// The page drawn from a report: well-formed, self-contained, escaped, and drawing exactly the report's
/// pushes, holds, merges and budget points.
@Suite struct ReportHTMLTests {
    @Test func thePageIsWellFormedAndSelfContained() async throws {
        let (report, _) = try await ReplayReportTests.tinyBudgetReport()
        let page = report.html()
        let tree = MarkupTree(Data(page.utf8))
        #expect(tree.error == nil, "\(tree.error ?? "")")
        #expect(page.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
        // Nothing loaded from anywhere: no address, no external script, style sheet, image or font.
        #expect(!page.lowercased().contains("http"))
        #expect(!page.contains("url("))
        #expect(!page.contains("@import"))
        #expect(tree.all("link").isEmpty)
        #expect(tree.all("img").isEmpty)
        #expect(tree.all("script").count == 1)
        #expect(tree.all("script").allSatisfy { $0.attributes["src"] == nil })
        #expect(tree.elements.allSatisfy { $0.attributes["href"].map { $0.hasPrefix("#") } ?? true })
    }

    @Test func theTimelineDrawsEveryPushHoldAndMergeOfTheReport() async throws {
        let (report, _) = try await ReplayReportTests.tinyBudgetReport()
        let activity = try #require(report.activities.first)
        let tree = MarkupTree(Data(report.html().utf8))
        // The quiet pushes are drawn first and the notable ones on top: compare in time order.
        let timeline = tree.all("g", class: "push").filter { $0.path.contains("svg") && !$0.path.contains("td") }
            .sorted { Int($0.attributes["data-at"] ?? "") ?? 0 < Int($1.attributes["data-at"] ?? "") ?? 0 }
        #expect(timeline.map { $0.attributes["data-at"] } == activity.pushes.map { String($0.at) })
        #expect(timeline.map { $0.attributes["data-priority"] } == activity.pushes.map { String($0.priority) })
        #expect(timeline.map { $0.attributes["data-event"] } == activity.pushes.map(\.event))
        // The tooltip of the held equaliser says what happened, with its alert and rules.
        let equaliser = try #require(timeline.first { $0.text.contains("held since") })
        #expect(equaliser.text.contains("update at priority 10 — held since 19:35 — 1 later change merged in"))
        #expect(equaliser.text.contains("alert “Goal! Australia: AUS 1–1 EGY (78')”"))
        #expect(equaliser.text.contains("rules goal, clock"))
        let end = try #require(timeline.last)
        #expect(end.attributes["class"] == "push p5 downgraded")
        #expect(end.text.contains("downgraded to 5"))
        // The hold, visibly labelled, and the merge.
        let holds = tree.all("g", class: "hold")
        #expect(holds.map { $0.attributes["data-until"] } == activity.holds.map { String($0.until) })
        #expect(holds.first?.text.contains("held 19:35–20:44") == true)
        #expect(tree.all("g", class: "change-merged").count == 1)
        #expect(tree.all("g", class: "merge").map { $0.attributes["data-count"] } == ["1"])
        #expect(tree.all("line", class: "merge-link").count == 1)
        // The budget chart: a mark per budget point, a cross per downgrade.
        #expect(
            tree.all("g", class: "send").count + tree.all("g", class: "refill").count == activity.budgetPoints.count)
        #expect(
            tree.all("g", class: "refill").map { $0.attributes["data-at"] }.contains(String(activity.holds[0].until)))
        #expect(
            tree.all("g", class: "downgrade").map { $0.attributes["data-at"] } == [String(end.attributes["data-at"]!)])
    }

    @Test func theSummaryTablesShowTheTotals() async throws {
        let (report, _) = try await ReplayReportTests.tinyBudgetReport()
        let tree = MarkupTree(Data(report.html().utf8))
        let byEvent = tree.all("tr").filter { $0.path.last == "table" || $0.path.contains("table") }
            .map(\.text).filter { $0.hasPrefix("update") || $0.hasPrefix("end") || $0.hasPrefix("start") }
        #expect(byEvent.contains("update102") && byEvent.contains("end51"), "\(byEvent)")
        let rules = tree.all("table", class: "rules").first?.text ?? ""
        #expect(rules.contains("full-time111 end at 500"), "\(rules)")
        let totals = tree.all("table", class: "totals").first.map { $0.text } ?? ""
        #expect(totals.contains("downgraded1held1merged1skipped0"), "\(totals)")
    }

    /// Alert texts, rule ids, notes and titles are user data: they are escaped, never markup.
    @Test func userDataIsEscaped() throws {
        let hostile = #"<script>alert("x")</script> & 'quotes'"#
        var trace = ReportTrace(title: "Match <b>final</b> & more")
        trace.looks = [
            .init(
                at: 100, entity: "feed/1", changed: ["home.score"],
                facts: ["state": "in", "home.score": 1, "away.score": 0],
                fired: ["r\"1"], outcomes: [.init(activity: "a<1>", rules: ["r\"1"], kind: "queued", event: "update")])
        ]
        trace.releases = [
            .init(
                at: 100, activity: "a<1>", kind: "sent", rules: ["r\"1"], event: "update", priority: 10,
                relevance: 100, alert: ReportAlert(title: hostile, body: "</svg><p>"), timestamp: 100)
        ]
        trace.activities = [.init(key: "a<1>", attributesType: "T&T", budget: ReportBudget(size: 2, period: 3600))]
        let page = ReplayReport.build(trace).html()
        let tree = MarkupTree(Data(page.utf8))
        #expect(tree.error == nil, "\(tree.error ?? "")")
        #expect(tree.all("script").count == 1)
        #expect(tree.all("b").isEmpty)
        #expect(tree.all("p").allSatisfy { !$0.text.contains("</svg>") || $0.attributes["class"] != nil })
        #expect(page.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;"))
        #expect(tree.all("title").contains { $0.text.contains(hostile) })
        #expect(tree.all("h1").first?.text == "Match <b>final</b> & more")
    }

    @Test func severalActivitiesGetAnOverviewFirstOneDoesNot() throws {
        var trace = ReportTrace(title: "Two symbols")
        for (i, key) in ["btc", "eth"].enumerated() {
            trace.looks.append(
                .init(
                    at: 1000 + i, entity: "f/\(key)", facts: ["price": .double(100 + Double(i))], fired: ["move"],
                    outcomes: [.init(activity: key, rules: ["move"], kind: "queued", event: "update")]))
            trace.releases.append(
                .init(at: 1000 + i, activity: key, kind: "sent", rules: ["move"], event: "update", priority: 5))
            trace.activities.append(
                .init(key: key, attributesType: "Price", budget: ReportBudget(size: 10, period: 3600)))
        }
        let two = MarkupTree(Data(ReplayReport.build(trace).html().utf8))
        #expect(two.error == nil)
        let rows = two.all("tr").filter { $0.path.contains("tbody") }
        #expect(rows.count == 2)
        #expect(two.all("a").map { $0.attributes["href"] } == ["#activity-btc", "#activity-eth"])
        #expect(two.all("section", class: "activity").map { $0.attributes["id"] } == ["activity-btc", "activity-eth"])
        let sections = two.elements.filter { $0.name == "section" }.map { $0.attributes["id"] ?? "" }
        #expect(sections.first == "overview")
        trace.activities.removeLast()
        trace.looks.removeLast()
        trace.releases.removeLast()
        let one = MarkupTree(Data(ReplayReport.build(trace).html().utf8))
        #expect(!one.elements.contains { $0.attributes["id"] == "overview" })
    }
}
