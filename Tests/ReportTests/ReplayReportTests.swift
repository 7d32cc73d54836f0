import Foundation
import LiveRelayCore
import LiveRelayTesting
import Report
import Rules
import Testing
import Worker
import WorkerTesting

/// The report's data against what the replay decided: the tiny-budget demo (one priority-10 push per two
/// hours) holds the equaliser, merges the extra-time clock into it, and downgrades full time.
@Suite struct ReplayReportTests {
    static let tinyBudget = "Samples/demo/tiny-budget.json"
    static let match = "Samples/sequences/espn-aus-egy/sequence.json"

    /// The tiny-budget demo replayed with a recording provider, and its report.
    static func tinyBudgetReport() async throws -> (ReplayReport, [LiveActivityPush]) {
        let recorder = RecordingProvider()
        let summary = try await SequenceReplay.run(config: tinyBudget, sequence: match, provider: recorder)
        return (ReplayReport.build(summary.trace), recorder.pushes)
    }

    static func time(_ iso: String) -> Int { ISO8601Time.seconds(iso)! }

    @Test func everyPushTheProviderGotIsInTheReportAsSent() async throws {
        let (report, sent) = try await Self.tinyBudgetReport()
        let activity = try #require(report.activities.first)
        #expect(report.activities.map(\.key) == ["match-760499"])
        #expect(activity.pushes.map(\.event) == sent.map(\.event.rawValue))
        #expect(activity.pushes.map(\.priority) == sent.map(\.priority.rawValue))
        #expect(activity.pushes.map(\.timestamp) == sent.map(\.timestamp))
        #expect(activity.pushes.map(\.rules) == sent.map(\.ruleIDs))
        #expect(activity.pushes.map(\.alert?.title) == sent.map(\.alert?.title))
        #expect(activity.pushes.map(\.relevance) == sent.map(\.relevanceScore?.value))
        #expect(report.summary.pushes == sent.count)
        #expect(activity.phase == "ended")
        #expect(activity.budget == ReportBudget(size: 1, period: 7200))
    }

