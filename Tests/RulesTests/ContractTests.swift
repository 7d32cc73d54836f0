import Foundation
import LiveRelayCore
import LiveRelayTesting
import Rules
import Testing

/// Content-state contracts: each mistake class (a missing required field, a wrong type, an unknown field, a
/// date in the wrong epoch) found by `check` from the rules as written, and by the run-time check in every
/// state sent; and contract files that are wrong themselves.
@Suite struct ContractTests {
    /// A match contract with a countdown date (`endsAt`, a Swift `Date`) in ActivityKit's default encoding.
    static let contract = """
        {
          "attributes-type": "MatchAttributes",
          "content-state": {
            "type": "object", "additionalProperties": false, "required": ["homeScore", "status"],
            "properties": {
              "homeScore": {"type": "integer", "minimum": 0},
              "status": {"type": "string"},
              "clock": {"type": "string"},
              "endsAt": {"type": "number", "x-date": true},
              "period": {"type": "integer"}
            }
          },
          "attributes": {
            "type": "object", "additionalProperties": false, "required": ["homeTeam"],
            "properties": {"homeTeam": {"type": "string"}, "kickOff": {"type": "number", "x-date": true}}
          }
        }
        """

    static let facts: [String: ContractCheck.Fact] = [
        "home.score": .init(kind: .int, optional: false), "status": .init(kind: .string, optional: false),
        "clock.display": .init(kind: .string, optional: false), "start": .init(kind: .time, optional: false),
        "period": .init(kind: .int, optional: true), "home.name": .init(kind: .string, optional: false),
    ]

    /// Loads `contract` and one rule file holding `rules` (JSON text of the `rules` array's members), and
    /// returns what the check says, as `line:column: message`.
    static func check(_ rules: String, contract: String = Self.contract) throws -> [String] {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let contractPath = directory.appendingPathComponent("match.contract.json").path
        try contract.write(toFile: contractPath, atomically: true, encoding: .utf8)
        let rulePath = directory.appendingPathComponent("match.rules.json").path
        try "{\"rules\": [\n\(rules)\n]}\n".write(toFile: rulePath, atomically: true, encoding: .utf8)
        let loaded = try ContractLoader.load(path: contractPath, resolvedPath: contractPath).get()
        var loader = RuleLoader(knownFeeds: ["f"])
        loader.stateSchemas = ["MatchAttributes": loaded.contentState.written]
        var set = loader.load(paths: [rulePath])
        ContractCheck.apply(to: &set, contracts: ["MatchAttributes": loaded], facts: ["f": facts])
        return set.diagnostics.map {
            "\($0.location.map { "\($0)" } ?? "-"): \($0.isError ? "" : "warning: ")\($0.message.replacingOccurrences(of: " (contract \(contractPath))", with: ""))"
        }
    }

    static func rule(_ id: String, event: String = "update", state: String, attributes: String = "") -> String {
        """
        {"id": "\(id)", "feed": "f", "when": true, "event": "\(event)",
         "activity": {"key": "m", "attributes-type": "MatchAttributes"\(attributes.isEmpty ? "" : ", \"attributes\": \(attributes)")},
         \(event == "start" ? "\"alert\": {\"title\": \"t\", \"body\": \"b\"}," : "")
         "content-state": \(state)}
        """
    }

    // MARK: check time

