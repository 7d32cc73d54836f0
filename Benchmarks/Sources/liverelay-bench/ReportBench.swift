import ArgumentParser
import Foundation
import LiveRelayCore
import Report

/// Building and writing the replay report of a long replay: a trace shaped like a whole day of matches
/// (each followed for 2 h 15 min, a feed body every 15 s, the clock changing on each, a push a minute at
/// priority 5, goals at 10 against a budget of 2 per hour so some are held and merged), through
/// ``ReplayReport/build(_:)``, the JSON and the page, with the sizes written.
struct ReportBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report", abstract: "Builds and writes the report of a day of matches (--report x.html / x.json).")

    @Option(help: "Matches in the day.") var matches = 30
    @Option(help: "Seconds between two feed bodies.") var interval = 15
    @Option(help: "Repetitions; the median is reported.") var repeats = 5

    func run() throws {
        let trace = Self.day(matches: matches, interval: interval)
        var build: [Double] = []
        var json: [Double] = []
        var html: [Double] = []
        var sizes = (json: 0, html: 0)
        var report = ReplayReport.build(trace)
        for _ in 0..<repeats {
            let clock = ContinuousClock()
            var start = clock.now
            report = ReplayReport.build(trace)
            build.append((clock.now - start).seconds)
            start = clock.now
            sizes.json = try report.jsonData().count
            json.append((clock.now - start).seconds)
            start = clock.now
            sizes.html = report.html().utf8.count
            html.append((clock.now - start).seconds)
        }
        let pushes = report.activities.reduce(0) { $0 + $1.pushes.count }
        print(
            "\(matches) matches, \(trace.steps.count) feed bodies, \(trace.looks.count) changes, \(pushes) pushes, "
                + "\(report.summary.held) held, \(report.summary.merged) merged; median of \(repeats)")
        printTable(
            ["stage", "median ms", "size"],
            [
                ["build the report (ReplayReport.build)", ms(percentile(build, 0.5)), "-"],
                ["write --report x.json", ms(percentile(json, 0.5)), Self.megabytes(sizes.json)],
                ["write --report x.html", ms(percentile(html, 0.5)), Self.megabytes(sizes.html)],
            ])
    }

    static func megabytes(_ bytes: Int) -> String { String(format: "%.2f MB", Double(bytes) / 1_000_000) }

    /// The trace: matches kick off every 30 minutes from 10:00, each 135 minutes long.
    static func day(matches: Int, interval: Int) -> ReportTrace {
        var trace = ReportTrace(title: "A day of \(matches) matches")
        let day = 1_790_000_000
        let kickOffs = (0..<matches).map { day + 36_000 + $0 * 1_800 }
        let end = (kickOffs.last ?? day) + 8_100
        var index = 0
        var at = day + 36_000 - 300
        var lastPush: [Int: Int] = [:]
        var spent: [Int: [Int]] = [:]
        var waiting: [Int: (since: Int, until: Int)] = [:]
        var score: [Int: (Int, Int)] = [:]
        while at <= end {
            trace.steps.append(.init(index: index, at: at, entities: matches))
            index += 1
            for (m, kickOff) in kickOffs.enumerated() where at >= kickOff - 300 && at <= kickOff + 8_100 {
                let key = "match-\(m)"
                let entity = "espn/\(m)"
                let minute = max(0, (at - kickOff) / 60)
                // A goal about every 20 minutes of a match, at a time its own.
                let goal = at > kickOff && (at - kickOff + m * 97) % 1_200 < interval
                if goal {
                    var s = score[m] ?? (0, 0)
                    if (at / 2_400 + m) % 2 == 0 { s.0 += 1 } else { s.1 += 1 }
                    score[m] = s
                }
                let s = score[m] ?? (0, 0)
                let facts: [String: JSONValue] = [
                    "state": .string(at < kickOff ? "pre" : at >= kickOff + 8_000 ? "post" : "in"),
                    "period": .int(minute < 45 ? 1 : 2), "clock.display": .string("\(minute)'"),
                    "home.abbr": "AAA", "away.abbr": "BBB", "home.score": .int(s.0), "away.score": .int(s.1),
                ]
                var outcome: ReportTrace.Outcome?
                let started = lastPush[m] != nil
                let rules: [String]
                if !started && at >= kickOff {
                    rules = ["kick-off"]
                    outcome = .init(activity: key, rules: rules, kind: "queued", event: "start")
                } else if started && (goal || at - (lastPush[m] ?? 0) >= 60) {
                    rules = goal ? ["goal", "clock"] : ["clock"]
                    outcome = .init(
                        activity: key, rules: rules, kind: waiting[m] == nil ? "queued" : "merged",
                        into: waiting[m] == nil ? nil : ["goal"], event: "update")
                } else if started {
                    rules = ["clock"]
                    outcome = .init(
                        activity: key, rules: rules, kind: "skipped",
                        reason: "content-state unchanged since the last push")
                } else {
                    rules = []
                }
                trace.looks.append(
                    .init(
                        at: at, entity: entity, changed: ["clock.display", "clock.seconds"], facts: facts,
                        fired: rules, outcomes: outcome.map { [$0] } ?? []))
                guard let outcome, outcome.kind == "queued" || outcome.kind == "merged" else { continue }
                if let hold = waiting[m] {
                    guard at >= hold.until else { continue }
                    waiting[m] = nil
                }
                // A budget of 2 priority-10 pushes an hour: a goal past it waits.
                var used = (spent[m] ?? []).filter { $0 > at - 3_600 }
                if goal && used.count >= 2 {
                    let until = used[0] + 3_600
                    waiting[m] = (at, until)
                    trace.releases.append(.init(at: at, activity: key, kind: "held", rules: rules, until: until))
                    continue
                }
                let high = goal || outcome.event == "start"
                if goal { used.append(at) }
                spent[m] = used
                lastPush[m] = at
                trace.releases.append(
                    .init(
                        at: at, activity: key, kind: "sent", rules: rules, event: outcome.event,
                        priority: high ? 10 : 5, relevance: goal ? 100 : 50,
                        alert: high ? ReportAlert(title: "AAA \(s.0)–\(s.1) BBB", body: "\(minute)'") : nil,
                        timestamp: at))
            }
            at += interval
        }
        trace.activities = (0..<matches).map {
            .init(
                key: "match-\($0)", attributesType: "MatchAttributes", phase: "ended",
                budget: ReportBudget(size: 2, period: 3_600))
        }
        return trace
    }
}
