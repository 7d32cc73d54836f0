import Foundation
import LiveRelayCore
import Rules
import Testing

/// Mistakes that compile but ran wrong, each reported by the loader (so by `check`, by `run` at start and
/// by a reload) at its `file:line:column`.
@Suite struct RuleLintTests {
    /// Loads one rule (written on one line) whose feed `prices` gives `price` and `change24h.percent`.
    static func diagnostics(_ rule: String) -> [Diagnostic] {
        let loader = RuleLoader(
            knownFeeds: ["prices", "scores"],
            knownFacts: [
                "prices": ["price", "change24h.percent"], "scores": ["home.score", "away.score", "state"],
            ],
            otherFacts: ["price", "change24h.percent", "open24h", "home.score", "away.score", "state"])
        return loader.load(file: "r.json", data: Data(#"{"rules": [\#(rule)]}"#.utf8)).1
    }

    static func rule(when: String, key: String = #""m""#, feed: String = "prices") -> String {
        #"{"id": "r", "feed": "\#(feed)", "when": \#(when), "event": "update", "activity": {"key": \#(key), "attributes-type": "T"}}"#
    }

    @Test(arguments: [
        // A fact no feed of the rule gives: the start went out with an empty content-state.
        (
            rule(when: #"{">": [{"var": "curr.prise"}, 1]}"#), "1:58",
            "no feed of this rule gives a fact prise (did you mean price?)"
        ),
        // A misspelt root.
        (
            rule(when: #"{">": [{"var": "cur.price"}, 1]}"#), "1:58",
            "reads cur, which a rule does not see (did you mean curr?)"
        ),
        // An operator missing an argument.
        (rule(when: #"{"some": [{"var": "curr.price"}]}"#), "1:51", "some needs 2 arguments, it has 1"),
        // A condition written as a plain string: it fired on every change.
        (
            rule(when: #""curr.price > 100""#), "1:50",
            "when is the plain string \"curr.price > 100\", which is always true"
        ),
        // An object with two operators: data, always true.
        (
            rule(when: #"{">": [{"var": "curr.price"}, 1], "<": [{"var": "curr.price"}, 9]}"#), "1:50",
            "it is always true"
        ),
        // `in` with its arguments swapped.
        (
            rule(when: #"{"in": [{"var": "changed"}, "price"]}"#), "1:51",
            "in looks for its first argument in its second"
        ),
        // An activity key the token API refuses.
        (
            rule(when: "true", key: #"{"cat": ["BTC alert/", {"var": "entity.id"}]}"#), "1:104",
            "has characters the token API refuses"
        ),
        // A member the activity does not have.
        (rule(when: #"{"var": "activity.sentAt"}"#), "1:51", "activity has no sentAt (did you mean sent-at?)"),
        // `==` with an array: it raises NaN whatever the other side is.
        (
            rule(when: #"{"==": [{"var": "changed"}, ["price"]]}"#), "1:51",
            "== never compares an array or an object (it raises NaN): write ==="
        ),
        // A misspelt fact tested against `changed`: never in it, so the rule never fired.
        (
            rule(when: #"{"in": ["prise", {"var": "changed"}]}"#), "1:58",
            "no feed of this rule gives a fact prise (did you mean price?), so it is never in changed"
        ),
        // An object's name tested against `changed`, which lists facts by their full names.
        (
            rule(when: #"{"in": ["change24h", {"var": "changed"}]}"#), "1:58",
            "\"change24h\" is an object, and changed lists the facts that changed by their full names (change24h.percent)"
        ),
        // A fact a quiet rule names that its feed does not give: its quiet spell would never restart.
        (
            #"{"id": "r", "feed": "scores", "on": {"quiet": 60, "facts": ["home.scroe"]}, "event": "update", "activity": {"key": "m", "attributes-type": "T"}}"#,
            "1:72", "no feed of this rule gives a fact home.scroe (did you mean home.score?)"
        ),
        // A member of the activity misspelt.
        (
            rule(when: #"{"var": "activity.changedAt"}"#), "1:51",
            "activity has no changedAt (did you mean changed-at?)"
        ),
        // `format` of nothing.
        (rule(when: #"{"==": [{"format": []}, "0"]}"#), "1:59", "format needs 1 argument, it has 0"),
        // `format` grouping and decimals with one separator: 1.234.567.89.
        (
            rule(when: #"{"==": [{"format": [{"var": "curr.price"}, 2, ".", "."]}, "0"]}"#), "1:96",
            "format groups thousands with \".\", its decimal separator too"
        ),
    ])
    func eachMistakeIsAnErrorWhereItIs(rule: String, location: String, message: String) {
        let found = Self.diagnostics(rule)
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.isError == true)
        #expect(found.first?.location.map { "\($0)" } == location, "\(found)")
        #expect(found.first?.message.contains(message) == true, "\(found)")
    }

    @Test func whatMayBeIntendedIsAWarningAndTheRuleLoads() {
        let text =
            #"{"rules": [\#(Self.rule(when: "false")), \#(Self.rule(when: #"{"in": ["a", "abc", "x"]}"#).replacingOccurrences(of: #""id": "r""#, with: #""id": "s""#))]}"#
        let (rules, found) = RuleLoader(knownFeeds: ["prices"]).load(file: "r.json", data: Data(text.utf8))
        #expect(rules.count == 2)
        #expect(found.map(\.severity) == [.warning, .warning], "\(found)")
        #expect(
            found.first?.description == "r.json:1:50: warning: rule r: when is false: the rule never fires", "\(found)")
        #expect(found.last?.message.contains("in uses 2 arguments; the rest are ignored") == true, "\(found)")
    }

    /// `round` with a third argument: ignored, so probably not what was meant.
    @Test func roundWithThreeArgumentsIsAWarning() {
        let found = Self.diagnostics(Self.rule(when: #"{">": [{"round": [{"var": "curr.price"}, 2, 5]}, 1]}"#))
        #expect(found.map(\.severity) == [.warning], "\(found.map(\.description))")
        #expect(found.first?.message.contains("round uses 2 arguments; the rest are ignored") == true, "\(found)")
    }

    /// An update, end or timer rule whose key no start rule can make never fires: a warning at its key.
    @Test func aKeyNoStartMakesIsAWarning() {
        func rule(_ id: String, _ event: String, _ key: String) -> String {
            let start = event == "start" ? #", "alert": {"title": "t", "body": "b"}"# : ""
            let attributes = event == "start" ? #", "attributes": {}"# : ""
            return
                #"{"id": "\#(id)", "feed": "prices", "when": true, "event": "\#(event)"\#(start), "activity": {"key": \#(key), "attributes-type": "T"\#(attributes)}}"#
        }
        let text =
            #"{"rules": [\#(rule("open", "start", #"{"cat": ["stock-", {"var": "entity.id"}]}"#)), \#(rule("move", "update", #"{"cat": ["stocks-", {"var": "entity.id"}]}"#)), \#(rule("close", "end", #"{"cat": ["stock-", {"var": "entity.id"}]}"#)), \#(rule("fixed", "update", #""stock-AAPL""#)), \#(rule("other", "update", #""index-SPX""#))]}"#
        let (_, found) = RuleLoader().load(file: "r.json", data: Data(text.utf8))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyreach-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("r.json").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
        let set = RuleLoader().load(paths: [path])
        #expect(found.isEmpty, "one file's load knows no other file's starts: \(found)")
        #expect(
            set.diagnostics.map { $0.description.replacingOccurrences(of: path, with: "r.json") } == [
                #"r.json:1:308: warning: rule move: no start rule makes a key like "stocks-…" (start rules make "stock-…"): this update rule never finds an activity to act on"#,
                #"r.json:1:745: warning: rule other: no start rule makes a key like "index-SPX" (start rules make "stock-…"): this update rule never finds an activity to act on"#,
            ])
        #expect(set.rules.count == 5, "a warning: every rule loads")
    }

    /// A fact of another preset (a sports fact on a price feed, or a 24-hour open on a feed without it): one
    /// rule set for several presets may mean it (it reads null there), so it is a warning, once per fact.
    @Test func aFactOfAnotherFeedIsAWarningOncePerRule() {
        let found = Self.diagnostics(
            Self.rule(when: #"{"and": [{">": [{"var": "curr.home.score"}, 1]}, {"var": "prev.home.score"}]}"#))
        #expect(found.map(\.severity) == [.warning], "\(found.map(\.description))")
        #expect(found.first?.message.contains("the feeds of this rule do not give home.score (other feeds do)") == true)
    }

    /// `{"!=": [fact, null]}` is false for a fact of 0 (as the JsonLogic suites have it): "is this fact
    /// missing" is `!==`. Said once for each such comparison; the strict one is not flagged.
    @Test func looseEqualityWithNullIsAWarning() {
        let found = Self.diagnostics(
            Self.rule(
                when:
                    #"{"and": [{"!=": [{"var": "prev.price"}, null]}, {"!==": [{"var": "curr.price"}, null]}]}"#))
        #expect(found.map(\.severity) == [.warning], "\(found.map(\.description))")
        #expect(found.first?.location.map { "\($0)" } == "1:60", "\(found)")
        #expect(
            found.first?.message.contains(
                #"!= with null is also false for 0 and false, so a fact of 0 reads as missing: write {"!==": [fact, null]}"#
            )
                == true, "\(found)")
    }

    @Test func theItemOfAnIterationIsNotTheRulesData() {
        let found = Self.diagnostics(
            Self.rule(when: #"{"some": [[1, 2], {">": [{"var": ""}, 1]}]}"#) + ","
                + #"{"id": "s", "feed": "prices", "when": {"all": [{"var": "changed"}, {"!=": [{"var": "length"}, 0]}]}, "event": "update", "activity": {"key": "m", "attributes-type": "T"}}"#
        )
        #expect(found.isEmpty, "\(found)")
    }

    @Test func withoutAConfigFactsAreNotChecked() {
        let text = #"{"rules": [\#(Self.rule(when: #"{">": [{"var": "curr.anything"}, 1]}"#))]}"#
        #expect(RuleLoader().load(file: "r.json", data: Data(text.utf8)).1.isEmpty)
    }
}
