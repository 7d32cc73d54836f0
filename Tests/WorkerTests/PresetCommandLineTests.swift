import Foundation
import LiveRelayCore
import LiveRelayTesting
import Testing

/// `liverelay facts`, `check` and `replay` with the presets, as a user runs them.
@Suite struct PresetCommandLineTests {
    let liverelay = Repository.executable("liverelay")

    static let samples = [
        ("espn-soccer", "espn-aus-egy-preset"), ("espn-nba", "espn-nba-bos-lal"),
        ("football-data", "football-data-whu-ful"),
        ("binance", "binance-btc-bnb"), ("coinbase", "coinbase-btc-usd"), ("kraken", "kraken-bcheur"),
        ("coingecko", "coingecko-sol"),
    ]

    @Test(arguments: samples)
    func checkAndReplayEverySample(config: String, sequence: String) async throws {
        let check = try await CommandRun.run(
            liverelay, ["check", "--config", "Samples/presets/\(config).json"], directory: Repository.root)
        #expect(check.status == 0, "\(check.standardOutput)")
        // The shared rule sets read facts some presets lack (they read null there): warnings, not problems.
        #expect(check.standardOutput.contains("rules loaded from 1 files, 0 problems"), "\(check.standardOutput)")
        let replay = try await CommandRun.run(
            liverelay,
            ["replay", "Samples/sequences/\(sequence)/sequence.json", "--config", "Samples/presets/\(config).json"],
            directory: Repository.root)
        #expect(replay.status == 0, "\(replay.standardError)")
        #expect(replay.standardOutput.contains("→ start "))
    }

    @Test func factsPrintsOneLinePerEntity() async throws {
        let run = try await CommandRun.run(
            liverelay,
            ["facts", "--preset", "kraken", "Samples/recordings/kraken-ticker-bcheur.json"], directory: Repository.root)
        #expect(run.status == 0)
        #expect(
            run.standardOutput == """
                {
                  "BCHEUR": {"ask":355.4,"bid":354.3,"changeToday":{"absolute":1.7,"percent":0.4806},"high24h":369,"low24h":346,"openToday":353.7,"price":355.4,"symbol":"BCHEUR","volume":4433.77288826}
                }

                """)
        let espn = try await CommandRun.run(
            liverelay,
            [
                "facts", "--preset", "espn-scoreboard", "--option", "sport=soccer",
                "Samples/recordings/espn-soccer-scoreboard-3-final-pens.json",
            ], directory: Repository.root)
        #expect(espn.status == 0)
        #expect(espn.standardOutput.split(separator: "\n").count == 34)
        #expect(
            espn.standardOutput.contains(
                #"  "760499": {"away":{"abbr":"EGY","name":"Egypt","score":1,"shootout":4},"clock":{"direction":"up","display":"120'","seconds":7200},"home":{"abbr":"AUS","name":"Australia","score":1,"shootout":2},"period":5,"start":1783101600,"state":"final","status":"STATUS_FINAL_PEN","statusShortText":"FT-Pens","statusText":"FT-Pens","winner":"away"},"#
            ))
    }

    @Test func factsOfAConfigsFeed() async throws {
        let run = try await CommandRun.run(
            liverelay, ["facts", "--config", "Samples/presets/coinbase.json", "--feed", "markets"],
            directory: Repository.root)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.standardOutput.contains(#""BTC-USD": {"ask":4417.01,"bid":4417,"currency":"USD","price":4417.01"#))
    }

    @Test func aBodyThatDoesNotFitGivesThePollersErrorAndExitsOne() async throws {
        let run = try await CommandRun.run(
            liverelay,
            ["facts", "--preset", "kraken", "Samples/recordings/coinbase-exchange-ticker-btc-usd.json"],
            directory: Repository.root)
        #expect(run.status == 1)
        #expect(run.standardOutput.isEmpty)
        let url = Repository.url("Samples/recordings/coinbase-exchange-ticker-btc-usd.json").standardizedFileURL
            .absoluteString
        #expect(
            run.standardError
                == "error (shape): feed kraken (\(url)): the body is not a Kraken ticker: no \"error\" at the document root (it has ask, bid, price, size, time, …)\n"
        )
        let html = try await CommandRun.run(
            liverelay, ["facts", "--preset", "binance", "README.md"], directory: Repository.root)
        #expect(html.status == 1)
        #expect(html.standardError.hasPrefix("error (invalid_json): feed binance ("))
        let missing = try await CommandRun.run(
            liverelay, ["facts", "--preset", "binance", "no-such-file.json"], directory: Repository.root)
        #expect(missing.status == 1)
        #expect(missing.standardError.hasPrefix("error (transport): feed binance ("))
    }

    /// The ESPN sport from the body when nothing names it, and a sport the body contradicts as the poller's
    /// error: the feed, and the option to fix.
    @Test func anESPNSportFromTheBodyOrAnErrorNamingTheOption() async throws {
        let recording = "Samples/recordings/espn-soccer-scoreboard-1-first-half.json"
        let inferred = try await CommandRun.run(
            liverelay, ["facts", "--preset", "espn-scoreboard", recording], directory: Repository.root)
        #expect(inferred.status == 0, "\(inferred.standardError)")
        #expect(inferred.standardOutput.contains(#""clock":{"direction":"up","display":"44'","seconds":2640}"#))
        let wrong = try await CommandRun.run(
            liverelay, ["facts", "--preset", "espn-scoreboard", "--option", "sport=basketball", recording],
            directory: Repository.root)
        #expect(wrong.status == 1)
        let url = Repository.url(recording).standardizedFileURL.absoluteString
        #expect(
            wrong.standardError
                == "error (shape): feed espn-scoreboard (\(url)): the \"sport\" option says basketball, but the body's league fifa.world (/leagues/0/uid \"s:600~l:606\") is soccer: correct \"sport\" or leave it out (the league tells the sport)\n"
        )
    }
}
