import Feeds
import Foundation
import LiveRelayCore
import Testing

/// The football-data.org v4 preset on the real Premier League recordings and on hand-written edge cases.
@Suite struct FootballDataNormalizerTests {
    let normalizer = FootballDataNormalizer()

    @Test func theHalfTimeRecording() throws {
        let facts = try normalizer.normalize(
            try PresetTestSupport.recording("football-data-pl-matches-1-halftime-paused.json"))
        #expect(facts.count == 70)
        #expect(
            facts["537964"]?.value
                == [
                    "state": "break", "status": "PAUSED", "start": 1_766_847_600,
                    "home": ["name": "West Ham", "abbr": "WHU", "score": 0],
                    "away": ["name": "Fulham", "abbr": "FUL", "score": 0],
                ])
        #expect(facts["537957"]?["home.score"] == 1)
        // TIMED: no score yet (football-data sends nulls), no winner, no clock.
        let timed = try #require(facts["537960"])
        #expect(
            timed.value == [
                "state": "scheduled", "status": "TIMED", "start": 1_766_856_600,
                "home": ["name": "Chelsea", "abbr": "CHE"], "away": ["name": "Aston Villa", "abbr": "AVL"],
            ])
        // FINISHED: the winner, from score.winner.
        let finished = facts.values.filter { $0["state"] == "final" }
        #expect(finished.count == 12)
        #expect(finished.allSatisfy { $0["winner"] != nil })
    }

    @Test func duringPlayTheRunningScoreCountsAndTheProvisionalWinnerDoesNot() throws {
        let before = try normalizer.normalize(
            try PresetTestSupport.recording("football-data-pl-matches-2-in-play.json"))
        let after = try normalizer.normalize(
            try PresetTestSupport.recording("football-data-pl-matches-3-in-play-after-goal.json"))
        #expect(before["537964"]?["state"] == "live")
        #expect(after["537964"]?["away.score"] == 1)
        #expect(after["537964"]?["winner"] == nil, "AWAY_TEAM is only provisional while IN_PLAY")
        let changes = ChangeDetector.changes(feed: "scores", previous: before, current: after)
        #expect(changes.map(\.entity.id) == ["537964"], "lastUpdated is not a fact: only the goal is a change")
        #expect(changes.first?.changedPaths == ["away.score"])
    }

    @Test func extraTimeAndAShootOut() throws {
        let body = Self.match(
            status: "FINISHED",
            score: #"""
                {"winner": "AWAY_TEAM", "duration": "PENALTY_SHOOTOUT", "fullTime": {"home": 5, "away": 6},
                 "halfTime": {"home": 1, "away": 0}, "regularTime": {"home": 1, "away": 1},
                 "extraTime": {"home": 0, "away": 0}, "penalties": {"home": 4, "away": 5}}
                """#)
        let facts = try normalizer.normalize(Data(body.utf8))["1"]
        #expect(facts?["home.score"] == 1, "regular and extra time, not the fullTime that counts the shoot-out")
        #expect(facts?["away.score"] == 1)
        #expect(facts?["home.shootout"] == 4)
        #expect(facts?["away.shootout"] == 5)
        #expect(facts?["winner"] == "away")
        let extraTime = try normalizer.normalize(
            Data(
                Self.match(
                    status: "EXTRA_TIME", minute: "105", injury: "1",
                    score:
                        #"{"winner": "HOME_TEAM", "duration": "EXTRA_TIME", "fullTime": {"home": 2, "away": 1}, "halfTime": {"home": 1, "away": 0}, "extraTime": {"home": 1, "away": 0}, "penalties": {"home": 0, "away": 0}}"#
                ).utf8))["1"]
        #expect(extraTime?["state"] == "live")
        #expect(extraTime?["home.score"] == 2)
        #expect(extraTime?["home.shootout"] == nil, "penalties count only in a shoot-out")
        #expect(extraTime?["clock.seconds"] == 6360)
        #expect(extraTime?["clock.display"] == "105'+1'")
        #expect(extraTime?["winner"] == nil)
    }

    @Test(arguments: [
        ("SCHEDULED", SportState.scheduled), ("TIMED", .scheduled), ("IN_PLAY", .live), ("PAUSED", .break),
        ("EXTRA_TIME", .live), ("PENALTY_SHOOTOUT", .live), ("FINISHED", .final), ("AWARDED", .final),
        ("SUSPENDED", .postponed), ("POSTPONED", .postponed), ("CANCELLED", .cancelled),
    ])
    func everyStatusMapsToTheLifecycle(status: String, state: SportState) throws {
        let facts = try normalizer.normalize(Data(Self.match(status: status).utf8))
        #expect(facts["1"]?["state"] == .string(state.rawValue))
    }

    @Test func oneMatchAndTeamsNotKnownYet() throws {
        let body = #"""
            {"id": 9, "utcDate": "2026-05-30T16:00:00Z", "status": "TIMED",
             "homeTeam": {"id": null, "name": null, "shortName": null, "tla": null},
             "awayTeam": {"id": null, "name": null, "shortName": null, "tla": null},
             "score": {"winner": null, "duration": "REGULAR", "fullTime": {"home": null, "away": null}}}
            """#
        let facts = try normalizer.normalize(Data(body.utf8))
        #expect(facts["9"]?.value == ["state": "scheduled", "status": "TIMED", "start": 1_780_156_800])
    }

    @Test(arguments: [
        (
            FootballDataNormalizerTests.match(status: "HALF_TIME"),
            "match 1: /matches/0/status is the unknown status \"HALF_TIME\""
        ),
        (
            #"{"count": 0}"#,
            #"the body is not a football-data match list: no "matches" at the document root (it has count)"#
        ),
        (
            FootballDataNormalizerTests.match(status: "IN_PLAY", score: #"{"fullTime": {"home": "one", "away": 0}}"#),
            #"match 1: /matches/0/score/fullTime/home is the string "one", expected an integer"#
        ),
    ])
    func aBodyThatDoesNotFit(body: String, message: String) {
        let failure = PresetTestSupport.failure(normalizer, body)
        #expect(failure?.kind == .shape)
        #expect(failure?.message.hasPrefix(message) == true, "\(failure?.message ?? "")")
    }

    static func match(
        status: String, minute: String? = nil, injury: String? = nil,
        score: String = #"{"winner": "DRAW", "duration": "REGULAR", "fullTime": {"home": 0, "away": 0}}"#
    ) -> String {
        let clock = minute.map { #", "minute": \#($0)"# + (injury.map { #", "injuryTime": \#($0)"# } ?? "") } ?? ""
        return #"""
            {"matches": [{"id": 1, "utcDate": "2026-05-30T16:00:00Z", "status": "\#(status)"\#(clock), "lastUpdated": "2026-05-30T16:00:00Z",
              "homeTeam": {"id": 2, "name": "Home FC", "shortName": "Home", "tla": "HOM"},
              "awayTeam": {"id": 3, "name": "Away FC", "shortName": "Away", "tla": "AWA"},
              "score": \#(score), "referees": []}]}
            """#
    }
}
