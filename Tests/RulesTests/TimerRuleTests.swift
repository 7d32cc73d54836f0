import Foundation
import LiveRelayCore
import Rules
import Testing

/// Timer rules and rules that read `activity`: the pure clock that says when a timer rule is due, what the
/// engine does with it, and the mistakes the loader refuses.
@Suite struct TimerRuleTests {
    // MARK: The clock

    @Test func everyKeepsItsRhythmFromTheStartThoughAPassComesLate() {
        func decide(_ last: Int?, _ now: Int) -> TimerClock.Decision {
            TimerClock.decide(.every(600), startedAt: 1000, lastLook: last, changedAt: nil, now: now)
        }
        #expect(decide(nil, 1599) == .wait(until: 1600))
        #expect(decide(nil, 1600) == .due(at: 1600))
        #expect(decide(nil, 1615) == .due(at: 1600), "a pass 15 s late looks at the due time")
        #expect(decide(1600, 1700) == .wait(until: 2200))
        #expect(decide(1600, 3500) == .due(at: 3400), "missed looks are one look, at the latest due time")
        #expect(decide(400, 1500) == .wait(until: 1600), "a look from an earlier life does not count")
    }

    @Test func quietLooksOncePerQuietSpell() {
        func decide(_ last: Int?, changed: Int?, _ now: Int) -> TimerClock.Decision {
            TimerClock.decide(.quiet(1800), startedAt: 1000, lastLook: last, changedAt: changed, now: now)
        }
        #expect(decide(nil, changed: 1600, 3000) == .wait(until: 3400))
        #expect(decide(nil, changed: 1600, 3400) == .due(at: 3400))
        #expect(decide(3400, changed: 1600, 9000) == .done, "the same spell: no second look")
        #expect(decide(3400, changed: 5000, 6799) == .wait(until: 6800), "a change starts a new spell")
        #expect(decide(3400, changed: 5000, 6800) == .due(at: 6800))
        #expect(decide(nil, changed: 200, 2799) == .wait(until: 2800), "a change before the start counts from it")
        #expect(
            decide(nil, changed: nil, 2800) == .due(at: 2800), "an entity the feed dropped is quiet since the start")
    }

    /// A quiet rule that names facts counts from their last change: another fact changing does not end its
    /// quiet spell; a named fact changing, or one beneath a named object, does.
    @Test func quietOverNamedFactsCountsFromTheirLastChange() throws {
        let (engine, diagnostics) = Self.load(
            #"""
            {"id": "still", "feed": "espn", "on": {"quiet": 1800, "facts": ["home", "status"]},
             "activity": {"key": "m", "attributes-type": "Match"}, "event": "end"}
            """#)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        #expect(engine.watchedFacts == ["espn": ["home", "status"]])
        let clock = FeedChange(
            entity: EntityKey(feed: "espn", id: "1"), previous: nil, current: nil, changedPaths: ["clock"])
        let goal = FeedChange(
            entity: EntityKey(feed: "espn", id: "1"), previous: nil, current: nil,
            changedPaths: ["clock", "home.score"])
        #expect(RuleEngine.touched(["home", "status"], by: clock).isEmpty)
        #expect(RuleEngine.touched(["home", "status"], by: goal) == ["home"])
        var subject = TimerSubject(
            activity: "m", attributesType: "Match", entity: EntityKey(feed: "espn", id: "1"), startedAt: 1000,
            changedAt: 4000, factsChangedAt: ["home": 2000])
        #expect(engine.dueTimers(for: subject, now: 3799).due.isEmpty)
        #expect(
            engine.dueTimers(for: subject, now: 3800).due.map(\.at) == [3800],
            "the clock ticking at 4000 does not count")
        subject.factsChangedAt = [:]
        #expect(engine.dueTimers(for: subject, now: 2800).due.map(\.at) == [2800], "never changed: from the start")
        subject.changedAt = nil
        subject.factsChangedAt = ["home": 2000]
        #expect(engine.dueTimers(for: subject, now: 2800).due.map(\.at) == [2800], "gone from the feed: from the start")
    }

    // MARK: The engine

    static func load(_ rules: String) -> (RuleEngine, [Diagnostic]) {
        let (loaded, diagnostics) = RuleLoader().load(file: "r.json", data: Data(#"{"rules": [\#(rules)]}"#.utf8))
        return (RuleEngine(rules: loaded), diagnostics)
    }

    static let subject = TimerSubject(
        activity: "m-1", attributesType: "Match", entity: EntityKey(feed: "f", id: "1"), startedAt: 1000,
        changedAt: 1500)

    @Test func aTimerRuleActsOnlyOnTheActivityItsKeyNames() throws {
        let (engine, diagnostics) = Self.load(
            #"""
            {"id": "tick", "feed": "f", "on": {"every": 60}, "event": "update", "priority": "low",
             "activity": {"key": {"cat": ["m-", {"var": "entity.id"}]}, "attributes-type": "Match"},
             "content-state": {"at": {"var": "now"}, "since": {"var": "entity.changed-at"},
                               "score": {"var": "curr.score"}, "was": {"var": "activity.state.at"}}},
            {"id": "other", "feed": "f", "on": {"every": 60}, "event": "update",
             "activity": {"key": "another", "attributes-type": "Match"}, "content-state": {"x": 1}},
            {"id": "elsewhere", "feed": "g", "on": {"every": 60}, "event": "update",
             "activity": {"key": "m-1", "attributes-type": "Match"}, "content-state": {"x": 1}}
            """#)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let (due, next) = engine.dueTimers(for: Self.subject, now: 1060)
        #expect(due.map(\.rule) == [0, 1], "the rule of another feed does not apply")
        #expect(next == nil)
        let result = engine.evaluateTimers(
            due, for: Self.subject, facts: Facts(["score": 2]), activity: ["phase": "active", "state": ["at": 1000]])
        #expect(result.errors.isEmpty)
        #expect(result.intents.map(\.ruleID) == ["tick"])
        #expect(result.intents.first?.timer == true)
        #expect(result.intents.first?.patch == ["at": 1060, "since": 1500, "score": 2, "was": 1000])
    }

    /// A timer rule whose key and condition read only `now`, `entity` and the activity's phase and times is
    /// decided without the activity's record or the facts; any other is kept for the full evaluation.
    @Test func aRuleOnTheActivitysTimesIsDecidedFromThemAlone() throws {
        let (engine, diagnostics) = Self.load(
            #"""
            {"id": "calm", "feed": "f", "on": {"every": 60}, "event": "end",
             "when": {">=": [{"-": [{"var": "now"}, {"var": "activity.pushed-at"}]}, 1800]},
             "activity": {"key": {"cat": ["m-", {"var": "entity.id"}]}, "attributes-type": "Match"}},
            {"id": "other", "feed": "f", "on": {"every": 60}, "event": "end", "when": true,
             "activity": {"key": "another", "attributes-type": "Match"}},
            {"id": "broken", "feed": "f", "on": {"every": 60}, "event": "end",
             "when": {"throw": "no"}, "activity": {"key": "m-1", "attributes-type": "Match"}},
            {"id": "price", "feed": "f", "on": {"every": 60}, "event": "end", "when": {">": [{"var": "curr.p"}, 1]},
             "activity": {"key": "m-1", "attributes-type": "Match"}},
            {"id": "state", "feed": "f", "on": {"every": 60}, "event": "end", "when": {"var": "activity.state.x"},
             "activity": {"key": "m-1", "attributes-type": "Match"}},
            {"id": "whole", "feed": "f", "on": {"every": 60}, "event": "end",
             "when": {"var": [{"cat": ["activity", ".phase"]}]},
             "activity": {"key": "m-1", "attributes-type": "Match"}}
            """#)
        #expect(diagnostics.filter { $0.severity == .error }.isEmpty, "\(diagnostics)")
        #expect(engine.timerRules.map(\.decidedByTimes) == [true, true, true, false, false, false])
        #expect(engine.timerRules.map(\.skipsIdleTicks) == [true, true, true, false, false, false])
        var subject = Self.subject
        subject.pushedAt = 1000
        // Due every 60 s from the start at 1000: at 2740 the push is 1,740 s old, at 2800 1,800 s.
        for at in [2740, 2800] {
            let light = (0..<3).filter { engine.firesOnTimes($0, for: subject, at: at) }
            #expect(
                light == (at >= 2800 ? [0, 2] : [2]),
                "calm is 1,800 s after the push only at \(at); other names another activity; broken is kept")
            let full = engine.evaluateTimers(
                [(0, at), (1, at)], for: subject, facts: nil,
                activity: ["phase": "active", "state": [:], "started-at": 1000, "pushed-at": 1000])
            #expect(
                full.intents.map(\.ruleID) == (at >= 2800 ? ["calm"] : []),
                "the full evaluation decides as the light one")
        }
    }

    @Test func aRuleThatReadsTheActivitySeesTheOneItsKeyNames() throws {
        let (engine, diagnostics) = Self.load(
            #"""
            {"id": "moved", "feed": "f", "event": "update",
             "when": {">=": [{"-": [{"var": "curr.price"}, {"var": "activity.state.price"}]}, 5]},
             "activity": {"key": {"cat": ["m-", {"var": "entity.id"}]}, "attributes-type": "Match"},
             "content-state": {"price": {"var": "curr.price"}}}
            """#)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        #expect(engine.rules.first?.readsActivity == true)
        let change = FeedChange(
            entity: EntityKey(feed: "f", id: "1"), previous: Facts(["price": 103]), current: Facts(["price": 104]),
            changedPaths: ["price"])
        #expect(engine.activityKeys(for: change, now: 0) == ["m-1": "Match"])
        let moved = engine.evaluate(change, now: 0, activities: ["m-1": ["state": ["price": 99]]])
        #expect(moved.intents.count == 1, "104 is 5 above the price last pushed, though only 1 above the last poll")
        let still = engine.evaluate(change, now: 0, activities: ["m-1": ["state": ["price": 101]]])
        #expect(still.intents.isEmpty)
        let unknown = engine.evaluate(change, now: 0)
        #expect(unknown.intents.count == 1, "no activity: a missing price is 0 in arithmetic, as in JsonLogic")
    }

    @Test func aRuleThatDoesNotReadTheActivityIsNotMarked() {
        let (engine, _) = Self.load(
            #"""
            {"id": "plain", "feed": "f", "when": {"var": "curr.activity"}, "event": "update",
             "activity": {"key": "m", "attributes-type": "Match"}, "content-state": {"a": {"var": "curr.a"}}}
            """#)
        #expect(engine.rules.first?.readsActivity == false, "curr.activity is a fact, not the activity")
    }

    // MARK: Mistakes

    @Test(arguments: [
        (
            #"{"id": "r", "feed": "f", "event": "update", "activity": {"key": "m", "attributes-type": "T"}}"#,
            "1:12", "the rule has no \"when\""
        ),
        (
            #"{"id": "r", "feed": "f", "on": {"every": 60}, "event": "start", "alert": {"title": "a", "body": "b"}, "activity": {"key": "m", "attributes-type": "T", "attributes": {}}}"#,
            "1:67", "a timer rule acts on live activities only"
        ),
        (
            #"{"id": "r", "feed": "f", "when": true, "event": "update", "activity": {"key": {"var": "activity.state.id"}, "attributes-type": "T"}}"#,
            "1:90", "activity.key cannot read \"activity\""
        ),
        (
            #"{"id": "r", "feed": "f", "on": {"every": 0}, "event": "update", "activity": {"key": "m", "attributes-type": "T"}}"#,
            "1:53", "\"every\" must be at least 1"
        ),
    ])
    func mistakesAreReportedWhereTheyAre(rule: String, location: String, message: String) {
        let (_, diagnostics) = Self.load(rule)
        #expect(diagnostics.count == 1, "\(diagnostics)")
        #expect(diagnostics.first?.location.map { "\($0)" } == location, "\(diagnostics)")
        #expect(diagnostics.first?.message.contains(message) == true, "\(diagnostics)")
    }
}
