import Foundation
import LiveRelayCore
import LiveRelayTesting
import Rules
import Testing

/// The `liverelay` binary as a user runs it.
@Suite struct CommandLineTests {
    let liverelay = Repository.executable("liverelay")

    @Test func checkReportsThreeMistakesPreciselyAndExitsOne() async throws {
        let run = try await CommandRun.run(
            liverelay, ["check", "Tests/RulesTests/Fixtures/broken.rules.json"], directory: Repository.root)
        #expect(run.status == 1)
        #expect(
            run.standardOutput == """
                Tests/RulesTests/Fixtures/broken.rules.json:19:7: rule goal: unknown key "prioirty" (did you mean "priority"?)
                Tests/RulesTests/Fixtures/broken.rules.json:28:7: rule clock: "stale-after" must be an integer or an object, not a string
                Tests/RulesTests/Fixtures/broken.rules.json:33:70: rule period: when/and/1: unknown operator "contains"
                2 rules loaded from 1 files, 3 problems

                """)
    }

    /// `check` says which personal rules an index narrows, and why the others are not.
    @Test func checkSaysWhichPersonalRulesAreIndexed() async throws {
        let run = try await CommandRun.run(
            liverelay, ["check", "Rules/personal-alerts.rules.json"], directory: Repository.root)
        #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)")
        #expect(
            run.standardOutput.contains(
                "Rules/personal-alerts.rules.json:23:5: rule my-crosses-above: personal, indexed: only the subscriptions whose subscription.parameters.above lies between prev.price and curr.price are evaluated"
            ), "\(run.standardOutput)")
        #expect(
            run.standardOutput.contains(
                "rule my-moves: personal, indexed: only the subscriptions that own a running activity are evaluated"))
        #expect(run.standardOutput.contains("rule my-calm: personal, on the clock"))
    }

    /// In channel mode an entity's personal activities share one channel, so `check` refuses a content-state
    /// that reads the subscription (a broadcast carries one state to all of them), at the field's
    /// line:column, and a shared rule of the same attributes type; the shipped channel-mode preset passes.
    @Test func checkRefusesAPersonalContentStateOnASharedChannel() async throws {
        let shipped = try await CommandRun.run(
            liverelay, ["check", "--config", "Samples/presets/personal-alerts-channel.json"], directory: Repository.root
        )
        #expect(shipped.status == 0, "\(shipped.standardOutput)\(shipped.standardError)")
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var rules = try String(contentsOf: Repository.url("Rules/personal-alerts.rules.json"), encoding: .utf8)
        // my-moves: the level beside the price, personal.
        rules = rules.replacingOccurrences(
            of: #""content-state": { "price": { "var": "curr.price" } },\#n      "relevance-score": 50"#,
            with:
                #""content-state": { "price": { "var": "curr.price" },\#n        "level": { "var": "subscription.parameters.above" } },\#n      "relevance-score": 50"#
        )
        let rulePath = directory.appendingPathComponent("alerts.rules.json").path
        try rules.write(toFile: rulePath, atomically: true, encoding: .utf8)
        let shared =
            #"{"rules": [{"id": "everyone", "feed": "markets", "when": true, "activity": {"key": "all", "attributes-type": "PersonalAlertAttributes"}, "event": "update", "content-state": {"price": {"var": "curr.price"}}}]}"#
        let sharedPath = directory.appendingPathComponent("shared.rules.json").path
        try shared.write(toFile: sharedPath, atomically: true, encoding: .utf8)
        var config =
            try JSONParser.parse(
                Data(contentsOf: Repository.url("Samples/presets/personal-alerts-channel.json"))
            ).objectValue ?? [:]
        config["rules"] = [.string(rulePath), .string(sharedPath)]
        config["contracts"] = nil
        config["state"] = .string(directory.appendingPathComponent("state.sqlite").path)
        config["activity-modes"] = [["rule-file": .string(rulePath), "mode": "channel"]]
        let path = directory.appendingPathComponent("liverelay.json").path
        try JSONValue.object(config).jsonString().write(toFile: path, atomically: true, encoding: .utf8)
        let run = try await CommandRun.run(liverelay, ["check", "--config", path], directory: Repository.root)
        #expect(run.status == 1, "\(run.standardOutput)\(run.standardError)")
        let said = run.standardOutput + run.standardError
        let line = try #require(
            rules.split(separator: "\n", omittingEmptySubsequences: false).firstIndex {
                $0.contains(#""level": { "var": "subscription.parameters.above" } }"#)
            })
        #expect(
            said.contains(
                "\(rulePath):\(line + 1):9: rule my-moves: content-state.level reads subscription, but in channel mode"),
            "\(said)")
        #expect(
            said.contains("rule everyone: PersonalAlertAttributes is the attributes type of personal rules"), "\(said)")
    }

    @Test func checkOfTheDemoConfigPasses() async throws {
        let run = try await CommandRun.run(
            liverelay, ["check", "--config", "Samples/demo/liverelay.json"], directory: Repository.root)
        #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)")
        #expect(run.standardOutput.hasSuffix("4 rules loaded from 1 files, 0 problems\n"))
    }

    /// `check` reads every credential the config names, as `run` would at start, without sending: a `.p8`
    /// that is not a key, a secret that is not set, a route to no provider.
    @Test func checkReadsTheCredentialsRunWouldRefuse() async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try "not a key".write(
            to: directory.appendingPathComponent("AuthKey.p8"), atomically: true, encoding: .utf8)
        var config = try DemoConfig()
        config["provider"] = [
            "type": "apns", "key-id": "ABC123DEFG", "team-id": "DEF123GHIJ", "key": ["file": "AuthKey.p8"],
        ]
        config["providers"] = [
            ["id": "pw", "type": "pushwoosh", "application": "A-1", "api-token": ["env": "NO_SUCH_VAR"]]
        ]
        config["routes"] = [["attributes-type": "PriceAttributes", "provider": "nope"]]
        config["state"] = "state-folder"
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("state-folder"), withIntermediateDirectories: false)
        let path = try config.write(to: directory)
        let run = try await CommandRun.run(liverelay, ["check", "--config", path])
        #expect(run.status == 1)
        // Each at the line:column where the config writes it.
        let said = run.standardOutput.split(separator: "\n").map(String.init)
        func line(_ text: String) -> String? { said.first { $0.contains(text) } }
        #expect(
            line("provider.key: the APNs key ABC123DEFG is not a PEM-encoded P-256 private key (.p8)")?.hasPrefix(
                "\(path):") == true)
        #expect(
            line("providers[0] (pw): provider.api-token: secret from environment variable NO_SUCH_VAR is not set")?
                .hasPrefix("\(path):") == true)
        #expect(line(#"routes[0].provider: no entry of providers has the id "nope""#) != nil)
        #expect(line("state: state-folder is a directory, not a state file") != nil)
        for text in ["provider.key:", "provider.api-token:", "routes[0].provider:", "state: state-folder"] {
            let found = line(text) ?? ""
            #expect(
                found.range(of: #"^.+:\d+:\d+: "#, options: .regularExpression) != nil,
                "no line:column: \(found)")
        }
        #expect(!run.standardOutput.contains("not a key"))
    }

    /// Every case of the JsonLogic conformance suite, through `liverelay eval --jsonl` in one run.
    @Test func evalJSONLGivesTheConformanceResults() async throws {
        let suite = try JSONParser.parse(
            Data(contentsOf: Repository.url("Tests/RulesTests/Resources/jsonlogic-tests.json")))
        let cases = suite.arrayValue!.compactMap { $0.arrayValue }
        #expect(cases.count == 277)
        var input = cases.map { JSONValue.object(["rule": $0[0], "data": $0[1]]).jsonString() }
        input.insert("not json", at: 10)
        input.insert(#"{"rule": {"nope": []}}"#, at: 20)
        let run = try await CommandRun.run(liverelay, ["eval", "--jsonl"], input: input.joined(separator: "\n") + "\n")
        #expect(run.status == 0)
        var lines = run.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.last == "")
        lines.removeLast()
        #expect(lines.count == 279)
        #expect(lines[20] == #"{"error":"unknown operator \"nope\""}"#)
        #expect(lines[10].hasPrefix(#"{"error":"line is not valid JSON"#))
        lines.remove(at: 20)
        lines.remove(at: 10)
        for (i, (line, testCase)) in zip(lines, cases).enumerated() {
            #expect(
                try JSONParser.parse(line) == testCase[2],
                "case \(i): \(testCase[0].jsonString()) with \(testCase[1].jsonString())")
        }
    }

    @Test func evalPrintsOneResult() async throws {
        let run = try await CommandRun.run(
            liverelay,
            [
                "eval", #"{">": [{"var": "curr.home.score"}, {"var": "prev.home.score"}]}"#, "--data",
                #"{"prev": {"home": {"score": 0}}, "curr": {"home": {"score": 1}}}"#,
            ])
        #expect(run.status == 0)
        #expect(run.standardOutput == "true\n")
    }

    /// `eval` reads numbers as rule files and feeds are read: exact decimals, so what it prints is what a
    /// rule computes.
    @Test func evalComputesInExactDecimals() async throws {
        let run = try await CommandRun.run(
            liverelay,
            ["eval", #"{"+": [0.1, 0.2, {"var": "price"}]}"#, "--data", #"{"price": 100150.07}"#])
        #expect(run.status == 0)
        #expect(run.standardOutput == "100150.37\n")
        let (rules, _) = RuleLoader().load(
            file: "r.json",
            data: Data(
                #"{"rules": [{"id": "r", "feed": "f", "when": {"==": [{"+": [0.1, 0.2]}, 0.3]}, "event": "update", "activity": {"key": "a", "attributes-type": "T"}}]}"#
                    .utf8))
        #expect(try rules.first?.when.evaluate(.null) == true, "a rule file's literals are exact too")
    }

    @Test func theDemoPrintsTheSameTwiceAndMatchesTheGoldenFile() async throws {
        let args = [
            "replay", "Samples/sequences/espn-aus-egy/sequence.json", "--config", "Samples/demo/liverelay.json",
        ]
        let first = try await CommandRun.run(liverelay, args, directory: Repository.root)
        let second = try await CommandRun.run(liverelay, args, directory: Repository.root)
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput == second.standardOutput)
        let golden = try String(
            contentsOf: Repository.url("Samples/sequences/espn-aus-egy/expected-console.txt"), encoding: .utf8)
        // The golden file holds what the replay prints after its first line (which names the paths used).
        #expect(first.standardOutput.split(separator: "\n", maxSplits: 1).last.map(String.init) == golden)
    }

    /// `liverelay replay … | head`: once the reader is gone, writing is an error (EPIPE), said once on
    /// standard error; the replay finishes and exits 0 instead of dying on a broken pipe.
    @Test func aClosedStandardOutputIsAnErrorNotACrash() async throws {
        let command =
            "set -o pipefail; '\(liverelay.path)' replay Samples/sequences/espn-aus-egy/sequence.json --config Samples/demo/liverelay.json | head -c 1 > /dev/null"
        let run = try await CommandRun.run(
            URL(fileURLWithPath: "/bin/bash"), ["-c", "sleep 0.2; " + command], directory: Repository.root)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("standard output is closed"), "\(run.standardError)")
        #expect(!run.standardError.contains("Fatal error"))
    }

    /// A broken config does not hide its rule files' problems: `check` reports both.
    @Test func aBrokenConfigStillHasItsRulesChecked() async throws {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try
            #"{"rules": [{"id": "r", "feed": "prices", "when": {">": [{"var": "cur.price"}, 1]}, "event": "update", "activity": {"key": "m", "attributes-type": "T"}}]}"#
            .write(to: dir.appendingPathComponent("r.rules.json"), atomically: true, encoding: .utf8)
        try #"{"rules": ["r.rules.json"], "feeds": [{"id": "prices", "url": "file:x.json", "intervall": 5}]}"#
            .write(to: dir.appendingPathComponent("liverelay.json"), atomically: true, encoding: .utf8)
        let run = try await CommandRun.run(
            liverelay, ["check", "--config", dir.appendingPathComponent("liverelay.json").path])
        #expect(run.status == 1)
        #expect(run.standardOutput.contains("intervall"), "\(run.standardOutput)")
        #expect(
            run.standardOutput.contains("r.rules.json:1:58: rule r: \"cur.price\" reads cur"), "\(run.standardOutput)")

        // The rules are still checked against the facts of the config's preset feeds, and a rule file the
        // config names that does not exist is said once, at the config's line:column.
        try
            #"{"rules": [{"id": "r", "feed": "prices", "when": {">": [{"var": "curr.prise"}, 1]}, "event": "update", "activity": {"key": "m", "attributes-type": "T"}}]}"#
            .write(to: dir.appendingPathComponent("r.rules.json"), atomically: true, encoding: .utf8)
        try
            #"{"rules": ["r.rules.json", "gone.rules.json"], "feeds": [{"id": "prices", "url": "file:x.json", "preset": "binance", "intervall": 5}]}"#
            .write(to: dir.appendingPathComponent("liverelay.json"), atomically: true, encoding: .utf8)
        let again = try await CommandRun.run(
            liverelay, ["check", "--config", dir.appendingPathComponent("liverelay.json").path])
        #expect(again.status == 1)
        #expect(
            again.standardOutput.contains("no feed of this rule gives a fact prise (did you mean price?)"),
            "\(again.standardOutput)")
        let gone = again.standardOutput.split(separator: "\n").filter { $0.contains("gone.rules.json") }
        #expect(gone.count == 1, "\(again.standardOutput)")
        try
            #"{"rules": ["r.rules.json", "gone.rules.json"], "feeds": [{"id": "prices", "url": "file:x.json", "preset": "binance"}]}"#
            .write(to: dir.appendingPathComponent("liverelay.json"), atomically: true, encoding: .utf8)
        let valid = try await CommandRun.run(
            liverelay, ["check", "--config", dir.appendingPathComponent("liverelay.json").path])
        let said = valid.standardOutput.split(separator: "\n").filter { $0.contains("gone.rules.json") }
        #expect(said.count == 1, "\(valid.standardOutput)")
        #expect(said.first?.contains("liverelay.json:1:") == true, "\(valid.standardOutput)")
    }

    /// A contract with a type misspelt does not hide the rules' contract checks: `check` says both the
    /// contract's mistake and a start that lacks a field the rest of the contract requires.
    @Test func aBrokenContractStillHasTheRulesCheckedAgainstTheRest() async throws {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try #"""
        {"attributes-type": "Card", "content-state": {"type": "object", "required": ["price"],
          "properties": {"price": {"type": "number"}, "high": {"type": "numbr"}}}}
        """#.write(to: dir.appendingPathComponent("card.contract.json"), atomically: true, encoding: .utf8)
        try
            #"{"rules": [{"id": "s", "feed": "prices", "when": true, "event": "start", "activity": {"key": "m", "attributes-type": "Card", "attributes": {}}, "content-state": {"high": {"var": "curr.price"}}, "alert": {"title": "t", "body": "b"}}]}"#
            .write(to: dir.appendingPathComponent("r.rules.json"), atomically: true, encoding: .utf8)
        try
            #"{"rules": ["r.rules.json"], "contracts": ["card.contract.json"], "feeds": [{"id": "prices", "url": "file:x.json", "preset": "binance"}]}"#
            .write(to: dir.appendingPathComponent("liverelay.json"), atomically: true, encoding: .utf8)
        let run = try await CommandRun.run(
            liverelay, ["check", "--config", dir.appendingPathComponent("liverelay.json").path])
        #expect(run.status == 1)
        #expect(
            run.standardOutput.contains(#"card.contract.json:2:64: content-state schema: unknown type "numbr""#),
            "\(run.standardOutput)")
        #expect(
            run.standardOutput.contains(
                #"r.rules.json:1:12: rule s: the start's content-state lacks required field "price""#),
            "\(run.standardOutput)")
    }

    @Test func tickTwiceSendsNothingTheSecondTime() async throws {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("liverelay.json")
        let feed = Repository.path("Samples/recordings/espn-soccer-scoreboard-1-first-half.json")
        let demo = try String(contentsOf: Repository.url("Samples/demo/liverelay.json"), encoding: .utf8)
            .replacingOccurrences(
                of: "file:../recordings/espn-soccer-scoreboard-1-first-half.json", with: "file:\(feed)"
            )
            .replacingOccurrences(of: "../../Rules/", with: Repository.path("Rules") + "/")
            .replacingOccurrences(of: "\"$schema\": \"../../docs/liverelay.schema.json\",", with: "")
        try demo.write(to: config, atomically: true, encoding: .utf8)
        let first = try await CommandRun.run(liverelay, ["tick", "--config", config.path])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput.contains("\"event\":\"start\""))
        #expect(
            first.standardError == """
                feed espn-worldcup: 32 changed entities, 1 pushes queued
                provider console: 1 sent (1 at priority 10, 0 at 5, 0 downgraded), 0 failed, 0 waiting

                """)
        let second = try await CommandRun.run(liverelay, ["tick", "--config", config.path])
        #expect(second.status == 0)
        #expect(second.standardOutput == "")
        #expect(
            second.standardError == """
                feed espn-worldcup: 0 changed entities, 0 pushes queued
                provider console: 0 sent (0 at priority 10, 0 at 5, 0 downgraded), 0 failed, 0 waiting

                """)
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("liverelay.sqlite").path))
    }
}
