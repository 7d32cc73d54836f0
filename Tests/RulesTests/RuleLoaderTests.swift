import Foundation
import LiveRelayCore
import LiveRelayTesting
import Rules
import Testing

@Suite struct RuleLoaderTests {
    static let broken = Repository.path("Tests/RulesTests/Fixtures/broken.rules.json")

    @Test func threeMistakesGetThreePreciseDiagnosticsAndTheOtherRulesLoad() {
        let set = RuleLoader().load(paths: [Self.broken])
        #expect(
            set.diagnostics.map(\.description) == [
                "\(Self.broken):19:7: rule goal: unknown key \"prioirty\" (did you mean \"priority\"?)",
                "\(Self.broken):28:7: rule clock: \"stale-after\" must be an integer or an object, not a string",
                "\(Self.broken):33:70: rule period: when/and/1: unknown operator \"contains\"",
            ])
        #expect(set.rules.map(\.id) == ["kick-off", "full-time"])
    }

    @Test func unknownFeedsAreReportedAtTheFeedValue() {
        let set = RuleLoader(knownFeeds: ["football"]).load(paths: [Repository.path("Rules/soccer.rules.json")])
        #expect(set.rules.isEmpty)
        #expect(set.diagnostics.count == 4)
        #expect(
            set.diagnostics.first?.message
                == "rule kick-off: unknown feed \"espn-worldcup\" (the config defines \"football\")")
    }

    @Test func theExampleRulesLoadCleanly() {
        let set = RuleLoader(knownFeeds: ["espn-worldcup", "scores", "markets"]).load(paths: [Repository.path("Rules")])
        #expect(set.diagnostics.map(\.description) == [])
        #expect(
            set.rules.map(\.id) == [
                "big-move", "jump", "price", "calm", "gone", "my-crosses-above", "my-crosses-below", "my-moves",
                "my-calm", "alert-move", "alert-cross", "alert-moved", "alert-calm", "kick-off", "goal", "clock",
                "full-time", "match-start", "match-goal", "match-overtime", "match-play",
                "match-end", "match-off",
            ])
    }

    /// A rules folder that holds no rule file (a deploy that emptied it) is a diagnostic, so a reload refuses
    /// it and the running rules stay, instead of loading no rules without a word.
    @Test func anEmptyRulesFolderIsADiagnostic() throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let set = RuleLoader().load(paths: [directory.path])
        #expect(set.rules.isEmpty)
        #expect(set.diagnostics.map(\.message) == ["no rule files (*.json) in this directory"])
    }

    @Test func invalidJSONIsOneDiagnosticWithItsPosition() {
        let (rules, diagnostics) = RuleLoader().load(file: "x.json", data: Data("{\n  \"rules\": [,]\n}".utf8))
        #expect(rules.isEmpty)
        #expect(diagnostics.map(\.description) == ["x.json:2:13: invalid JSON: unexpected ',': expected a value"])
    }

    @Test func duplicateIDsAcrossFilesAreReported() {
        let set = RuleLoader().load(paths: [
            Repository.path("Rules/soccer.rules.json"), Repository.path("Rules/soccer.rules.json"),
        ])
        #expect(set.diagnostics.count == 4)
        #expect(set.diagnostics[0].message.hasPrefix("rule kick-off: duplicate rule id (first defined at"))
    }

    @Test func theEmbeddedSchemaIsTheShippedFile() throws {
        let shipped = try String(contentsOfFile: Repository.path("Rules/rules.schema.json"), encoding: .utf8)
        #expect(RuleFileSchema.text + "\n" == shipped, "run scripts/embed-schemas.py")
    }
}

