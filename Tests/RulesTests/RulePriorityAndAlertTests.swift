import Foundation
import LiveRelayCore
import Rules
import Testing

/// `priority` may be an expression, and an alert whose title is null is no alert: what rule authors asked for
/// when "high only on a lead change or in the last two minutes" took two rules, and a null text sent an
/// empty alert at priority 10.
@Suite struct RulePriorityAndAlertTests {
    static func engine(_ rules: String) throws -> RuleEngine {
        let (loaded, diagnostics) = RuleLoader().load(file: "r.json", data: Data(#"{"rules": [\#(rules)]}"#.utf8))
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        return RuleEngine(rules: loaded)
    }

    static func change(home: Int, away: Int, minute: Int, previous: (Int, Int)) -> FeedChange {
        let prev = Facts(["home": ["score": .int(previous.0)], "away": ["score": .int(previous.1)], "minute": 0])
        let curr = Facts(["home": ["score": .int(home)], "away": ["score": .int(away)], "minute": .int(minute)])
        return FeedChange(
            entity: EntityKey(feed: "f", id: "1"), previous: prev, current: curr,
            changedPaths: Facts.changedPaths(from: prev, to: curr))
    }

    /// One rule: high when the lead changes hands or in the last two minutes, low otherwise.
    static let conditional = #"""
        {"id": "score", "feed": "f", "when": true, "event": "update",
         "activity": {"key": "m", "attributes-type": "MatchAttributes"},
         "content-state": {"home": {"var": "curr.home.score"}, "away": {"var": "curr.away.score"}},
         "priority": {"if": [
           {"or": [
             {"!=": [{">": [{"var": "curr.home.score"}, {"var": "curr.away.score"}]},
                     {">": [{"var": "prev.home.score"}, {"var": "prev.away.score"}]}]},
             {">=": [{"var": "curr.minute"}, 88]}]},
           "high", "low"]}}
        """#

    @Test func priorityCanBeAnExpression() throws {
        let engine = try Self.engine(Self.conditional)
        let leadChange = engine.evaluate(Self.change(home: 2, away: 1, minute: 60, previous: (1, 1)), now: 0)
        let sameLead = engine.evaluate(Self.change(home: 3, away: 1, minute: 61, previous: (2, 1)), now: 0)
        let lastMinutes = engine.evaluate(Self.change(home: 3, away: 2, minute: 89, previous: (3, 1)), now: 0)
        #expect(leadChange.intents.map(\.priority) == [.high])
        #expect(sameLead.intents.map(\.priority) == [.low])
        #expect(lastMinutes.intents.map(\.priority) == [.high])
    }

    @Test func aPriorityThatIsNoneOfTheThreeIsARuleError() throws {
        let engine = try Self.engine(
            #"{"id": "p", "feed": "f", "when": true, "event": "update", "activity": {"key": "m", "attributes-type": "T"}, "priority": {"var": "curr.minute"}}"#
        )
        let result = engine.evaluate(Self.change(home: 1, away: 0, minute: 7, previous: (0, 0)), now: 0)
        #expect(result.intents.isEmpty)
        #expect(result.errors.map(\.message) == [#"priority evaluated to integer 7, expected "high", "low" or "auto""#])
    }

    @Test func aConstantPriorityMustBeOneOfTheThree() {
        let text = #"""
            {"rules": [{"id": "p", "feed": "f", "when": true, "event": "update",
              "activity": {"key": "m", "attributes-type": "T"}, "priority": {"cat": ["hi", "gh"]}},
             {"id": "q", "feed": "f", "when": true, "event": "update",
              "activity": {"key": "m", "attributes-type": "T"}, "priority": {"cat": ["urg", "ent"]}}]}
            """#
        let (rules, diagnostics) = RuleLoader().load(file: "r.json", data: Data(text.utf8))
        #expect(rules.map(\.id) == ["p"])
        #expect(rules.first?.priority == .high && rules.first?.priorityExpression == nil)
        #expect(
            diagnostics.map(\.description) == [
                #"r.json:4:65: rule q: priority is always "urgent", not "high", "low" or "auto""#
            ])
    }

    /// The alert's title evaluates to null: the push carries no alert (not an empty one). A start must have
    /// one, so there a null title is a rule error naming it.
    @Test func aNullAlertTitleMeansNoAlert() throws {
        let engine = try Self.engine(
            #"""
            {"id": "goal", "feed": "f", "when": true, "event": "update", "activity": {"key": "m", "attributes-type": "T"},
             "alert": {"title": {"if": [{">": [{"var": "curr.home.score"}, {"var": "prev.home.score"}]}, "Goal!", null]},
                       "body": {"cat": ["Score ", {"var": "curr.home.score"}]}}},
            {"id": "start", "feed": "f", "when": true, "event": "start",
             "activity": {"key": "s", "attributes-type": "T", "attributes": {"name": "x"}},
             "alert": {"title": {"var": "curr.nothing"}, "body": "Kick-off"}}
            """#)
        let goal = engine.evaluate(Self.change(home: 1, away: 0, minute: 7, previous: (0, 0)), now: 0)
        #expect(goal.intents.first?.alert?.title == "Goal!")
        let noGoal = engine.evaluate(Self.change(home: 1, away: 1, minute: 8, previous: (1, 0)), now: 0)
        #expect(noGoal.intents.map(\.ruleID) == ["goal"])
        #expect(noGoal.intents.first?.alert == nil)
        #expect(
            noGoal.errors.map(\.message) == [
                "alert title evaluated to null: a start needs an alert (Apple requires one)"
            ])
    }

    /// `stale-after` and `dismissal-after` may be expressions too: a longer stale date at half-time, the
    /// activity gone at once when the match was abandoned.
    @Test func staleAfterAndDismissalAfterCanBeExpressions() throws {
        let engine = try Self.engine(
            #"""
            {"id": "u", "feed": "f", "when": true, "event": "update", "activity": {"key": "m", "attributes-type": "T"},
             "stale-after": {"if": [{">=": [{"var": "curr.minute"}, 45]}, 1800, 300]}},
            {"id": "e", "feed": "f", "when": {">": [{"var": "curr.minute"}, 90]}, "event": "end",
             "activity": {"key": "n", "attributes-type": "T"},
             "dismissal-after": {"if": [{">": [{"var": "curr.minute"}, 120]}, 0, null]}},
            {"id": "bad", "feed": "f", "when": {"==": [{"var": "curr.minute"}, 7]}, "event": "update",
             "activity": {"key": "o", "attributes-type": "T"}, "stale-after": {"-": [0, {"var": "curr.minute"}]}}
            """#)
        let early = engine.evaluate(Self.change(home: 0, away: 0, minute: 7, previous: (0, 0)), now: 0)
        #expect(early.intents.map(\.staleAfter) == [300])
        #expect(early.errors.map(\.message) == ["stale-after evaluated to integer -7, expected seconds ≥ 0"])
        let late = engine.evaluate(Self.change(home: 0, away: 0, minute: 95, previous: (0, 0)), now: 0)
        #expect(late.intents.map(\.staleAfter) == [1800, nil])
        #expect(late.intents.last?.dismissalAfter == nil, "null: the default dismissal")
        let abandoned = engine.evaluate(Self.change(home: 0, away: 0, minute: 121, previous: (0, 0)), now: 0)
        #expect(abandoned.intents.last?.dismissalAfter == 0)

        let (rules, diagnostics) = RuleLoader().load(
            file: "r.json",
            data: Data(
                #"{"rules": [{"id": "c", "feed": "f", "when": true, "event": "update", "activity": {"key": "m", "attributes-type": "T"}, "stale-after": {"cat": ["1", "0"]}}]}"#
                    .utf8))
        #expect(rules.isEmpty)
        #expect(diagnostics.map(\.message) == [#"rule c: stale-after is always "10", not a number of seconds ≥ 0"#])
    }
}

/// The rule ids LiveRelay gives what it decides without a rule (a late joiner's start, a deleted
/// subscription's end) are its own: a rule of that id would be told apart from them by nothing.
@Suite struct ReservedRuleIDTests {
    @Test func aRuleMayNotTakeAnIdLiveRelayUses() {
        for id in ReservedRuleID.all.sorted() {
            let text = """
                {"rules": [
                  {"id": "\(id)", "feed": "f", "when": true, "event": "update",
                   "activity": {"key": "a", "attributes-type": "T"}}
                ]}
                """
            let (rules, diagnostics) = RuleLoader().load(file: "r.json", data: Data(text.utf8))
            #expect(rules.isEmpty)
            #expect(
                diagnostics.map(\.description) == [
                    "r.json:2:3: rule \(id): the id is LiveRelay's own (the pushes it decides without a rule carry "
                        + "it); choose another"
                ])
        }
        let fine =
            #"{"rules": [{"id": "late-joiner", "feed": "f", "when": true, "event": "update", "activity": {"key": "a", "attributes-type": "T"}}]}"#
        #expect(RuleLoader().load(file: "r.json", data: Data(fine.utf8)).1.isEmpty)
    }
}