    @Test func aStartWithoutARequiredFieldIsFoundByCheck() throws {
        let problems = try Self.check(
            Self.rule(
                "kick-off", event: "start", state: #"{"homeScore": {"var": "curr.home.score"}}"#,
                attributes: #"{"homeTeam": {"var": "curr.home.name"}}"#))
        #expect(
            problems == [
                #"2:1: rule kick-off: the start's content-state lacks required field "status": an activity starts from the start's patch alone"#
            ])
    }

    @Test func aWrongTypeIsFoundByCheck() throws {
        let problems = try Self.check(
            Self.rule("literal", state: #"{"homeScore": "one"}"#) + ",\n"
                + Self.rule("fact", state: #"{"clock": {"var": "curr.home.score"}}"#) + ",\n"
                + Self.rule("operator", state: #"{"homeScore": {"cat": ["a", "b"]}}"#) + ",\n"
                + Self.rule("fine", state: #"{"homeScore": {"+": [{"var": "curr.home.score"}, 1]}}"#))
        #expect(
            problems == [
                #"5:20: rule literal: content-state field "homeScore" is integer in the contract, but the rule gives it "one""#,
                #"9:20: rule fact: content-state field "clock" is string in the contract, but the rule gives it curr.home.score (an int fact)"#,
                #"13:20: rule operator: content-state field "homeScore" is integer in the contract, but the rule gives it text (cat)"#,
            ])
    }

    /// `exists` gives a boolean and `??` one of its arguments, as `and`/`or` do.
    @Test func communityOperatorsAreTypedByCheck() throws {
        let problems = try Self.check(
            Self.rule("exists", state: #"{"homeScore": {"exists": ["curr", "home", "score"]}}"#) + ",\n"
                + Self.rule(
                    "coalesce", state: #"{"homeScore": {"??": [{"cat": ["n", {"var": "entity.id"}]}, "none"]}}"#)
                + ",\n"
                + Self.rule("fine", state: #"{"homeScore": {"??": [{"var": "curr.home.score"}, 0]}}"#))
        #expect(
            problems == [
                #"5:20: rule exists: content-state field "homeScore" is integer in the contract, but the rule gives it a boolean (exists)"#,
                #"9:20: rule coalesce: content-state field "homeScore" is integer in the contract, but the rule gives it string (??)"#,
            ])
    }

    /// `format` always gives text and `round` a number, so each in a field of the other type is refused by
    /// the contract on every push: `check` says so.
    @Test func formatAndRoundAreTypedByCheck() throws {
        let problems = try Self.check(
            Self.rule("format", state: #"{"homeScore": {"format": [{"var": "curr.home.score"}, 0]}}"#) + ",\n"
                + Self.rule("round", state: #"{"status": {"round": [{"var": "curr.home.score"}]}}"#) + ",\n"
                + Self.rule("fine", state: #"{"clock": {"format": [{"var": "curr.home.score"}]}}"#))
        #expect(
            problems == [
                #"5:20: rule format: content-state field "homeScore" is integer in the contract, but the rule gives it text (format)"#,
                #"9:20: rule round: content-state field "status" is string in the contract, but the rule gives it a number (round)"#,
            ])
    }

    /// A misspelt field read back from the activity's state reads null forever (its condition always true or
    /// never): where the contract closes the content-state, `check` names it and the field meant.
    @Test func aMisspeltActivityStateFieldIsFoundByCheck() throws {
        let rule = """
            {"id": "comeback", "feed": "f", "event": "update",
             "when": {">": [{"var": "curr.home.score"}, {"var": "activity.state.homeScroe"}]},
             "activity": {"key": "m", "attributes-type": "MatchAttributes"},
             "content-state": {"homeScore": {"var": "curr.home.score"}}}
            """
        let fine = """
            {"id": "fine", "feed": "f", "event": "update",
             "when": {"!==": [{"var": "activity.state.status"}, {"var": "activity.delivered-state.status"}]},
             "activity": {"key": "m", "attributes-type": "MatchAttributes"},
             "content-state": {"status": {"var": "curr.status"}}}
            """
        let delivered = """
            {"id": "sent", "feed": "f", "event": "update",
             "when": {"!==": [{"var": "activity.delivered-state.stats"}, {"var": "curr.status"}]},
             "activity": {"key": "m", "attributes-type": "MatchAttributes"},
             "content-state": {"status": {"var": "curr.status"}}}
            """
        let problems = try Self.check(rule + ",\n" + fine + ",\n" + delivered)
        #expect(
            problems == [
                #"3:46: rule comeback: "activity.state.homeScroe": the contract's content-state has no homeScroe at activity.state (did you mean activity.state.homeScore?), so this reads null; it has clock, endsAt, homeScore, period, status"#,
                #"11:20: rule sent: "activity.delivered-state.stats": the contract's content-state has no stats at activity.delivered-state (did you mean activity.delivered-state.status?), so this reads null; it has clock, endsAt, homeScore, period, status"#,
            ])
    }

    /// A rule whose attributes type no contract describes, in a config that has contracts, would have none of
    /// its pushes checked: a warning, with the type meant.
    @Test func aRuleWithoutAContractAmongContractsIsAWarning() throws {
        let rule = """
            {"id": "typo", "feed": "f", "when": true, "event": "update",
             "activity": {"key": "m", "attributes-type": "MatchAtributes"},
             "content-state": {"status": "x"}}
            """
        let problems = try Self.check(rule)
        #expect(
            problems == [
                "2:1: warning: rule typo: no contract describes attributes type MatchAtributes (did you mean MatchAttributes?), so its pushes are not checked; contracts describe MatchAttributes"
            ])
    }

    /// A rule the contract check finds broken is out of the rule set: what runs is what `check` loaded.
    @Test func aRuleBrokenByItsContractIsLeftOutOfTheRuleSet() throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let contractPath = directory.appendingPathComponent("match.contract.json").path
        try Self.contract.write(toFile: contractPath, atomically: true, encoding: .utf8)
        let rulePath = directory.appendingPathComponent("match.rules.json").path
        let rules =
            Self.rule("typo", state: #"{"homeScroe": 1}"#) + ",\n" + Self.rule("fine", state: #"{"status": "x"}"#)
        try "{\"rules\": [\n\(rules)\n]}\n".write(toFile: rulePath, atomically: true, encoding: .utf8)
        let contract = try ContractLoader.load(path: contractPath, resolvedPath: contractPath).get()
        var set = RuleLoader(knownFeeds: ["f"]).load(paths: [rulePath])
        #expect(set.rules.map(\.id) == ["typo", "fine"])
        ContractCheck.apply(to: &set, contracts: ["MatchAttributes": contract], facts: [:])
        #expect(set.rules.map(\.id) == ["fine"])
        #expect(set.errors.count == 1)
    }

    @Test func anUnknownFieldIsFoundByCheck() throws {
        let problems = try Self.check(Self.rule("typo", state: #"{"homeScroe": {"var": "curr.home.score"}}"#))
        #expect(
            problems == [
                #"5:20: rule typo: content-state field "homeScroe" is not in the contract (did you mean "homeScore"?)"#
            ])
    }

    @Test func aDateFromSomethingElseThanAMomentIsFoundByCheck() throws {
        let problems = try Self.check(
            Self.rule("score-as-date", state: #"{"endsAt": {"var": "curr.home.score"}}"#) + ",\n"
                + Self.rule("text-as-date", state: #"{"endsAt": {"var": "curr.clock.display"}}"#) + ",\n"
                + Self.rule("moment", state: #"{"endsAt": {"+": [{"var": "curr.start"}, 5400]}}"#))
        #expect(
            problems == [
                #"5:20: rule score-as-date: content-state field "endsAt" is a date: give it a moment in UNIX seconds (a time fact, now), not curr.home.score (an int fact)"#,
                #"9:20: rule text-as-date: content-state field "endsAt" is a date: give it a moment in UNIX seconds (a time fact, now), not curr.clock.display (a string fact)"#,
            ])
    }

    @Test func removingARequiredFieldIsFoundByCheck() throws {
        let problems = try Self.check(
            Self.rule("null", state: #"{"status": null}"#) + ",\n"
                + Self.rule("optional-fact", state: #"{"homeScore": {"var": "curr.period"}}"#))
        #expect(
            problems == [
                #"5:20: rule null: content-state field "status" is required by the contract: null would remove it"#,
                #"9:20: rule optional-fact: content-state field "homeScore" is required by the contract, but curr.period (an int fact) may be null, which removes it"#,
            ])
    }

    // MARK: run time

    static func loaded() throws -> ContentContract {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("c.json").path
        try contract.write(toFile: path, atomically: true, encoding: .utf8)
        return try ContractLoader.load(path: path, resolvedPath: path).get()
    }

    func breach(_ result: Result<JSONValue, ContractBreach>) -> String? {
        if case .failure(let breach) = result { return breach.description }
        return nil
    }

    @Test func aMissingRequiredFieldIsRefusedAtRunTime() throws {
        let contract = try Self.loaded()
        #expect(
            breach(contract.conformState(["homeScore": 1])) == #"content-state: missing required key "status""#)
        #expect(breach(contract.conformAttributes([:])) == #"attributes: missing required key "homeTeam""#)
    }

    @Test func aWrongTypeIsRefusedAtRunTime() throws {
        let contract = try Self.loaded()
        #expect(
            breach(contract.conformState(["homeScore": "1", "status": "live"]))
                == #"content-state.homeScore: "homeScore" must be an integer, not a string"#)
    }

    @Test func anUnknownFieldIsRefusedAtRunTime() throws {
        let contract = try Self.loaded()
        let message = breach(contract.conformState(["homeScore": 1, "status": "live", "homeScroe": 2]))
        #expect(message?.hasPrefix(#"content-state.homeScroe: unknown key "homeScroe""#) == true, "\(message ?? "")")
    }

    /// Rules write UNIX seconds; the app's `Date` counts from 2001: 2026-07-03T18:00:00Z is 1783101600 in
    /// UNIX seconds and 804794400 after 2001. A value in milliseconds (or already counted from 2001) is not
    /// a moment in UNIX seconds and is refused rather than sent 31 years off.
    @Test func datesAreWrittenInTheContractsEpochAndAWrongEpochIsRefused() throws {
        let contract = try Self.loaded()
        let state: JSONValue = ["homeScore": 0, "status": "live", "endsAt": 1_783_101_600]
        #expect(try contract.conformState(state).get()["endsAt"] == 804_794_400)
        #expect(
            try contract.conformAttributes(["homeTeam": "AUS", "kickOff": 1_783_101_600]).get()["kickOff"]
                == 804_794_400)
        for wrong: JSONValue in [1_783_101_600_000, 804_794_400] {
            var bad = state
            if case .object(var o) = bad {
                o["endsAt"] = wrong
                bad = .object(o)
            }
            let message = breach(contract.conformState(bad))
            #expect(
                message?.contains("content-state.endsAt: \(wrong.jsonString()) is not a moment in UNIX seconds") == true
            )
        }
        var encodings: [String: JSONValue] = [:]
        for encoding in ContentContract.DateEncoding.allCases {
            var other = contract
            other.dateEncoding = encoding
            if encoding == .iso8601 {
                // The schema must say string for ISO 8601; the loader checks that, so build the part here.
                other.contentState.schema = try JSONSchema(["type": "object"])
            }
            encodings[encoding.rawValue] = try other.conformState(state).get()["endsAt"]
        }
        #expect(
            encodings == [
                "seconds-since-2001": 804_794_400, "seconds-since-1970": 1_783_101_600,
                "milliseconds-since-1970": 1_783_101_600_000, "iso8601": "2026-07-03T18:00:00Z",
            ])
    }

    // MARK: the contract file itself

    @Test func aWrongContractFileIsDiagnosedWhereItIsWrong() throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("c.json").path
        try """
        {
          "attributes-type": "MatchAttributes",
          "date-encoding": "unix",
          "content-state": {
            "type": "object",
            "properties": {"endsAt": {"type": "string", "x-date": true}, "n": {"type": "integr"}}
          },
          "atributes": {}
        }
        """.write(toFile: path, atomically: true, encoding: .utf8)
        guard case .failure(let problems) = ContractLoader.load(path: path, resolvedPath: path) else {
            Issue.record("a broken contract loaded")
            return
        }
        let messages = problems.items.map { "\($0.location.map { "\($0)" } ?? "-"): \($0.message)" }
        #expect(messages.contains { $0.hasPrefix(#"3:20: "date-encoding" must be one of"#) }, "\(messages)")
        #expect(
            messages.contains { $0.hasPrefix(#"8:3: unknown key "atributes" (did you mean "attributes"?)"#) },
            "\(messages)")
        #expect(messages.contains { $0.contains("content-state schema") && $0.contains("integr") }, "\(messages)")
        // What can be made of it: the keyword that does not compile left out, the rest kept for `check`.
        let (partial, again) = ContractLoader.read(path: path, resolvedPath: path)
        #expect(again.count == problems.items.count)
        #expect(partial?.contentState.written["properties"]?["n"] == .emptyObject)
        #expect(partial?.contentState.written["properties"]?["endsAt"]?["type"] == "string")
    }

    @Test func aDateFieldMustHaveTheTypeItsEncodingWrites() throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("c.json").path
        try """
        {"attributes-type": "T", "content-state": {"properties": {"endsAt": {"type": "string", "x-date": true}}}}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        guard case .failure(let problems) = ContractLoader.load(path: path, resolvedPath: path) else {
            Issue.record("a date field typed as a string loaded with a numeric encoding")
            return
        }
        #expect(
            problems.items.map(\.message) == [
                #"endsAt is a date written as seconds-since-2001: its type must be "number" or "integer", not "string""#
            ])
    }
}
