import Feeds
import Foundation
import LiveRelayCore
import Testing

/// The ESPN preset's sport, which sets the clock's direction: configured (the option, else the URL), or
/// read from the body's leagues; a configured sport the body contradicts is an error, not a wrong clock.
@Suite struct ESPNSportTests {
    static let firstHalf = "espn-soccer-scoreboard-1-first-half.json"
    static let nba = #"{"id": "46", "uid": "s:40~l:46", "slug": "nba"}"#

    /// The hand-written NBA events with a `leagues` list.
    static func basketball(leagues: String) -> String {
        ESPNScoreboardNormalizerTests.basketball.replacingOccurrences(
            of: #"{"events": ["#, with: #"{"leagues": [\#(leagues)], "events": ["#)
    }

    @Test func withoutOptionOrURLTheLeagueTellsTheSport() throws {
        let inferred = ESPNScoreboardNormalizer()
        #expect(inferred.clockDirection == nil, "not known before a body")
        let soccer = try inferred.normalize(try PresetTestSupport.recording(Self.firstHalf))
        #expect(soccer["760499"]?["clock.direction"] == "up", "uid s:600~l:606 is soccer: the clock counts up")
        #expect(soccer["760499"]?["clock.seconds"] == 2640)
        let nba = try inferred.normalize(Data(Self.basketball(leagues: Self.nba).utf8))
        #expect(nba["401"]?["clock.direction"] == "down", "uid s:40~l:46 is basketball: the clock counts down")
        #expect(nba["401"]?["clock.seconds"] == 424, "a remaining clock rounds up")
        let preset = try FeedPreset.espnScoreboard.normalizer(options: PresetOptions(), url: "file:///tmp/board.json")
        #expect(
            try preset.normalize(try PresetTestSupport.recording(Self.firstHalf))["760499"]?["clock.direction"] == "up")
    }

    @Test func aSportOptionTheLeagueContradictsIsAnError() throws {
        let body = String(decoding: try PresetTestSupport.recording(Self.firstHalf), as: UTF8.self)
        let failure = PresetTestSupport.failure(ESPNScoreboardNormalizer(sport: "Basketball"), body)
        #expect(failure?.kind == .shape)
        #expect(
            failure?.message
                == #"the "sport" option says basketball, but the body's league fifa.world (/leagues/0/uid "s:600~l:606") is soccer: correct "sport" or leave it out (the league tells the sport)"#
        )
    }

    @Test func aURLSportTheLeagueContradictsIsAnError() throws {
        let normalizer = try FeedPreset.espnScoreboard.normalizer(
            options: PresetOptions(), url: "https://site.api.espn.com/apis/site/v2/sports/basketball/nba/scoreboard")
        let failure = PresetTestSupport.failure(
            normalizer, String(decoding: try PresetTestSupport.recording(Self.firstHalf), as: UTF8.self))
        #expect(
            failure?.message
                == #"the feed URL names the sport basketball (…/sports/basketball/…), but the body's league fifa.world (/leagues/0/uid "s:600~l:606") is soccer: point the URL at the body's sport"#
        )
    }

    @Test func aSportThatAgreesOrThatTheLeagueCannotTellIsAccepted() throws {
        let soccer = try ESPNScoreboardNormalizer(sport: "soccer").normalize(
            try PresetTestSupport.recording(Self.firstHalf))
        #expect(soccer.count == 32)
        let nrl = #"{"uid": "s:300~l:3", "slug": "3"}"#
        let rugbyLeague = try ESPNScoreboardNormalizer(sport: "rugby-league").normalize(
            Data(Self.basketball(leagues: nrl).utf8))
        #expect(rugbyLeague["401"]?["clock.direction"] == "up", "ESPN files rugby league under rugby's sport id")
        let lacrosse = #"{"uid": "s:775~l:500", "slug": "nll"}"#
        let unknown = try ESPNScoreboardNormalizer(sport: "lacrosse").normalize(
            Data(Self.basketball(leagues: lacrosse).utf8))
        #expect(unknown["401"]?["clock.direction"] == "down", "a sport id the preset does not know contradicts nothing")
    }

    @Test(arguments: [
        (
            ESPNScoreboardNormalizerTests.basketball,
            #"the ESPN preset needs "sport" (soccer, basketball, …) when neither the URL (…/sports/{sport}/{league}/scoreboard) nor the body names it: the body has no leagues[].uid"#
        ),
        (
            ESPNSportTests.basketball(leagues: #"{"uid": "s:775~l:500", "slug": "nll"}"#),
            #"the ESPN preset needs "sport" (soccer, basketball, …) when neither the URL (…/sports/{sport}/{league}/scoreboard) nor the body names it: its league nll (/leagues/0/uid "s:775~l:500") is of ESPN sport 775, which this preset does not know"#
        ),
        (
            ESPNSportTests.basketball(leagues: #"{"uid": "l:46"}"#),
            #"the ESPN preset needs "sport" (soccer, basketball, …) when neither the URL (…/sports/{sport}/{league}/scoreboard) nor the body names it: its league without a slug (/leagues/0/uid "l:46") names no sport"#
        ),
        (
            ESPNSportTests.basketball(leagues: ESPNSportTests.nba + #", {"uid": "s:600~l:606", "slug": "fifa.world"}"#),
            "the body's leagues are of several sports (basketball, soccer), whose clocks may run different ways: follow one sport per feed"
        ),
    ])
    func aBodyWhoseSportNothingTellsIsAnError(body: String, message: String) {
        let failure = PresetTestSupport.failure(ESPNScoreboardNormalizer(), body)
        #expect(failure?.kind == .shape)
        #expect(failure?.message == message)
    }

    @Test func noSportIsNeededWithoutEventsOrWithAClockDirection() throws {
        #expect(try ESPNScoreboardNormalizer().normalize(Data(#"{"leagues": [], "events": []}"#.utf8)).isEmpty)
        let facts = try ESPNScoreboardNormalizer(clockDirection: .down).normalize(
            Data(ESPNScoreboardNormalizerTests.basketball.utf8))
        #expect(facts["401"]?["clock.direction"] == "down")
    }

    @Test func anOptionTheURLContradictsIsAConfigError() throws {
        #expect(
            throws: PresetError(
                option: "sport",
                message:
                    "\"hockey\" contradicts the URL, which names the sport soccer (…/sports/soccer/…): correct \"sport\" or leave it out"
            )
        ) {
            try FeedPreset.espnScoreboard.normalizer(
                options: PresetOptions(sport: "hockey"),
                url: "https://site.api.espn.com/apis/site/v2/sports/soccer/eng.1/scoreboard")
        }
        let agreeing = try FeedPreset.espnScoreboard.normalizer(
            options: PresetOptions(sport: "soccer"),
            url: "https://site.api.espn.com/apis/site/v2/sports/soccer/eng.1/scoreboard")
        #expect((agreeing as? ESPNScoreboardNormalizer)?.sportOrigin == .option)
    }
}