@Suite struct RuleEngineTests {
    @Test func aGoalFiresTheGoalRuleWithItsAlertAndFullPatch() throws {
        let set = RuleLoader().load(paths: [Repository.path("Rules/soccer.rules.json")])
        let engine = RuleEngine(rules: set.rules)
        let prev = Facts([
            "state": "in", "home": ["score": 0, "name": "Australia", "abbr": "AUS"],
            "away": ["score": 0, "name": "Egypt", "abbr": "EGY"], "clock": ["display": "20'"],
            "status": "STATUS_FIRST_HALF", "period": 1,
        ])
        var curr = prev
        curr.set("away.score", 1)
        curr.set("clock.display", "44'")
        let change = FeedChange(
            entity: EntityKey(feed: "espn-worldcup", id: "760499"), previous: prev, current: curr,
            changedPaths: ["away.score", "clock.display"])
        let result = engine.evaluate(change, now: 1000)
        #expect(result.errors.isEmpty)
        #expect(result.intents.map(\.ruleID) == ["goal", "clock"])
        let goal = result.intents[0]
        #expect(goal.activity == "match-760499")
        #expect(goal.patch == ["homeScore": 0, "awayScore": 1, "clock": "44'"])
        #expect(goal.alert == LiveActivityAlert(title: "Goal! Egypt", body: "AUS 0–1 EGY (44')", sound: "default"))
        #expect(goal.relevance == RelevanceScore(100))
        #expect(goal.priority == .high)
    }

