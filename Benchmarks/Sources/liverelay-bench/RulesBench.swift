import ArgumentParser
import Foundation
import LiveRelayCore
import Rules

/// Compiled JsonLogic condition evaluations per second on one core.
struct RulesBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "Compiled JsonLogic evaluations per second: the conformance suite and the example rules.")

    @Option(help: "The JsonLogic conformance suite.") var conformance =
        "Tests/RulesTests/Resources/jsonlogic-tests.json"
    @Option(help: "The example rule file.") var rules = "Rules/soccer.rules.json"
    @Option(help: "Seconds to run each case.") var seconds = 2.0

    func run() throws {
        var rows: [[String]] = []
        // The conformance suite: every rule against its own data, round-robin.
        let suite = try JSONParser.parse(Data(contentsOf: URL(fileURLWithPath: conformance)))
        let cases = try suite.arrayValue!.compactMap { $0.arrayValue }.map {
            (try JsonLogicExpression.compile($0[0]), $0[1])
        }
        rows.append([
            "conformance suite (\(cases.count) rules)",
            measure { i in try? cases[i % cases.count].0.evaluate(cases[i % cases.count].1) },
        ])
        // The example rules' conditions on a real change (a goal, as the rules see it).
        let set = RuleLoader().load(paths: [rules])
        guard set.diagnostics.isEmpty else { throw ValidationError("\(set.diagnostics)") }
        let prev = Facts([
            "state": "in", "status": "STATUS_FIRST_HALF", "period": 1, "clock": ["seconds": 1200, "display": "20'"],
            "home": ["score": 0, "name": "Australia", "abbr": "AUS"],
            "away": ["score": 0, "name": "Egypt", "abbr": "EGY"],
        ])
        var curr = prev
        curr.set("away.score", 1)
        curr.set("clock.display", "44'")
        curr.set("clock.seconds", 2640)
        let change = FeedChange(
            entity: EntityKey(feed: "espn-worldcup", id: "760499"), previous: prev, current: curr,
            changedPaths: Facts.changedPaths(from: prev, to: curr))
        let data = RuleEngine.data(for: change, now: 1_783_104_240)
        let conditions = set.rules.map(\.when)
        rows.append([
            "example rule conditions (\(conditions.count), \(rules))",
            measure { i in try? conditions[i % conditions.count].evaluate(data) },
        ])
        let engine = RuleEngine(rules: set.rules)
        rows.append([
            "whole rule set per change (intents built)",
            measure(scale: set.rules.count) { _ in engine.evaluate(change, now: 1_783_104_240).intents.count },
        ])
        printTable(["case", "evaluations/s (one core)"], rows)
    }

    /// Runs `body` in a loop for `seconds`; returns evaluations per second (× `scale` per call).
    private func measure<T>(scale: Int = 1, _ body: (Int) -> T) -> String {
        var i = 0
        var sink = 0
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start.advanced(by: .milliseconds(Int(seconds * 1000)))
        while clock.now < deadline {
            for _ in 0..<1000 {
                withExtendedLifetime(body(i)) { sink &+= 1 }
                i += 1
            }
        }
        let elapsed = (clock.now - start).seconds
        precondition(sink == i)
        return String(format: "%.0f", Double(i * scale) / elapsed)
    }
}
