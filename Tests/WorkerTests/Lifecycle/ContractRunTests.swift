import Foundation
import LiveRelayCore
import LiveRelayTesting
import Testing
import Worker
import WorkerTesting

/// Contracts at run time, through the whole pipeline: a state the app could not decode is never queued.
@Suite struct ContractRunTests {
    /// The football-data sample config no longer has the shape these tests edit.
    struct FootballDataSampleChanged: Error {}

    /// The football-data sample config with these rules and contract, its feed on the in-play recording,
    /// written in `directory`; its path.
    static func footballData(in directory: URL, rules: [String], contract: String) throws -> String {
        guard
            case .object(var config) = try JSONParser.parse(
                Data(contentsOf: Repository.url("Samples/presets/football-data.json"))),
            case .array(var feeds) = config["feeds"], case .object(var feed) = feeds[0]
        else { throw FootballDataSampleChanged() }
        config["rules"] = .array(rules.map(JSONValue.string))
        config["contracts"] = [.string(contract)]
        config["state"] = "state.sqlite"
        feed["url"] = .string("file:" + Repository.path("Samples/recordings/football-data-pl-matches-2-in-play.json"))
        feeds[0] = .object(feed)
        config["feeds"] = .array(feeds)
        let path = directory.appendingPathComponent("liverelay.json").path
        try JSONValue.object(config).jsonData().write(to: URL(fileURLWithPath: path))
        return path
    }

    /// football-data gives no match clock, and a preset's facts have no declared types, so `check` cannot
    /// see that the sports rules leave `clock` out: an app whose contract requires it would get states it
    /// cannot decode. Every start is refused, with the rule, the activity and the field, and nothing is sent;
    /// with the shipped contract (no clock required) the same replay sends every push.
    @Test func aStateTheAppCannotDecodeIsNeverSent() async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var contract = try String(
            contentsOfFile: Repository.path("Rules/contracts/MatchAttributes.contract.json"), encoding: .utf8)
        contract = contract.replacingOccurrences(
            of: #""required": ["homeScore", "awayScore", "status"]"#,
            with: #""required": ["homeScore", "awayScore", "status", "clock"]"#)
        let contractPath = directory.appendingPathComponent("match.contract.json").path
        try contract.write(toFile: contractPath, atomically: true, encoding: .utf8)
        let configPath = try Self.footballData(
            in: directory, rules: [Repository.path("Rules/sports.rules.json")], contract: contractPath)

        let output = ReplayTests.Output()
        let recorder = RecordingProvider()
        let summary = try await SequenceReplay.run(
            config: configPath, sequence: "Samples/sequences/football-data-whu-ful/sequence.json", provider: recorder,
            output: { output.write($0) })
        #expect(summary.feedErrors == 0)
        #expect(recorder.pushes.isEmpty, "no state breaking the contract was sent")
        let refusals = output.text.split(separator: "\n").filter { $0.contains("refused by the contract") }
        #expect(refusals.count >= 5, "every match's start: \(output.text)")
        #expect(
            refusals.allSatisfy { $0.contains("rules match-start") && $0.contains(#"missing required key "clock""#) })

        let shipped = RecordingProvider()
        _ = try await SequenceReplay.run(
            config: "Samples/presets/football-data.json",
            sequence: "Samples/sequences/football-data-whu-ful/sequence.json",
            provider: shipped)
        #expect(shipped.pushes.filter { $0.event == .start }.count == 5)
    }

    /// A rule whose patch breaks the contract only at run time (a period below the contract's minimum),
    /// firing on every change beside the good sports rules: each good push still goes, exactly as without it,
    /// and the broken rule is named once per change it fired on.
    @Test func aBrokenRuleNeverTakesDownTheGoodRulesPushes() async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let broken = """
            {"rules": [{"id": "bad-period", "feed": "scores", "when": true, "event": "update",
              "activity": {"key": {"cat": ["match-", {"var": "entity.id"}]}, "attributes-type": "MatchAttributes"},
              "content-state": {"period": {"-": [0, 1]}}}]}
            """
        let brokenPath = directory.appendingPathComponent("broken.rules.json").path
        try broken.write(toFile: brokenPath, atomically: true, encoding: .utf8)
        let configPath = try Self.footballData(
            in: directory, rules: [Repository.path("Rules/sports.rules.json"), brokenPath],
            contract: Repository.path("Rules/contracts/MatchAttributes.contract.json"))
        let sequence = "Samples/sequences/football-data-whu-ful/sequence.json"

        let output = ReplayTests.Output()
        let withBroken = RecordingProvider()
        let summary = try await SequenceReplay.run(
            config: configPath, sequence: sequence, provider: withBroken, output: { output.write($0) })
        let good = RecordingProvider()
        _ = try await SequenceReplay.run(
            config: "Samples/presets/football-data.json", sequence: sequence, provider: good)

        #expect(summary.feedErrors == 0)
        #expect(!good.pushes.isEmpty)
        #expect(
            withBroken.pushes.map { "\($0.event) \($0.activity) \($0.contentState.jsonString())" }
                == good.pushes.map { "\($0.event) \($0.activity) \($0.contentState.jsonString())" },
            "every good push went, unchanged")
        let refusals = output.text.split(separator: "\n").filter { $0.contains("refused by the contract") }
        #expect(!refusals.isEmpty)
        #expect(refusals.allSatisfy { $0.contains("(rules bad-period)") }, "\(refusals)")
        let firings = output.text.split(separator: "\n").filter { $0.contains("changed") && $0.contains("bad-period") }
        let named = output.text.split(separator: "\n").filter { $0.contains("bad-period)") }
        #expect(named.count == firings.count, "named once per change it fired on: \(output.text)")
    }
}