    @Test func aKeyExpressionThatGivesNoStringIsAnErrorNamingTheRule() throws {
        let text =
            #"{"rules": [{"id": "r", "feed": "f", "when": true, "activity": {"key": {"var": "curr.nothing"}, "attributes-type": "T"}, "event": "update"}]}"#
        let (rules, diagnostics) = RuleLoader().load(file: "r.json", data: Data(text.utf8))
        #expect(diagnostics.isEmpty)
        let result = RuleEngine(rules: rules).evaluate(
            FeedChange(entity: EntityKey(feed: "f", id: "1"), previous: nil, current: Facts(), changedPaths: []), now: 0
        )
        #expect(result.intents.isEmpty)
        #expect(
            result.errors.map(\.description) == [
                "r.json:1:12: rule r: f/1: activity key evaluated to null null, expected a non-empty string"
            ])
    }

    /// A shoot-out won 3–0 by the away side: the home side's 0 is a score, not "no shoot-out" (JsonLogic
    /// reads 0 as false, so the example rules test for null instead).
    @Test(arguments: [("Rules/soccer.rules.json", "in", "post"), ("Rules/sports.rules.json", "live", "final")])
    func theFullTimeAlertKeepsAShootOutWithNoHomePenalty(file: String, playing: String, over: String) throws {
        let set = RuleLoader().load(paths: [Repository.path(file)])
        #expect(set.diagnostics.isEmpty)
        var prev = Facts([
            "state": .string(playing), "period": 5, "clock": ["display": "120'"], "home": ["score": 1, "abbr": "AUS"],
            "away": ["score": 1, "abbr": "EGY"],
        ])
        prev.set("status", "STATUS_SHOOTOUT")
        var curr = prev
        curr.set("state", .string(over))
        curr.set("home.shootout", 0)
        curr.set("away.shootout", 3)
        let feed = set.rules.first { $0.event == .end }!.feed
        let change = FeedChange(
            entity: EntityKey(feed: feed, id: "760499"), previous: prev, current: curr,
            changedPaths: Facts.changedPaths(from: prev, to: curr))
        let end = RuleEngine(rules: set.rules).evaluate(change, now: 0).intents.first { $0.event == .end }
        #expect(end?.alert?.body?.hasSuffix("(0–3 on penalties)") == true, "\(String(describing: end?.alert))")
    }

    /// A match first seen at 55' is under way: its start says so, with the clock, not "Kick-off".
    @Test func aMatchFirstSeenUnderWayIsNotAKickOff() throws {
        let set = RuleLoader().load(paths: [Repository.path("Rules/sports.rules.json")])
        let curr = Facts([
            "state": "live", "period": 2, "clock": ["display": "55'"],
            "home": ["score": 0, "abbr": "ARS", "name": "Arsenal"],
            "away": ["score": 1, "abbr": "BHA", "name": "Brighton"],
        ])
        func start(previous: Facts?) -> ActivityIntent? {
            let change = FeedChange(
                entity: EntityKey(feed: "scores", id: "1"), previous: previous, current: curr,
                changedPaths: Facts.changedPaths(from: previous ?? Facts(), to: curr))
            return RuleEngine(rules: set.rules).evaluate(change, now: 0).intents.first { $0.event == .start }
        }
        #expect(start(previous: nil)?.alert?.body == "Under way: ARS 0–1 BHA (55')")
        var scheduled = curr
        scheduled.set("state", "scheduled")
        #expect(start(previous: scheduled)?.alert?.body == "Kick-off: ARS 0–1 BHA")
    }

    /// The sports rules' intents for one change of the `scores` feed.
    static func sportsIntents(from prev: Facts?, to curr: Facts) -> [ActivityIntent] {
        let set = RuleLoader().load(paths: [Repository.path("Rules/sports.rules.json")])
        let change = FeedChange(
            entity: EntityKey(feed: "scores", id: "1"), previous: prev, current: curr,
            changedPaths: Facts.changedPaths(from: prev ?? Facts(), to: curr))
        return RuleEngine(rules: set.rules).evaluate(change, now: 0).intents
    }

    /// A game whose clock counts down starts "Under way", never "Kick-off"; a soccer clock kicks off.
    @Test func aBasketballGameIsUnderWayNotKickedOff() throws {
        var scheduled = Facts([
            "state": "scheduled", "clock": ["direction": "down", "display": "0:00"],
            "home": ["abbr": "BOS", "name": "Boston Celtics"], "away": ["abbr": "LAL", "name": "Los Angeles Lakers"],
        ])
        scheduled.set("statusShortText", "1/15 - 7:30 PM EST")
        var tipOff = scheduled
        tipOff.set("state", "live")
        tipOff.set("period", 1)
        tipOff.set("clock.display", "11:44")
        tipOff.set("statusShortText", "11:44 - 1st")
        tipOff.set("home.score", 0)
        tipOff.set("away.score", 0)
        let start = Self.sportsIntents(from: scheduled, to: tipOff).first { $0.event == .start }
        #expect(start?.alert?.body == "Under way: BOS 0–0 LAL")
        #expect(Self.sportsIntents(from: nil, to: tipOff).first?.alert?.body == "Under way: BOS 0–0 LAL (11:44 - 1st)")
        scheduled.set("clock.direction", "up")
        tipOff.set("clock.direction", "up")
        #expect(Self.sportsIntents(from: scheduled, to: tipOff).first?.alert?.body == "Kick-off: BOS 0–0 LAL")
    }

    /// Where the clock counts down (basketball scores every half minute), a score alerts only when it changes
    /// who leads; a basket that keeps the lead updates the score quietly, at priority 5 and without an alert.
    /// Where it counts up, every goal alerts.
    @Test(arguments: [
        ("down", 85, 89, nil, PriorityPolicy.low), ("down", 87, 87, "Boston Celtics draw level", .high),
        ("down", 88, 87, "Boston Celtics take the lead", .high), ("up", 85, 89, "Los Angeles Lakers score", .high),
    ])
    func aScoreAlertsWhenItMatters(clock: String, home: Int, away: Int, title: String?, priority: PriorityPolicy)
        throws
    {
        var prev = Facts([
            "state": "live", "period": 4, "clock": ["direction": .string(clock), "display": "5:15"],
            "home": ["abbr": "BOS", "name": "Boston Celtics", "score": 85],
            "away": ["abbr": "LAL", "name": "Los Angeles Lakers", "score": 87],
        ])
        prev.set("statusShortText", "5:15 - 4th")
        var curr = prev
        curr.set("home.score", .int(home))
        curr.set("away.score", .int(away))
        let goal = try #require(Self.sportsIntents(from: prev, to: curr).first { $0.ruleID == "match-goal" })
        #expect(goal.alert?.title == title)
        #expect(goal.priority == priority)
        #expect(goal.patch["homeScore"] == .int(home) && goal.patch["awayScore"] == .int(away))
        if title != nil { #expect(goal.alert?.body == "BOS \(home)–\(away) LAL (5:15 - 4th)") }
    }

    /// Overtime (basketball: ESPN's status says OT) and extra time (soccer's STATUS_OVERTIME) alert when play
    /// resumes after regulation, named for the sport, and not again after extra time's half-time.
    @Test(arguments: [
        ("down", "STATUS_END_PERIOD", "End of 4th", 4, "STATUS_IN_PROGRESS", "4:37 - OT", 5, "Overtime"),
        ("up", "STATUS_SECOND_HALF", "90'+4'", 2, "STATUS_OVERTIME", "91'", 3, "Extra time"),
        ("up", "STATUS_HALFTIME_ET", "HT", 3, "STATUS_OVERTIME", "106'", 4, nil),
        ("down", "STATUS_END_PERIOD", "End of 3rd", 3, "STATUS_IN_PROGRESS", "11:40 - 4th", 4, nil),
    ])
    func overtimeIsNamedOnce(
        clock: String, before: String, beforeText: String, beforePeriod: Int, after: String, afterText: String,
        afterPeriod: Int, title: String?
    ) throws {
        var prev = Facts([
            "state": "break", "period": .int(beforePeriod), "clock": ["direction": .string(clock)],
            "home": ["abbr": "BOS", "score": 104], "away": ["abbr": "LAL", "score": 104],
        ])
        prev.set("status", .string(before))
        prev.set("statusShortText", .string(beforeText))
        var curr = prev
        curr.set("state", "live")
        curr.set("period", .int(afterPeriod))
        curr.set("status", .string(after))
        curr.set("statusShortText", .string(afterText))
        let overtime = Self.sportsIntents(from: prev, to: curr).first { $0.ruleID == "match-overtime" }
        #expect(overtime?.alert?.title == title)
        if title != nil { #expect(overtime?.alert?.body == "BOS 104–104 LAL (\(afterText))") }
    }

    /// A shoot-out's score is shown while it is under way, a home side's 0 with it.
    @Test func aShootOutIsShownWhileUnderWay() throws {
        var prev = Facts([
            "state": "live", "period": 5, "clock": ["direction": "up", "display": "120'"],
            "home": ["score": 1, "shootout": 0], "away": ["score": 1, "shootout": 0],
        ])
        prev.set("status", "STATUS_SHOOTOUT")
        var curr = prev
        curr.set("away.shootout", 1)
        let play = try #require(Self.sportsIntents(from: prev, to: curr).first { $0.ruleID == "match-play" })
        #expect(play.patch["homePenalties"] == 0)
        #expect(play.patch["awayPenalties"] == 1)
    }

    /// One rule for BTC on several exchanges, instead of a generated copy per feed: `entity.feed` tells which
    /// feed changed. An unknown feed in the list is reported where it is written.
    @Test func aRuleMayWatchSeveralFeeds() throws {
        let text = #"""
            {"rules": [{"id": "btc", "feed": ["binance", "coinbase", "kraken"],
              "when": {"!=": [{"var": "prev.price"}, {"var": "curr.price"}]}, "event": "update",
              "activity": {"key": {"cat": ["btc-", {"var": "entity.feed"}]}, "attributes-type": "PriceAlertAttributes"},
              "content-state": {"price": {"var": "curr.price"}}}]}
            """#
        let (rules, diagnostics) = RuleLoader(knownFeeds: ["binance", "coinbase", "kraken"]).load(
            file: "r.json", data: Data(text.utf8))
        #expect(diagnostics.isEmpty)
        let engine = RuleEngine(rules: rules)
        for feed in ["binance", "coinbase", "kraken"] {
            let change = FeedChange(
                entity: EntityKey(feed: feed, id: "BTC"), previous: Facts(["price": 1]), current: Facts(["price": 2]),
                changedPaths: ["price"])
            #expect(engine.evaluate(change, now: 0).intents.map(\.activity.rawValue) == ["btc-\(feed)"])
        }
        let other = FeedChange(
            entity: EntityKey(feed: "scores", id: "1"), previous: Facts(["price": 1]), current: Facts(["price": 2]),
            changedPaths: ["price"])
        #expect(engine.evaluate(other, now: 0).intents.isEmpty)

        let (_, unknown) = RuleLoader(knownFeeds: ["binance", "coinbase"]).load(file: "r.json", data: Data(text.utf8))
        #expect(
            unknown.map(\.description) == [
                #"r.json:1:58: rule btc: unknown feed "kraken" (the config defines "binance", "coinbase")"#
            ])
    }

    /// A rule file's `locale` gives `format` its number conventions where a call does not write them; a call
    /// that writes its separators keeps them, and a locale the system does not know is an error where it is.
    @Test func aRuleFilesLocaleGivesFormatItsSeparators() throws {
        let text = """
            {"locale": "de-DE", "rules": [{"id": "p", "feed": "f", "when": true, "event": "update",
              "activity": {"key": "m", "attributes-type": "T"},
              "content-state": {"local": {"format": [{"var": "curr.price"}, 2]},
                                "written": {"format": [{"var": "curr.price"}, 2, ",", "."]}}}]}
            """
        let (rules, found) = RuleLoader().load(file: "r.json", data: Data(text.utf8))
        #expect(found.isEmpty, "\(found)")
        let data: JSONValue = ["curr": ["price": .decimal(Decimal(string: "1234567.891")!)]]
        let fields = try #require(rules.first?.contentState)
        #expect(try fields.map { try $0.expression.evaluate(data) } == ["1.234.567,89", "1,234,567.89"])

        let unknown = RuleLoader().load(
            file: "r.json", data: Data(text.replacingOccurrences(of: "de-DE", with: "xx-QQ").utf8)
        ).1
        #expect(
            unknown.map(\.description) == [
                #"r.json:1:12: unknown locale "xx-QQ": write a language and region such as "de-DE", "fr-FR" or "en-US""#
            ])
    }

    /// Rule files of any shape end in a diagnostic or their rules, in bounded memory and time (limits in
    /// docs/reliability.md): a file past 16 MiB is not read, one past 1,000,000 JSON values stops where it
    /// passes them, and a file of many mistakes says the first 100 and counts the rest.
    @Test func hugeRuleFilesEndInOneDiagnostic() {
        let tooLarge = RuleLoader().load(
            file: "r.json", data: Data(repeating: 0x20, count: RuleLoader.maxFileBytes + 1))
        #expect(
            tooLarge.1.map(\.description) == [
                "r.json: the file is 16.0 MiB; a rule file is at most 16 MiB (split its rules over several files)"
            ])
        let values = "{\"rules\": [" + Array(repeating: "0", count: RuleLoader.maxValues).joined(separator: ",") + "]}"
        let tooMany = RuleLoader().load(file: "r.json", data: Data(values.utf8))
        #expect(
            tooMany.1.map(\.description) == [
                "r.json:1:2000008: the file has more than 1000000 JSON values here; a rule file holds at most that many (split its rules over several files)"
            ])
        let mistakes = "{\"rules\": [" + Array(repeating: "0", count: 150).joined(separator: ",") + "]}"
        let many = RuleLoader().load(file: "r.json", data: Data(mistakes.utf8)).1
        #expect(many.count == 101)
        #expect(many.last?.description == "r.json: 50 more problems in this file (the first 100 are shown)")
        #expect(many.allSatisfy { $0.isError })
    }
}
