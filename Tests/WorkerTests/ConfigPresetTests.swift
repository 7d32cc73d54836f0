import Feeds
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Rules
import Testing
import Worker

/// Feeds with `"preset"` in the config: both forms, the options each preset takes, and the errors.
@Suite struct ConfigPresetTests {
    func load(_ text: String, environment: [String: String] = [:]) throws -> Result<LoadedConfig, Diagnostics> {
        try ConfigLoaderTests().load(text, environment: environment)
    }

    func messages(_ text: String) throws -> [String] {
        guard case .failure(let diagnostics) = try load(text) else {
            Issue.record("expected errors")
            return []
        }
        return diagnostics.items.map(\.description)
    }

    @Test func everySampleConfigLoadsWithItsPreset() throws {
        for name in ["espn-soccer", "espn-nba", "football-data", "binance", "coinbase", "kraken", "coingecko"] {
            let loaded = try ConfigLoader.load(path: Repository.path("Samples/presets/\(name).json"))
            #expect(loaded.feeds.count == 1)
            #expect(loaded.loadRules().errors.isEmpty, "\(name)")
        }
    }

    @Test func aNameOrAnObjectWithOptionsAndTheTokenAsAHeader() throws {
        let text = """
            {"feeds": [
              {"id": "nba", "url": "https://site.api.espn.com/apis/site/v2/sports/basketball/nba/scoreboard", "preset": "espn-scoreboard"},
              {"id": "pl", "url": "https://api.football-data.org/v4/competitions/PL/matches",
               "preset": {"name": "football-data", "token": {"env": "FOOTBALL_DATA_TOKEN"}}},
              {"id": "btc", "url": "https://api.binance.com/api/v3/ticker/24hr", "preset": {"name": "binance", "symbols": ["BTCUSDT"]}}
            ]}
            """
        guard case .success(let loaded) = try load(text, environment: ["FOOTBALL_DATA_TOKEN": "t0ken"]) else {
            Issue.record("expected the config to load")
            return
        }
        #expect((loaded.feeds[0].normalizer as? ESPNScoreboardNormalizer)?.clockDirection == .down)
        #expect(loaded.feeds[1].normalizer is FootballDataNormalizer)
        #expect(loaded.feeds[1].headers.map(\.name) == ["X-Auth-Token"])
        #expect(loaded.feeds[1].headers.map(\.value) == ["t0ken"])
        #expect(loaded.feeds[2].normalizer is BinanceTickerNormalizer)
        #expect(
            try messages(text) == [
                "liverelay.json:4:49: feeds[1].preset.token: secret from environment variable FOOTBALL_DATA_TOKEN is not set"
            ], "the token's value never appears, its place does")
    }

    @Test func mistakesAreReportedAtTheirPlace() throws {
        let text = """
            {"feeds": [
              {"id": "a", "url": "file:a.json", "preset": "espn"},
              {"id": "b", "url": "file:b.json", "preset": {"name": "binance", "sport": "soccer"}},
              {"id": "c", "url": "file:c.json"},
              {"id": "d", "url": "file:d.json", "preset": "kraken", "mapping": {"entities": "", "fields": {"p": {"pointer": "/p", "type": "decimal"}}}},
              {"id": "e", "url": "https://x.test/sports/soccer/eng.1/scoreboard", "preset": {"name": "espn-scoreboard", "sport": "hockey"}},
              {"id": "f", "url": "file:f.json", "preset": {"name": "coinbase-exchange", "clock-direction": "sideways"}}
            ]}
            """
        #expect(
            try messages(text) == [
                #"liverelay.json:2:47: feeds[0].preset: "preset" must be an object, "espn-scoreboard", "football-data", "binance", "coinbase-exchange", "kraken" or "coingecko", not "espn""#,
                #"liverelay.json:3:67: feeds[1].preset.sport: "sport" is not allowed when "name" is "binance""#,
                #"liverelay.json:7:96: feeds[5].preset.clock-direction: "clock-direction" must be one of "up", "down", not "sideways""#,
                #"liverelay.json:7:77: feeds[5].preset.clock-direction: "clock-direction" is not allowed when "name" is "coinbase-exchange""#,
            ])
        let valid = text.replacingOccurrences(of: #""espn"}"#, with: #""espn-scoreboard"}"#)
            .replacingOccurrences(of: #", "sport": "soccer""#, with: "")
            .replacingOccurrences(of: #", "clock-direction": "sideways""#, with: "")
        #expect(
            try messages(valid) == [
                #"liverelay.json:4:3: feeds[2]: a feed needs a "preset" (espn-scoreboard, football-data, binance, coinbase-exchange, kraken, coingecko) or a generic "mapping""#,
                #"liverelay.json:5:37: feeds[3].preset: give either "mapping" or "preset", not both"#,
                #"liverelay.json:6:118: feeds[4].preset.sport: "hockey" contradicts the URL, which names the sport soccer (…/sports/soccer/…): correct "sport" or leave it out"#,
                #"liverelay.json:7:47: feeds[5].preset.product: the Coinbase Exchange preset needs "product" (BTC-USD, …) when the URL does not name it (…/products/{product}/ticker)"#,
            ])
    }
}
