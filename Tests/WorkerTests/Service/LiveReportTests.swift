import Foundation
import LiveRelayCore
import LiveRelayTesting
import Report
import Rules
import Store
import Testing
import Worker

/// `GET /v1/activities/{key}/report` in `run`: the replay report's picture of a live activity, drawn from the
/// history the state file keeps, behind the API's bearer token.
@Suite("live report", .serialized)
struct LiveReportTests {
    static let report = "/v1/activities/match-760499/report"

    /// The recorded match through `run` with a budget of one priority-10 push per 2 hours: the report's
    /// pushes are the pushes the provider got (event, priority, downgrade), its hold is the equaliser's
    /// wait, its budget points follow the sends; the data fits the report's schema, and the page is
    /// well-formed and self-contained.
    @Test func theMatchThroughRunIsReportedAsItWasDecided() async throws {
        try await Self.withMatch { run, recorder in
            let (status, body) = try await run.api.request("GET", Self.report + "?format=json")
            #expect(status == 200, "\(body)")
            let data = Data(body.utf8)
            let schema = try JSONSchema(
                try JSONParser.parse(try Data(contentsOf: Repository.url("docs/report.schema.json"))))
            let violations = schema.validate(try JSONParser.parse(data))
            #expect(violations.isEmpty, "\(violations)")
            let report = try JSONDecoder().decode(ReplayReport.self, from: data)
            #expect(report.source == "live")
            #expect(report.steps.isEmpty)
            let activity = try #require(report.activities.first)
            #expect(report.activities.map(\.key) == ["match-760499"])
            #expect(activity.attributesType == "MatchAttributes")
            #expect(activity.budget.size == 1)
            #expect(activity.budget.period == 7200)
            #expect(activity.entities == ["espn-worldcup/760499"])

            // What the provider got, push for push.
            let sent = recorder.pushes
            #expect(!sent.isEmpty)
            #expect(activity.pushes.map(\.event) == sent.map(\.event.rawValue))
            #expect(activity.pushes.map(\.priority) == sent.map(\.priority.rawValue))
            #expect(activity.pushes.map(\.timestamp) == sent.map(\.timestamp))
            #expect(activity.pushes.map { $0.alert != nil } == sent.map { $0.alert != nil })
            // The budget: the first goal spends it, the equaliser waits for it, the end goes at 5.
            #expect(activity.counts.held >= 1, "\(activity.holds)")
            #expect(activity.holds.first.map { $0.until - $0.at } ?? 0 > 0)
            #expect(activity.budgetPoints.filter { $0.change == "send" }.count == activity.counts.high - 1)
            #expect(activity.budgetPoints.map(\.used).max() == 1)
            #expect(activity.budgetPoints.last?.change == "refill", "the spent push returns after the period")
            #expect(activity.holds.map(\.releasedAt) == [nil], "the equaliser still waits")
            #expect(activity.changes.filter { $0.outcome == "merged" }.map(\.rules) == [["clock"], ["full-time"]])

            #expect(activity.changes.contains { $0.outcome == "queued" })
            #expect(activity.changes.allSatisfy { $0.entity == "espn-worldcup/760499" })

            // The page: well-formed, nothing loaded from anywhere, a mark per push.
            let page = try await run.api.request("GET", Self.report)
            #expect(page.status == 200)
            let tree = MarkupTree(Data(page.body.utf8))
            #expect(tree.error == nil, "\(tree.error ?? "")")
            #expect(!page.body.lowercased().contains("http"))
            #expect(tree.all("script").allSatisfy { $0.attributes["src"] == nil })
            #expect(page.body.contains("Recent history"))
            #expect(tree.all("g", class: "push").count == sent.count)

            // Two hours on the budget returns: the waiting push goes out (the end, with the equaliser and the
            // clock merged into it), and the report shows the hold released by it.
            await run.advance(by: .seconds(7200))
            let after = try JSONDecoder().decode(
                ReplayReport.self, from: Data(try await run.api.request("GET", Self.report + "?format=json").body.utf8))
            let ended = try #require(after.activities.first)
            #expect(ended.pushes.map(\.event) == recorder.pushes.map(\.event.rawValue))
            #expect(ended.pushes.last?.event == "end")
            #expect(ended.pushes.last?.merged == 2)
            #expect(ended.pushes.last?.heldSince == ended.holds.first?.at)
            #expect(ended.holds.first?.releasedAt == ended.pushes.last?.at)
            #expect(ended.phase == "ended")
        }
    }

