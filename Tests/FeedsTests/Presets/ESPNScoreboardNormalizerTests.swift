import Feeds
import Foundation
import LiveRelayCore
import Testing

/// The ESPN preset on the real World Cup recordings and on hand-written edge cases.
@Suite struct ESPNScoreboardNormalizerTests {
    let soccer = ESPNScoreboardNormalizer(sport: "soccer")

    @Test func theFirstHalfRecording() throws {
        let facts = try soccer.normalize(try PresetTestSupport.recording("espn-soccer-scoreboard-1-first-half.json"))
        #expect(facts.count == 32)
        let match = try #require(facts["760499"])
        #expect(
            match.value
                == [
                    "state": "live", "status": "STATUS_FIRST_HALF", "statusText": "44'", "statusShortText": "44'",
                    "start": 1_783_101_600, "period": 1,
                    "clock": ["seconds": 2640, "direction": "up", "display": "44'"],
                    "home": ["name": "Australia", "abbr": "AUS", "score": 0],
                    "away": ["name": "Egypt", "abbr": "EGY", "score": 1],
                ])
        // Before kick-off: no period, no score (ESPN writes "0"), the clock at zero.
        let scheduled = try #require(facts["760500"])
        #expect(scheduled["state"] == "scheduled")
        #expect(scheduled["period"] == nil)
        #expect(scheduled["home.score"] == nil)
        #expect(scheduled["home.name"] == "Argentina")
        #expect(scheduled["statusText"] == "Fri, July 3rd at 6:00 PM EDT", "ESPN's words for the status")
        #expect(scheduled["statusShortText"] == "Scheduled")
        // Finished matches of the same day: after extra time, and full time with a winner.
        #expect(facts["760493"]?["status"] == "STATUS_FINAL_AET")
        #expect(facts["760493"]?["period"] == 4)
        #expect(facts["760493"]?["winner"] == "home")
        #expect(facts["760486"]?["state"] == "final")
        #expect(facts["760486"]?["winner"] == "away")
    }

    @Test func extraTimeAndThePenaltyShootOut() throws {
        let extraTime = try soccer.normalize(
            try PresetTestSupport.recording("espn-soccer-scoreboard-2-extra-time.json"))["760499"]
        #expect(extraTime?["state"] == "live")
        #expect(extraTime?["status"] == "STATUS_OVERTIME")
        #expect(extraTime?["period"] == 3)
        #expect(extraTime?["clock.seconds"] == 5760)
        #expect(extraTime?["home.shootout"] == nil, "shootoutScore appears only after a shoot-out")
        #expect(extraTime?["winner"] == nil, "no winner while the match is on")
        let final = try soccer.normalize(
            try PresetTestSupport.recording("espn-soccer-scoreboard-3-final-pens.json"))["760499"]
        #expect(final?["state"] == "final")
        #expect(final?["home.score"] == 1)
        #expect(final?["away.score"] == 1)
        #expect(final?["home.shootout"] == 2)
        #expect(final?["away.shootout"] == 4)
        #expect(final?["winner"] == "away")
    }

    /// ESPN basketball: the clock counts down the period, with tenths in the last minute.
    @Test func basketballClocksCountDown() throws {
        let nba = ESPNScoreboardNormalizer(sport: "basketball")
        #expect(nba.clockDirection == .down)
        let facts = try nba.normalize(Data(Self.basketball.utf8))
        #expect(facts["401"]?["clock.seconds"] == 424, "423.4 seconds left shows as 7:04 until it is 7:03")
        #expect(facts["401"]?["clock.direction"] == "down")
        #expect(facts["401"]?["clock.display"] == "7:03")
        #expect(facts["401"]?["period"] == 3)
        #expect(facts["401"]?["home.score"] == 88)
        #expect(facts["402"]?["state"] == "break", "the end of a quarter is a break")
        #expect(facts["402"]?["clock.seconds"] == 0)
        #expect(facts["403"]?["state"] == "scheduled")
        #expect(facts["403"]?["period"] == nil, "period 0 before the tip-off is no period")
        #expect(facts["404"]?["state"] == "break")
        #expect(facts["404"]?["status"] == "STATUS_HALFTIME")
        #expect(facts["404"]?["statusText"] == "Halftime")
        #expect(facts["401"]?["statusText"] == "7:03 - 3rd Quarter")
        #expect(facts["401"]?["statusShortText"] == "7:03 - 3rd")
    }

    /// Finals whose competitors carry no `winner` flags (or `false` on both): the score decides, and a level
    /// score goes to the shoot-out, if there was one.
    @Test(arguments: [
        ("108", "105", nil, nil, "", "home"),
        ("99", "104", nil, nil, "", "away"),
        ("1", "1", nil, nil, "", "draw"),
        ("1", "1", "3", "4", "", "away"),
        ("2", "2", "5", "4", "", "home"),
        ("2", "1", nil, nil, #", "winner": false"#, "home"),
        ("0", "0", nil, nil, #", "winner": false"#, "draw"),
    ])
    func aFinalWithoutWinnerFlagsIsDecidedByTheScore(
        home: String, away: String, homeShootout: String?, awayShootout: String?, flag: String, winner: String
    ) throws {
        func competitor(_ side: String, _ score: String, _ shootout: String?) -> String {
            let extra = shootout.map { #", "shootoutScore": \#($0)"# } ?? ""
            return
                #"{"homeAway": "\#(side)", "score": "\#(score)"\#(extra)\#(flag), "team": {"displayName": "\#(side)"}}"#
        }
        let body = Self.event(
            id: "7", status: #"{"type": {"name": "STATUS_FINAL", "state": "post", "detail": "Final/OT"}}"#,
            competitors: "[\(competitor("home", home, homeShootout)), \(competitor("away", away, awayShootout))]")
        let facts = try ESPNScoreboardNormalizer(sport: "basketball").normalize(Data(body.utf8))
        #expect(facts["7"]?["winner"] == .string(winner))
        #expect(facts["7"]?["statusText"] == "Final/OT")
    }

    @Test func aFlagOutranksTheScoreAndAForfeitHasNoWinnerWithoutOne() throws {
        let flagged = Self.event(
            id: "8", status: #"{"type": {"name": "STATUS_FORFEIT", "state": "post"}}"#,
            competitors:
                #"[{"homeAway": "home", "score": "2", "winner": false, "team": {"displayName": "A"}}, {"homeAway": "away", "score": "0", "winner": true, "team": {"displayName": "B"}}]"#
        )
        #expect(try soccer.normalize(Data(flagged.utf8))["8"]?["winner"] == "away")
        let unflagged = Self.event(id: "8", status: #"{"type": {"name": "STATUS_FORFEIT", "state": "post"}}"#)
        #expect(
            try soccer.normalize(Data(unflagged.utf8))["8"]?["winner"] == nil, "the score of a forfeit says nothing")
        let noScores = Self.event(
            id: "8", status: #"{"type": {"name": "STATUS_FINAL", "state": "post"}}"#,
            competitors:
                #"[{"homeAway": "home", "team": {"displayName": "A"}}, {"homeAway": "away", "team": {"displayName": "B"}}]"#
        )
        #expect(
            try soccer.normalize(Data(noScores.utf8))["8"]?["winner"] == nil, "nothing tells: no winner, not a draw")
    }

    @Test(arguments: [
        ("STATUS_POSTPONED", "post", SportState.postponed),
        ("STATUS_CANCELED", "post", .cancelled),
        ("STATUS_ABANDONED", "post", .cancelled),
        ("STATUS_SUSPENDED", "in", .postponed),
        ("STATUS_DELAYED", "pre", .scheduled),
        ("STATUS_RAIN_DELAY", "in", .break),
        ("STATUS_END_OF_EXTRATIME", "in", .break),
        ("STATUS_SHOOTOUT", "in", .live),
        ("STATUS_SOMETHING_NEW", "in", .live),
        ("STATUS_SOMETHING_ELSE", "post", .final),
    ])
    func everyStatusMapsToTheLifecycle(name: String, phase: String, state: SportState) throws {
        let body = Self.event(id: "9", status: #"{"type": {"name": "\#(name)", "state": "\#(phase)"}}"#)
        let facts = try soccer.normalize(Data(body.utf8))
        #expect(facts["9"]?["state"] == .string(state.rawValue))
        #expect(facts["9"]?["status"] == .string(name))
        #expect(facts["9"]?["clock"] == nil, "no clock in the body, no clock facts")
    }

    @Test func extraFieldsAreIgnoredAndNumericIDsAccepted() throws {
        let body = #"""
            {"leagues": [], "season": {"type": 2}, "newField": [1, 2],
             "events": [{"id": 77, "date": "2026-07-03T18:00Z", "brandNew": {"x": true},
               "status": {"clock": 60.0, "displayClock": "1'", "period": 1, "type": {"name": "STATUS_FIRST_HALF", "state": "in", "extra": 1}},
               "competitions": [{"competitors": [
                 {"homeAway": "away", "score": "0", "team": {"displayName": "Egypt", "abbreviation": "EGY", "new": 1}},
                 {"homeAway": "home", "score": "0", "team": {"displayName": "Australia"}}]}]}]}
            """#
        let facts = try soccer.normalize(Data(body.utf8))
        #expect(facts["77"]?["home.name"] == "Australia", "home and away come from homeAway, not the order")
        #expect(facts["77"]?["home.abbr"] == nil)
        #expect(facts["77"]?["away.abbr"] == "EGY")
    }

    @Test(arguments: [
        (
            #"{"leagues": []}"#,
            #"the body is not an ESPN scoreboard: no "events" at the document root (it has leagues)"#
        ),
        (#"{"events": {"a": 1}}"#, "/events is an object, expected an array"),
        (
            ESPNScoreboardNormalizerTests.event(
                id: "5", status: #"{"type": {"name": "STATUS_FIRST_HALF", "state": "in"}}"#, competitors: "[]"),
            #"event "5": /events/0/competitions/0/competitors has 0 home and 0 away competitors, expected one of each"#
        ),
        (
            ESPNScoreboardNormalizerTests.event(id: "5", status: #"{"type": {"state": "in"}}"#),
            #"event "5": /events/0/status/type/name is missing"#
        ),
        (
            ESPNScoreboardNormalizerTests.event(id: "5", status: #"{"type": {"name": "STATUS_NEW"}}"#),
            #"event "5": /events/0/status/type: unknown status "STATUS_NEW" without a known state (pre, in or post)"#
        ),
        (
            ESPNScoreboardNormalizerTests.event(
                id: "5", status: #"{"type": {"name": "STATUS_FIRST_HALF", "state": "in"}}"#,
                competitors:
                    #"[{"homeAway": "home", "score": "x", "team": {"displayName": "A"}}, {"homeAway": "away", "team": {"displayName": "B"}}]"#
            ),
            #"event "5": /events/0/competitions/0/competitors/0/score is the string "x", expected an integer"#
        ),
    ])
    func aBodyThatDoesNotFitSaysWhereAndWhy(body: String, message: String) {
        let failure = PresetTestSupport.failure(soccer, body)
        #expect(failure?.kind == .shape)
        #expect(failure?.message == message)
    }

    @Test func notJSONIsInvalidJSON() {
        let failure = PresetTestSupport.failure(soccer, "<html><title>503</title></html>")
        #expect(failure?.kind == .invalidJSON)
        #expect(failure?.message.hasSuffix(#"it starts with "<html><title>503</title></html>" (31 bytes)"#) == true)
    }

    static func event(
        id: String, status: String,
        competitors: String =
            #"[{"homeAway": "home", "score": "1", "team": {"displayName": "A"}}, {"homeAway": "away", "score": "2", "team": {"displayName": "B"}}]"#
    ) -> String {
        #"{"events": [{"id": "\#(id)", "date": "2026-07-03T18:00Z", "status": \#(status), "competitions": [{"competitors": \#(competitors)}]}]}"#
    }

    /// Hand-written in the shape of ESPN's NBA scoreboard (`/sports/basketball/nba/scoreboard`).
    static let basketball = #"""
        {"events": [
          {"id": "401", "date": "2026-01-10T00:30Z",
           "status": {"clock": 423.4, "displayClock": "7:03", "period": 3, "type": {"id": "2", "name": "STATUS_IN_PROGRESS", "state": "in", "detail": "7:03 - 3rd Quarter", "shortDetail": "7:03 - 3rd"}},
           "competitions": [{"competitors": [
             {"homeAway": "home", "score": "88", "team": {"displayName": "Boston Celtics", "abbreviation": "BOS"}},
             {"homeAway": "away", "score": "79", "team": {"displayName": "Miami Heat", "abbreviation": "MIA"}}]}]},
          {"id": "402", "date": "2026-01-10T00:00Z",
           "status": {"clock": 0.0, "displayClock": "0.0", "period": 1, "type": {"id": "22", "name": "STATUS_END_PERIOD", "state": "in"}},
           "competitions": [{"competitors": [
             {"homeAway": "home", "score": "31", "team": {"displayName": "Denver Nuggets", "abbreviation": "DEN"}},
             {"homeAway": "away", "score": "25", "team": {"displayName": "Utah Jazz", "abbreviation": "UTA"}}]}]},
          {"id": "403", "date": "2026-01-10T03:00Z",
           "status": {"clock": 0.0, "displayClock": "0.0", "period": 0, "type": {"id": "1", "name": "STATUS_SCHEDULED", "state": "pre"}},
           "competitions": [{"competitors": [
             {"homeAway": "home", "score": "0", "team": {"displayName": "LA Lakers", "abbreviation": "LAL"}},
             {"homeAway": "away", "score": "0", "team": {"displayName": "Phoenix Suns", "abbreviation": "PHX"}}]}]},
          {"id": "404", "date": "2026-01-10T01:00Z",
           "status": {"clock": 0.0, "displayClock": "0.0", "period": 2, "type": {"id": "23", "name": "STATUS_HALFTIME", "state": "in", "detail": "Halftime", "shortDetail": "Halftime"}},
           "competitions": [{"competitors": [
             {"homeAway": "home", "score": "50", "team": {"displayName": "New York Knicks", "abbreviation": "NY"}},
             {"homeAway": "away", "score": "47", "team": {"displayName": "Chicago Bulls", "abbreviation": "CHI"}}]}]}
        ]}
        """#
}
