import Foundation
import LiveRelayCore
import LiveRelayTesting
import Rules
import Testing

/// What a rule file says for all its rules: its constants (shared by every file) and `late-join`.
extension RuleLoaderTests {
    /// A rule file's constants: a per-symbol threshold table written once and read by every rule, by a name
    /// written out or by one computed for the entity at hand; a name the file does not define is an error.
    @Test func constantsAreReadByEveryRuleOfTheFile() throws {
        let text = """
            {"constants": {"thresholds": {"AAPL": 190, "MSFT": 420}, "margin": 0.5},
             "rules": [{"id": "cross", "feed": "f", "event": "update",
              "when": {">": [{"var": "curr.price"},
                             {"+": [{"var": {"cat": ["constants.thresholds.", {"var": "entity.id"}]}},
                                    {"var": "constants.margin"}]}]},
              "activity": {"key": {"cat": ["stock-", {"var": "entity.id"}]}, "attributes-type": "T"},
              "content-state": {"level": {"var": "constants.thresholds.AAPL"}}}]}
            """
        let (rules, found) = RuleLoader().load(file: "r.json", data: Data(text.utf8))
        #expect(found.isEmpty, "\(found)")
        let engine = RuleEngine(rules: rules)
        func fires(_ symbol: String, _ price: Int) -> Bool {
            let facts = Facts(["price": .int(price)])
            let change = FeedChange(
                entity: EntityKey(feed: "f", id: symbol), previous: nil, current: facts, changedPaths: ["price"])
            return !engine.evaluate(change, now: 0).intents.isEmpty
        }
        #expect(fires("AAPL", 191))
        #expect(!fires("AAPL", 190))
        #expect(!fires("MSFT", 300))
        #expect(fires("MSFT", 421))

        let typo = RuleLoader().load(
            file: "r.json", data: Data(text.replacingOccurrences(of: "constants.margin", with: "constants.margn").utf8)
        ).1
        #expect(
            typo.map(\.description) == [
                #"r.json:5:26: rule cross: "constants.margn": the file defines no constant margn (did you mean constants.margin?); it defines margin, thresholds"#
            ])
    }

    /// All rule files share one set of constants: a name another file gives another value is an error, and
    /// that file's rules stay out.
    @Test func aConstantGivenTwoValuesIsAnError() throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func file(_ name: String, _ margin: String) throws -> String {
            let path = directory.appendingPathComponent(name).path
            try
                #"{"constants": {"margin": \#(margin)}, "rules": [{"id": "\#(name.prefix(1))", "feed": "f", "when": true, "event": "update", "activity": {"key": "k", "attributes-type": "T"}}]}"#
                .write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let a = try file("a.json", "0.5")
        let b = try file("b.json", "0.50")
        let c = try file("c.json", "1")
        let set = RuleLoader().load(paths: [a, b, c])
        #expect(set.rules.map(\.id) == ["a", "b"], "the same value written another way is the same")
        #expect(
            set.diagnostics.map(\.description) == [
                "\(c): constant \"margin\" is also defined in \(a) with another value: every rule file shares one set of constants, so its rules are left out"
            ])
    }

    /// `late-join` is the file's: `start` by default, `none` turns late joiners' starts off for its rules,
    /// and anything else is a schema error where it is written.
    @Test func lateJoinIsReadFromTheFile() {
        func load(_ lateJoin: String?) -> ([Rule], [Diagnostic]) {
            let member = lateJoin.map { #""late-join": \#($0),"# } ?? ""
            let text = """
                {\(member) "rules": [{"id": "kick-off", "feed": "f", "when": true, "event": "start",
                  "activity": {"key": "k", "attributes-type": "T", "attributes": {}},
                  "alert": {"title": "Kick-off", "body": "now"}}]}
                """
            return RuleLoader().load(file: "r.json", data: Data(text.utf8))
        }
        #expect(load(nil).0.map(\.lateJoin) == [true], "\(load(nil).1)")
        #expect(load(#""start""#).0.map(\.lateJoin) == [true])
        #expect(load(#""none""#).0.map(\.lateJoin) == [false])
        let wrong = load(#""later""#).1
        #expect(wrong.count == 1)
        #expect(wrong.first?.description.hasPrefix("r.json:1:15:") == true, "\(wrong)")
        #expect(wrong.first?.description.contains("start") == true, "\(wrong)")
    }
}