    /// The route is behind the bearer token, refuses an unknown format, and says when it knows nothing.
    @Test func refusals() async throws {
        try await Self.withMatch { run, _ in
            let (status, body) = try await run.api.request("GET", Self.report, bearer: nil)
            #expect(status == 401, "\(body)")
            #expect(!body.contains("match-760499"))
            #expect(
                try await run.api.request("GET", Self.report + "?format=pdf") == (
                    400, #"{"error":"format: expected html or json"}"#
                ))
            let unknown = try await run.api.request("GET", "/v1/activities/match-1/report")
            #expect(unknown.status == 404)
            #expect(unknown.body.contains("nothing is known of it"))
            #expect(try await run.api.request("GET", "/v1/activities/bad%20key/report").status == 400)
        }
    }

    /// `api.report-window` 0 keeps no history: nothing is written and the route says why.
    @Test func aWindowOfZeroKeepsNothing() async throws {
        try await Self.withMatch(window: 0) { run, recorder in
            #expect(!recorder.pushes.isEmpty)
            let (status, body) = try await run.api.request("GET", Self.report)
            #expect(status == 404)
            #expect(body.contains("api.report-window is 0"))
            let rows = try await run.store.history(activity: "match-760499", from: 0)
            #expect(rows.rows.isEmpty)
        }
    }

    /// Rows read back into a trace: looks and releases in the order written; a row that cannot be read is
    /// counted and left out, not thrown, and the page's title says so.
    @Test func historyRowsMakeTheTraceAndUnreadableOnesAreCounted() throws {
        let look = ReportTrace.Look(
            at: 100, entity: "espn/1", outcomes: [.init(activity: "m", rules: ["goal"], kind: "queued")])
        let release = ReportTrace.Release(at: 101, activity: "m", kind: "sent", rules: ["goal"], event: "update")
        let rows = [
            HistoryRow(activity: "m", at: 100, kind: .look, body: try JSONEncoder().encode(look)),
            HistoryRow(activity: "m", at: 100, kind: .release, body: Data("{not json".utf8)),
            HistoryRow(activity: "m", at: 101, kind: .release, body: try JSONEncoder().encode(release)),
        ]
        let (trace, unreadable) = HistoryRecorder.trace(rows, title: "m", activity: nil)
        #expect(trace.looks == [look])
        #expect(trace.releases == [release])
        #expect(trace.source == "live")
        #expect(unreadable == 1)
    }

    /// The match moment by moment (one second apart) through `run`, with the tiny budget, then `body`.
    static func withMatch(
        window: Int? = nil, _ body: (InProcessRun, RecordingProvider) async throws -> Void
    ) async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let feed = try await RunWithAPNs.feedServer()
        var config = try DemoConfig()
        try config.setFeed(url: feed.url, interval: 1)
        var api: [String: JSONValue] = ["port": 0, "bearer-token": ["env": "LIVERELAY_TEST_BEARER"]]
        if let window { api["report-window"] = .int(window) }
        config["api"] = .object(api)
        config["throttle"] = ["budgets": ["MatchAttributes": ["size": 1, "period": 7200]]]
        let recorder = RecordingProvider()
        try await InProcessRun.run(configPath: try config.write(to: directory), providers: ["console": recorder]) {
            run in
            for step in 1..<RunWithAPNs.steps.count {
                feed.advance(to: step)
                await run.advance(by: .seconds(1))
            }
            try await body(run, recorder)
        }
        try await feed.stop()
    }
}
