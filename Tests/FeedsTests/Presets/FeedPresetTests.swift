import Feeds
import Foundation
import Testing

/// Building presets from their options and URLs.
@Suite struct FeedPresetTests {
    @Test func theURLFillsInWhatTheOptionsLeaveOut() throws {
        let espn = try FeedPreset.espnScoreboard.normalizer(
            options: PresetOptions(),
            url: "https://site.api.espn.com/apis/site/v2/sports/basketball/nba/scoreboard?dates=20260110")
        #expect((espn as? ESPNScoreboardNormalizer)?.clockDirection == .down)
        let overridden = try FeedPreset.espnScoreboard.normalizer(
            options: PresetOptions(sport: "hockey", clockDirection: .up), url: nil)
        #expect((overridden as? ESPNScoreboardNormalizer)?.clockDirection == .up)
        let coinbase = try FeedPreset.coinbaseExchange.normalizer(
            options: PresetOptions(), url: "https://api.exchange.coinbase.com/products/ETH-EUR/ticker")
        #expect((coinbase as? CoinbaseTickerNormalizer)?.product == "ETH-EUR")
        let gecko = try FeedPreset.coingecko.normalizer(
            options: PresetOptions(),
            url: "https://api.coingecko.com/api/v3/simple/price?ids=bitcoin&vs_currencies=eur,usd")
        #expect((gecko as? CoinGeckoPriceNormalizer)?.currency == "eur")
    }

    @Test func aMissingOptionNamesItself() {
        #expect(throws: PresetError.self) {
            try FeedPreset.coinbaseExchange.normalizer(options: PresetOptions(), url: "file:///tmp/ticker.json")
        }
    }

    @Test func anESPNFeedWithoutASportReadsItFromEachBody() throws {
        let espn = try FeedPreset.espnScoreboard.normalizer(
            options: PresetOptions(), url: "file:///tmp/scoreboard.json")
        #expect((espn as? ESPNScoreboardNormalizer)?.sport == nil)
        #expect((espn as? ESPNScoreboardNormalizer)?.clockDirection == nil)
    }
}
