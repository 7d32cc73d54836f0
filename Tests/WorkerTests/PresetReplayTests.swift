import Delivery
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Logging
import Rules
import Store
import Testing
import Worker
import WorkerTesting

/// Every preset's sample sequence through the real pipeline with its sample config and the shared rule
/// files, as `liverelay replay` runs them.
@Suite struct PresetReplayTests {
    static func replay(_ config: String, _ sequence: String) async throws -> ([LiveActivityPush], ReplaySummary) {
        #expect(
            try ConfigLoader.load(path: Repository.path("Samples/presets/\(config).json")).loadRules().errors
                .isEmpty)
        let recorder = RecordingProvider()
        let summary = try await SequenceReplay.run(
            config: "Samples/presets/\(config).json", sequence: "Samples/sequences/\(sequence)/sequence.json",
            provider: recorder)
        return (recorder.pushes, summary)
    }

    @Test func espnSoccer() async throws {
        let (pushes, summary) = try await Self.replay("espn-soccer", "espn-aus-egy-preset")
        #expect(summary.feedErrors == 0)
        #expect(pushes.map(\.event) == [.start, .update, .update, .update, .update, .update, .end])
        #expect(
            pushes.map { $0.ruleIDs.joined(separator: "+") } == [
                "match-start", "match-play", "match-goal+match-play", "match-play", "match-goal+match-play",
                "match-overtime+match-play", "match-end",
            ])
        #expect(
            pushes.map { $0.alert?.title } == [
                "Australia v Egypt", nil, "Egypt take the lead", nil, "Australia draw level", "Extra time", "Egypt win",
            ])
        #expect(pushes[3].contentState["state"] == "break", "half-time")
        #expect(pushes[5].contentState["period"] == 3, "extra time")
        let end = try #require(pushes.last)
        #expect(end.contentState["homePenalties"] == 2)
        #expect(end.contentState["awayPenalties"] == 4)
        #expect(end.contentState["winner"] == "away")
        #expect(end.alert?.body == "AUS 1–1 EGY (2–4 on penalties)")
    }

    /// An NBA game through ESPN's scoreboard, the sport read from the body's league: quarters, a clock
    /// counting down, a lead changing hands late, overtime, a final after overtime.
    @Test func espnNBA() async throws {
        let (pushes, summary) = try await Self.replay("espn-nba", "espn-nba-bos-lal")
        #expect(summary.feedErrors == 0)
        #expect(
            pushes.map { $0.ruleIDs.joined(separator: "+") } == [
                "match-start", "match-goal+match-play", "match-goal+match-play", "match-goal+match-play",
                "match-goal+match-play", "match-goal+match-play", "match-goal+match-play", "match-goal+match-play",
                "match-overtime+match-play", "match-end",
            ])
        #expect(
            pushes.map { $0.alert?.title } == [
                "Boston Celtics v Los Angeles Lakers", "Los Angeles Lakers take the lead", nil, nil,
                "Boston Celtics take the lead", "Los Angeles Lakers draw level", "Los Angeles Lakers take the lead",
                "Boston Celtics draw level", "Overtime", "Boston Celtics win",
            ])
        #expect(pushes[0].alert?.body == "Under way: BOS 0–0 LAL", "not a kick-off")
        #expect(pushes[2].priority == .low && pushes[3].priority == .low, "a basket that keeps the lead is quiet")
        #expect(pushes[8].alert?.body == "BOS 104–104 LAL (4:37 - OT)")
        #expect(pushes[8].contentState["period"] == 5)
        let end = try #require(pushes.last)
        #expect(end.alert?.body == "BOS 118–115 LAL (Final/OT)")
        #expect(end.contentState["winner"] == "home")
        #expect(end.contentState["homePenalties"] == nil)
    }

    @Test func footballData() async throws {
        let (pushes, summary) = try await Self.replay("football-data", "football-data-whu-ful")
        #expect(summary.feedErrors == 0)
        let match = pushes.filter { $0.activity == "match-537964" }
        #expect(
            match.map { $0.ruleIDs.joined(separator: "+") } == [
                "match-start", "match-play", "match-play", "match-goal", "match-end",
            ])
        #expect(match.map { $0.contentState["state"] } == ["live", "break", "live", "live", "final"])
        #expect(match[3].alert?.title == "Fulham take the lead", "a title that fits any sport")
        #expect(match[0].alert?.body?.hasPrefix("Kick-off: ") == true)
        #expect(match.last?.contentState["winner"] == "away")
        #expect(pushes.filter { $0.event == .start }.count == 5)
        #expect(pushes.filter { $0.event == .end }.count == 5)
    }

    @Test func binance() async throws {
        let (pushes, _) = try await Self.replay("binance", "binance-btc-bnb")
        #expect(
            pushes.map { "\($0.event) \($0.activity)" } == [
                "start price-BTCUSDT", "start price-BNBUSDT", "update price-BTCUSDT", "end price-BTCUSDT",
                "update price-BNBUSDT", "end price-BNBUSDT",
            ])
        #expect(pushes[0].contentState["price"] == .decimal(Decimal(string: "9750")!))
        #expect(pushes[0].alert?.title == "BTCUSDT moved -5.888 % in 24 h")
        #expect(pushes.last?.alert?.title == "BNBUSDT is no longer in the feed")
    }

    @Test(arguments: [
        ("coinbase", "coinbase-btc-usd", "price-BTC-USD", 0), ("kraken", "kraken-bcheur", "price-BCHEUR", 1),
    ])
    func marketsWithoutA24HourChangeStartOnAJump(config: String, sequence: String, activity: String, errors: Int)
        async throws
    {
        let (pushes, summary) = try await Self.replay(config, sequence)
        #expect(summary.feedErrors == errors)
        #expect(pushes.map(\.event) == [.start, .update])
        #expect(pushes.allSatisfy { $0.activity.rawValue == activity })
        #expect(pushes[0].ruleIDs == ["jump", "price"])
    }

    @Test func coingecko() async throws {
        let (pushes, _) = try await Self.replay("coingecko", "coingecko-sol")
        #expect(
            pushes.map { "\($0.event) \($0.activity)" } == [
                "start price-solana", "update price-solana", "end price-solana",
            ])
        #expect(pushes[0].contentState["change24h"] == .decimal(Decimal(string: "-9.1097")!))
    }
}