    @Test func theHeldEqualiserTheMergeAndTheDowngradeAtFullTimeAreInTheData() async throws {
        let (report, _) = try await Self.tinyBudgetReport()
        let activity = try #require(report.activities.first)
        // The equaliser (78', 19:35) waits for the budget spent by Egypt's goal at 18:44.
        #expect(
            activity.holds == [
                ReportHold(
                    at: Self.time("2026-07-03T19:35:00Z"), until: Self.time("2026-07-03T20:44:00Z"),
                    releasedAt: Self.time("2026-07-03T20:44:00Z"), rules: ["goal", "clock"])
            ])
        // The extra-time clock (20:00) merges into it.
        let merge = try #require(activity.changes.first { $0.outcome == "merged" })
        #expect(merge.at == Self.time("2026-07-03T20:00:00Z"))
        #expect(merge.rules == ["clock"])
        #expect(merge.into == ["goal", "clock"])
        #expect(merge.facts["clock.display"] == "96'")
        // It goes out at 10 with its alert when the budget returns, carrying the merged state.
        let equaliser = try #require(activity.pushes.first { $0.heldSince != nil })
        #expect(equaliser.at == Self.time("2026-07-03T20:44:00Z"))
        #expect(equaliser.heldSince == Self.time("2026-07-03T19:35:00Z"))
        #expect(equaliser.priority == 10 && !equaliser.downgraded && equaliser.merged == 1)
        #expect(equaliser.alert?.title == "Goal! Australia")
        #expect(equaliser.rules == ["goal", "clock", "clock"])
        // Full time finds the budget spent again: downgraded to 5, without its alert.
        let end = try #require(activity.pushes.last)
        #expect(end.event == "end" && end.priority == 5 && end.downgraded && end.alert == nil)
        #expect(end.at == Self.time("2026-07-03T20:45:00Z"))
        #expect(report.summary.held == 1 && report.summary.merged == 1 && report.summary.downgraded == 1)
        #expect(activity.counts.budgetLow == 0)
    }

    @Test func theBudgetPointsFollowTheThrottlesWindow() async throws {
        let (report, _) = try await Self.tinyBudgetReport()
        let activity = try #require(report.activities.first)
        let points = activity.budgetPoints.map { [$0.at, $0.used] }
        #expect(
            points == [
                [Self.time("2026-07-03T18:44:00Z"), 1],  // Egypt's goal spends the one push
                [Self.time("2026-07-03T20:44:00Z"), 0],  // two hours later it returns…
                [Self.time("2026-07-03T20:44:00Z"), 1],  // …and the held equaliser spends it at once
                [Self.time("2026-07-03T22:44:00Z"), 0],
            ])
        #expect(activity.budgetPoints.map(\.change) == ["send", "refill", "send", "refill"])
        // The hold ends exactly when the budget refills; the downgrade happens with the budget full.
        let hold = try #require(activity.holds.first)
        #expect(activity.budgetPoints.contains { $0.change == "refill" && $0.at == hold.until })
        let end = try #require(activity.pushes.last)
        let usedAtEnd = activity.budgetPoints.last { $0.at <= end.at }?.used
        #expect(usedAtEnd == activity.budget.size)
    }

    @Test func theSummaryCountsPushesByEventAndPriorityAndWhatEachRuleDid() async throws {
        let (report, _) = try await Self.tinyBudgetReport()
        let rows = report.summary.byEvent.map { "\($0.event)/\($0.priority)×\($0.count)" }
        #expect(rows == ["start/10×1", "update/10×2", "update/5×2", "end/5×1"])
        let rules = Dictionary(uniqueKeysWithValues: report.summary.rules.map { ($0.rule, $0) })
        #expect(rules["goal"]?.fired == 2)
        #expect(rules["goal"]?.pushes == 2)
        #expect(rules["clock"]?.merged == 1)
        #expect(rules["full-time"]?.produced == [EventCount(event: "end", priority: 5, count: 1)])
        #expect(report.steps.count == 8)
        #expect(report.steps.first?.entities == 32)
    }

    /// `--report FILE.json` writes exactly the model; it decodes back to the same value and fits the
    /// documented schema.
    @Test func theJSONIsTheModelAndFitsItsSchema() async throws {
        let (report, _) = try await Self.tinyBudgetReport()
        let data = try report.jsonData()
        #expect(try JSONDecoder().decode(ReplayReport.self, from: data) == report)
        let schema = try JSONSchema(
            try JSONParser.parse(try Data(contentsOf: Repository.url("docs/report.schema.json"))))
        let violations = schema.validate(try JSONParser.parse(data))
        #expect(violations.isEmpty, "\(violations)")
        // The schema is strict enough to catch a wrong shape.
        var broken = try JSONParser.parse(data).objectValue!
        broken["activities"] = .array([.object(["key": "x"])])
        #expect(!schema.validate(.object(broken)).isEmpty)
    }

    /// An entity that leaves the feed and comes back is marked so on its activity's timeline (not drawn as an
    /// ordinary change), and a fact the author names with `--plot` is drawn as a line whatever the feed.
    @Test func goneAndBackAreMarkedAndANamedFactIsPlotted() async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bodies = Repository.path("Samples/sequences/binance-btc-bnb")
        let sequence = """
            {"feed": "markets", "steps": [
              {"at": "2019-08-22T03:38:26Z", "body": "\(Repository.path("Samples/recordings/binance-ticker-24hr-all-symbols.json"))"},
              {"at": "2019-08-22T03:41:00Z", "body": "\(bodies)/03-bnb-drops.json"},
              {"at": "2019-08-22T03:50:00Z", "body": "\(bodies)/05-bnb-halted.json", "note": "BNB gone"},
              {"at": "2019-08-22T03:55:00Z", "body": "\(bodies)/03-bnb-drops.json", "note": "BNB back"}]}
            """
        let path = directory.appendingPathComponent("sequence.json").path
        try sequence.write(toFile: path, atomically: true, encoding: .utf8)
        let summary = try await SequenceReplay.run(
            config: "Samples/presets/binance.json", sequence: path, plotted: ["change24h.percent"])
        let report = ReplayReport.build(summary.trace)
        #expect(report.plotted == ["change24h.percent"])
        let bnb = try #require(report.activities.first { $0.key == "price-BNBUSDT" })
        #expect(bnb.changes.compactMap(\.presence) == ["new", "gone", "back"], "\(bnb.changes.map(\.presence))")
        #expect(bnb.changes.contains { $0.facts["change24h.percent"] != nil })
        let html = report.html()
        #expect(html.contains(">left the feed</text>"))
        #expect(html.contains(">back in the feed</text>"))
        #expect(html.contains(#"data-fact="change24h.percent""#))
    }
}
