import Foundation
import LiveRelayCore
import LiveRelayTesting
import Testing
import Worker
import WorkerTesting

/// Replay sequence files (`docs/sequence.schema.json`): every mistake said at once where it is, and a
/// sequence that replays several feeds in time order.
@Suite struct SequenceFileTests {
    static func problems(_ text: String, knownFeeds: Set<String>? = ["markets"]) throws -> [String] {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("sequence.json").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try ReplaySequence.load(path: path, knownFeeds: knownFeeds)
            return []
        } catch {
            return error.items.map { $0.description.replacingOccurrences(of: path, with: "sequence.json") }
        }
    }

    @Test func anUnknownKeyIsRefusedWithTheKeyMeant() throws {
        let found = try Self.problems(
            """
            {"feed": "markets", "steps": [{"at": "2026-01-01T00:00:00Z", "body": "a.json", "note": "x"}],
             "untill": "2026-01-01T01:00:00Z"}
            """)
        #expect(found == [#"sequence.json:2:2: unknown key "untill" (did you mean "until"?)"#])
    }

    @Test func stepsBackInTimeAnEarlyUntilAndAnUnknownFeedAreSaidTogether() throws {
        let found = try Self.problems(
            """
            {"feed": "markets", "until": "2026-01-01T00:00:30Z",
             "steps": [{"at": "2026-01-01T00:00:00Z", "body": "a.json"},
                       {"at": "2026-01-01T00:02:00Z", "body": "b.json", "feed": "prices"},
                       {"at": "2026-01-01T00:01:00Z", "body": "c.json"},
                       {"at": "yesterday", "body": "d.json"}]}
            """)
        #expect(
            found == [
                "sequence.json:4:19: steps[2].at: 2026-01-01T00:01:00Z is before steps[1] (2026-01-01T00:02:00Z): steps go forward in time",
                #"sequence.json:5:19: steps[3].at: "yesterday" is not an ISO 8601 time"#,
                "sequence.json:1:30: until: 2026-01-01T00:00:30Z is before the last step (2026-01-01T00:02:00Z): the clock runs on after it",
                #"sequence.json:3:69: steps[1].feed: feed "prices" is not in the config (it has "markets")"#,
            ])
    }

    /// Every sample sequence is valid against the schema it names.
    @Test func theSampleSequencesAreValid() throws {
        let root = Repository.path("Samples/sequences")
        for name in try FileManager.default.contentsOfDirectory(atPath: root).sorted() {
            let path = "\(root)/\(name)/sequence.json"
            guard FileManager.default.fileExists(atPath: path) else { continue }
            let sequence = try ReplaySequence.load(path: path)
            #expect(!sequence.steps.isEmpty, "\(name)")
            #expect(
                try String(contentsOfFile: path, encoding: .utf8).contains(
                    #""$schema": "../../../docs/sequence.schema.json""#))
        }
    }

    /// One sequence through two feeds of one config: Coinbase's BTC-USD ticker, then Binance's tickers,
    /// both read by one rule set on both feeds; each step's body goes through its own feed's preset.
    @Test func aSequenceReplaysSeveralFeeds() async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let rules = try String(contentsOfFile: Repository.path("Rules/markets.rules.json"), encoding: .utf8)
            .replacingOccurrences(of: #""feed": "markets""#, with: #""feed": ["coinbase", "binance"]"#)
            .replacingOccurrences(of: #""$schema": "./rules.schema.json","#, with: "")
        try rules.write(to: directory.appendingPathComponent("markets.rules.json"), atomically: true, encoding: .utf8)
        let config = """
            {"state": "state.sqlite", "rules": ["markets.rules.json"],
             "contracts": ["\(Repository.path("Rules/contracts/PriceAlertAttributes.contract.json"))"],
             "provider": {"type": "console", "bundle-id": "com.example.prices"},
             "feeds": [
               {"id": "coinbase", "url": "file:x.json", "interval": 10,
                "preset": {"name": "coinbase-exchange", "product": "BTC-USD"}},
               {"id": "binance", "url": "file:y.json", "interval": 10, "preset": "binance"}]}
            """
        try config.write(to: directory.appendingPathComponent("liverelay.json"), atomically: true, encoding: .utf8)
        let coinbase = Repository.path("Samples/sequences/coinbase-btc-usd")
        let binance = Repository.path("Samples/sequences/binance-btc-bnb")
        let sequence = """
            {"feed": "coinbase", "steps": [
              {"at": "2019-08-22T03:30:00Z", "body": "\(Repository.path("Samples/recordings/coinbase-exchange-ticker-btc-usd.json"))"},
              {"at": "2019-08-22T03:31:00Z", "body": "\(coinbase)/03-jump.json", "note": "BTC-USD +2.5 %"},
              {"at": "2019-08-22T03:38:26Z", "feed": "binance", "body": "\(Repository.path("Samples/recordings/binance-ticker-24hr-all-symbols.json"))"},
              {"at": "2019-08-22T03:39:30Z", "feed": "binance", "body": "\(binance)/02-btc-falls.json", "note": "BTCUSDT -5.888 %"}]}
            """
        let sequencePath = directory.appendingPathComponent("sequence.json").path
        try sequence.write(toFile: sequencePath, atomically: true, encoding: .utf8)

        let recorder = RecordingProvider()
        let output = ReplayTests.Output()
        let summary = try await SequenceReplay.run(
            config: directory.appendingPathComponent("liverelay.json").path, sequence: sequencePath,
            provider: recorder, output: output.write)
        #expect(summary.feedErrors == 0, "\(output.text)")
        let started = Set(recorder.pushes.filter { $0.event == .start }.map(\.activity.rawValue))
        #expect(started.isSuperset(of: ["price-BTC-USD", "price-BTCUSDT"]), "\(output.text)")
        #expect(output.text.contains("step 3/4 at 2019-08-22T03:38:26Z: binance: "), "\(output.text)")
    }
}

extension SequenceFileTests {
    /// A step registers tokens, reads a body, or both; its token file is read with the sequence, so a wrong
    /// one is said before anything is replayed: where it is in the token file, or, when there is no such
    /// file, at the step.
    @Test func aStepsTokenFileIsCheckedWithTheSequence() throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try #"{"subscriptions": [{"device": "a", "entity": "markets"}]}"#.write(
            to: directory.appendingPathComponent("wrong.json"), atomically: true, encoding: .utf8)
        try #"{"subscriptions": [{"device": "a", "entity": "markets/BTC"}]}"#.write(
            to: directory.appendingPathComponent("fine.json"), atomically: true, encoding: .utf8)
        let path = directory.appendingPathComponent("sequence.json").path
        try """
        {"feed": "markets", "steps": [{"at": "2026-01-01T00:00:00Z", "tokens": "fine.json"},
          {"at": "2026-01-01T00:01:00Z", "tokens": "wrong.json", "body": "a.json"},
          {"at": "2026-01-01T00:02:00Z", "tokens": "gone.json"}]}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try ReplaySequence.load(path: path, knownFeeds: ["markets"])
            Issue.record("the sequence loaded")
        } catch {
            #expect(
                error.items.map { $0.description.replacingOccurrences(of: directory.path + "/", with: "") } == [
                    #"wrong.json:1:36: subscriptions[0].entity: "markets" is not feed/id"#,
                    "sequence.json:3:44: steps[2].tokens: cannot read the token file gone.json",
                ])
        }
        let found = try Self.problems(#"{"feed": "markets", "steps": [{"at": "2026-01-01T00:00:00Z", "note": "x"}]}"#)
        #expect(found == [#"sequence.json:1:31: steps: missing required key "body" or "tokens""#])
    }
}
