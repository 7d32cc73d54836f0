import Foundation
import LiveRelayCore
import Rules
import Testing

/// A rule is code: one that doubles a value forty times, nests it without end or loops over loops must be an
/// error for that rule, never an allocation that kills the process.
@Suite struct JsonLogicLimitTests {
    /// Forty items, as the hostile rule used: enough to ask for terabytes by doubling.
    static let forty = JSONValue.array((0..<40).map { .int($0) })

    static func compile(_ text: String) throws -> JsonLogicExpression {
        try JsonLogicExpression.compile(JSONParser.parse(text))
    }

    static func limitError(_ text: String, data: JSONValue, limits: JsonLogicLimits = .standard) throws
        -> JsonLogicLimitError?
    {
        let expression = try compile(text)
        do {
            _ = try expression.evaluate(data, limits: limits)
            return nil
        } catch {
            return error.limit
        }
    }

    @Test func aReduceThatDoublesAStringIsAnError() throws {
        let error = try Self.limitError(
            #"{"reduce": [{"var": "items"}, {"cat": [{"var": "accumulator"}, {"var": "accumulator"}]}, "ab"]}"#,
            data: ["items": Self.forty])
        #expect(error == JsonLogicLimitError(kind: .valueSize, limit: 1_000_000))
    }

    @Test func aReduceThatDoublesAnArrayIsAnError() throws {
        let error = try Self.limitError(
            #"{"reduce": [{"var": "items"}, {"merge": [{"var": "accumulator"}, {"var": "accumulator"}]}, [1]]}"#,
            data: ["items": Self.forty])
        #expect(error != nil)
    }

    /// `[acc, acc]` doubles the value's size while sharing its parts, so memory stays small but anything that
    /// reads the value (a comparison, `cat`, the push's JSON) would walk 2^40 items.
    @Test func aValueThatSharesItsPartsIsMeasuredWithoutWalkingAllOfIt() throws {
        let error = try Self.limitError(
            #"{"reduce": [{"var": "items"}, [{"var": "accumulator"}, {"var": "accumulator"}], 1]}"#,
            data: ["items": Self.forty])
        #expect(error?.kind == .valueSize)
    }

    @Test func aValueNestedDeeperThanTheParserAllowsIsAnError() throws {
        let items = JSONValue.array((0..<2_000).map { .int($0) })
        let error = try Self.limitError(
            #"{"reduce": [{"var": "items"}, [{"var": "accumulator"}], 0]}"#, data: ["items": items])
        #expect(error == JsonLogicLimitError(kind: .depth, limit: 512))
    }

    @Test func loopsInsideLoopsRunOutOfSteps() throws {
        // Items of items of items (shared, so the data is small): 200 × 200 × 200 bodies of three nodes each,
        // none ever true, is 24 million steps; a tenth of the standard limit keeps the test short.
        let inner = JSONValue.array((0..<200).map { .int($0) })
        let middle = JSONValue.array(Array(repeating: inner, count: 200))
        let error = try Self.limitError(
            #"{"some": [{"var": "items"}, {"some": [{"var": ""}, {"some": [{"var": ""}, {"<": [{"var": ""}, 0]}]}]}]}"#,
            data: ["items": .array(Array(repeating: middle, count: 200))],
            limits: JsonLogicLimits(steps: 1_000_000, valueSize: 1_000_000, depth: 512))
        #expect(error == JsonLogicLimitError(kind: .steps, limit: 1_000_000))
    }

    @Test func ordinaryRulesStayFarInsideTheLimits() throws {
        let items = JSONValue.array((0..<1_000).map { .int($0) })
        let sum = try Self.compile(
            #"{"reduce": [{"var": "items"}, {"+": [{"var": "current"}, {"var": "accumulator"}]}, 0]}"#)
        #expect(try sum.evaluate(["items": items]) == .int(499_500))
        let text = try Self.compile(#"{"cat": ["Goal! ", {"var": "team"}, " (", {"var": "minute"}, "')"]}"#)
        #expect(try text.evaluate(["team": "Egypt", "minute": 44]) == "Goal! Egypt (44')")
    }

    @Test func tighterLimitsAreHonoured() throws {
        let expression = try Self.compile(#"{"map": [{"var": "items"}, {"*": [{"var": ""}, 2]}]}"#)
        let data: JSONValue = ["items": .array((0..<100).map { .int($0) })]
        #expect(throws: JsonLogicEvaluationError.limit(JsonLogicLimitError(kind: .steps, limit: 50))) {
            try expression.evaluate(data, limits: JsonLogicLimits(steps: 50, valueSize: 1_000, depth: 8))
        }
    }

    /// A rule that reads no data is folded when it is loaded: past the limits, it is refused with where it is,
    /// in `check`, at start-up and on a reload (so the running rules stay).
    @Test func aConstantThatCannotBeComputedIsRefusedWhereItIsWritten() throws {
        #expect(throws: JsonLogicError.self) {
            try Self.compile(
                #"{"reduce": [[\#((0..<40).map(String.init).joined(separator: ","))], {"cat": [{"var": "accumulator"}, {"var": "accumulator"}]}, "ab"]}"#
            )
        }
        let text = """
            {"rules": [
              {"id": "fine", "feed": "f", "when": true, "activity": {"key": "a", "attributes-type": "T"}, "event": "update"},
              {"id": "bomb", "feed": "f", "when": true, "activity": {"key": "b", "attributes-type": "T"}, "event": "update",
               "content-state": {"x": {"reduce": [[\((0..<40).map(String.init).joined(separator: ","))], {"cat": [{"var": "accumulator"}, {"var": "accumulator"}]}, "ab"]}}}
            ]}
            """
        let (rules, diagnostics) = RuleLoader().load(file: "bomb.rules.json", data: Data(text.utf8))
        #expect(rules.map(\.id) == ["fine"])
        #expect(diagnostics.count == 1)
        let message = diagnostics.first?.description ?? ""
        #expect(message.hasPrefix("bomb.rules.json:4:"), "\(message)")
        #expect(
            message.contains("rule bomb") && message.contains("builds a value larger than 1000000 bytes"), "\(message)")
    }

    /// At run time the rule that goes past a limit gets an error naming it and its field; the other rules of
    /// the same change still fire.
    @Test func atRunTimeOnlyTheRuleOverTheLimitFails() throws {
        let text = """
            {"rules": [
              {"id": "bomb", "feed": "f", "when": true, "activity": {"key": "b", "attributes-type": "T"}, "event": "update",
               "content-state": {"x": {"reduce": [{"var": "curr.items"}, {"cat": [{"var": "accumulator"}, {"var": "accumulator"}]}, "ab"]}}},
              {"id": "fine", "feed": "f", "when": true, "activity": {"key": "a", "attributes-type": "T"}, "event": "update",
               "content-state": {"n": {"var": "curr.n"}}}
            ]}
            """
        let (rules, diagnostics) = RuleLoader().load(file: "r.json", data: Data(text.utf8))
        #expect(diagnostics.isEmpty)
        let current = Facts(["items": Self.forty, "n": 7])
        let result = RuleEngine(rules: rules).evaluate(
            FeedChange(entity: EntityKey(feed: "f", id: "1"), previous: nil, current: current, changedPaths: ["n"]),
            now: 0)
        #expect(result.intents.map(\.ruleID) == ["fine"])
        #expect(result.intents.first?.patch == ["n": 7])
        #expect(
            result.errors.map(\.message) == ["content-state.x builds a value larger than 1000000 bytes"])
    }
}
