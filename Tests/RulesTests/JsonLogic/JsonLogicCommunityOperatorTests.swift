import Foundation
import LiveRelayCore
import Rules
import Testing

/// The operators of the JsonLogic community beyond json-logic-js: `val`, `exists`, `??`, `throw`, `try` and
/// `preserve`, and scopes (`{"val": [[n], …]}`).
@Suite struct JsonLogicCommunityOperatorTests {
    private let match = #"{"curr": {"home": {"score": 0, "name": "Lions"}, "a.b": 7, "tags": ["x", "y"]}}"#

    @Test(
        arguments: [
            (#"{"val": ["curr", "home", "score"]}"#, JSONValue.int(0)),
            (#"{"val": ["curr", "a.b"]}"#, 7),  // a key with a dot is one key
            (#"{"val": "curr.home"}"#, .null),  // and a text is never split at dots
            (#"{"val": ["curr", "tags", 1]}"#, "y"),
            (#"{"val": ["curr", "tags", "length"]}"#, 2),
            (#"{"val": ["curr", "missing", "deeper"]}"#, .null),
            (#"{"val": []}"#, ["curr": ["home": ["score": 0, "name": "Lions"], "a.b": 7, "tags": ["x", "y"]]]),
            (
                #"{"val": {"cat": ["cu", "rr"]}}"#,
                ["home": ["score": 0, "name": "Lions"], "a.b": 7, "tags": ["x", "y"]]
            ),
            (#"{"val": {"merge": [["curr"], ["home", "name"]]}}"#, "Lions"),
        ] as [(String, JSONValue)])
    func valReadsKeysAsWritten(rule: String, expected: JSONValue) throws {
        #expect(try evaluate(rule, match) == expected)
    }

    @Test func valWithAFixedPathIsAsFastAsVar() throws {
        // A constant path that reads the data itself compiles to the same lookup as var (memo included).
        let val = try JsonLogicExpression.compile(JSONParser.parse(#"{"val": ["curr", "home", "score"]}"#))
        let memo = JsonLogicMemo()
        let data = try JSONParser.parse(match)
        #expect(try val.evaluate(data, memo: memo) == 0)
        #expect(try val.evaluate(data, memo: memo) == 0)
        // The memo tells the val path ["a.b"] from the var path "a.b" (two steps).
        let dotted = try JsonLogicExpression.compile(JSONParser.parse(#"{"val": ["curr", "a.b"]}"#))
        let split = try JsonLogicExpression.compile(JSONParser.parse(#"{"var": "curr.a.b"}"#))
        #expect(try dotted.evaluate(data, memo: memo) == 7)
        #expect(try split.evaluate(data, memo: memo) == .null)
    }

    @Test(arguments: [
        (#"{"exists": ["curr", "home", "score"]}"#, true), (#"{"exists": ["curr", "home", "clock"]}"#, false),
        (#"{"exists": "curr"}"#, true), (#"{"exists": ["curr", "tags", 2]}"#, false),
        (#"{"exists": ["prev"]}"#, false), (#"{"exists": []}"#, true),
    ])
    func existsTellsAMissingKeyFromANullOne(rule: String, expected: Bool) throws {
        #expect(try evaluate(rule, match) == .bool(expected))
        #expect(try evaluate(#"{"exists": "a"}"#, #"{"a": null}"#) == true)
    }

    @Test func coalesceTakesTheFirstValueThatIsNotNull() throws {
        #expect(try evaluate(#"{"??": [{"var": "x"}, 0, 5]}"#) == 0)
        #expect(try evaluate(#"{"??": [{"var": "x"}, false]}"#) == false)
        #expect(try evaluate(#"{"??": []}"#) == .null)
        // Lazy: what follows the first value that is not null is never evaluated.
        #expect(try evaluate(#"{"??": [1, {"throw": "late"}]}"#) == 1)
    }

    @Test func throwRaisesAnErrorObject() throws {
        #expect(throws: JsonLogicEvaluationError.raised(["type": "offside"])) {
            try evaluate(#"{"throw": "offside"}"#)
        }
        #expect(throws: JsonLogicEvaluationError.raised(["type": "late", "minute": 91])) {
            try evaluate(#"{"throw": {"val": "e"}}"#, #"{"e": {"type": "late", "minute": 91}}"#)
        }
    }

    @Test func tryCatchesWithTheErrorAsData() throws {
        #expect(try evaluate(#"{"try": [{"/": [1, {"var": "n"}]}, 0]}"#, #"{"n": 0}"#) == 0)
        #expect(try evaluate(#"{"try": [{"/": [1, {"var": "n"}]}, 0]}"#, #"{"n": 4}"#) == 0.25)
        #expect(
            try evaluate(#"{"try": [{"throw": "a"}, {"throw": "b"}, {"cat": ["caught ", {"val": "type"}]}]}"#)
                == "caught b")
        // Past the data of the error, two levels up is the data around the try.
        #expect(try evaluate(#"{"try": [{"throw": "a"}, {"val": [[2], "fallback"]}]}"#, #"{"fallback": 9}"#) == 9)
        // An error raised deep inside (an iteration body) unwinds to the try.
        #expect(try evaluate(#"{"try": [{"map": [[1, 0], {"/": [1, {"var": ""}]}]}, "none"]}"#) == "none")
        #expect(throws: JsonLogicEvaluationError.raised(["type": "b"])) {
            try evaluate(#"{"try": [{"throw": "a"}, {"throw": "b"}]}"#)
        }
    }

    /// A limit is not an error a rule may catch: a `try` around a rule that runs out of steps still fails.
    @Test func tryNeverCatchesALimit() throws {
        let expression = try JsonLogicExpression.compile(
            JSONParser.parse(#"{"try": [{"map": [{"var": "items"}, {"*": [{"var": ""}, 2]}]}, "caught"]}"#))
        let data: JSONValue = ["items": .array((0..<100).map { .int($0) })]
        #expect(throws: JsonLogicEvaluationError.limit(JsonLogicLimitError(kind: .steps, limit: 50))) {
            try expression.evaluate(data, limits: JsonLogicLimits(steps: 50, valueSize: 1_000, depth: 8))
        }
    }

    /// The steps spent before an error was raised stay spent after a `try` caught it: each alternative
    /// alone stays within 200 steps, both together do not.
    @Test func aCaughtErrorKeepsTheStepsSpent() throws {
        let expression = try JsonLogicExpression.compile(
            JSONParser.parse(
                #"{"try": [{"+": [{"reduce": [{"var": "items"}, {"+": [{"var": "current"}, 1]}, 0]}, "x"]}, {"map": [{"val": [[2], "items"]}, 1]}]}"#
            ))
        let data: JSONValue = ["items": .array((0..<60).map { .int($0) })]
        let limits = JsonLogicLimits(steps: 200, valueSize: 1_000, depth: 8)
        #expect(throws: JsonLogicEvaluationError.limit(JsonLogicLimitError(kind: .steps, limit: 200))) {
            try expression.evaluate(data, limits: limits)
        }
        #expect(try expression.evaluate(data) == .array(Array(repeating: 1, count: 60)))
        let first = try JsonLogicExpression.compile(
            JSONParser.parse(#"{"+": [{"reduce": [{"var": "items"}, {"+": [{"var": "current"}, 1]}, 0]}, "x"]}"#))
        #expect(throws: JsonLogicEvaluationError.raised(["type": "NaN"])) { try first.evaluate(data, limits: limits) }
        let second = try JsonLogicExpression.compile(JSONParser.parse(#"{"map": [{"var": "items"}, 1]}"#))
        #expect(try second.evaluate(data, limits: limits) == .array(Array(repeating: 1, count: 60)))
    }

    @Test func preserveKeepsItsArgumentAsData() throws {
        #expect(try evaluate(#"{"preserve": {"var": "x"}}"#, #"{"x": 1}"#) == ["var": "x"])
        #expect(try evaluate(#"{"preserve": [1, {"+": [1, 1]}]}"#) == [1, ["+": [1, 1]]])
        #expect(try evaluate(#"{"+": {"preserve": [7, 8]}}"#) == 15)
    }

    /// In an iteration body, one level up is the iteration (its `index`), two levels up the data around it.
    @Test func iterationBodiesClimbToTheirScopes() throws {
        #expect(try evaluate(#"{"map": [[10, 20], {"+": [{"val": []}, {"val": [[1], "index"]}]}]}"#) == [10, 21])
        let nested = #"{"map": [["a"], {"map": [[1, 2], {"+": [{"val": []}, {"val": [[4], "add"]}]}]}]}"#
        #expect(try evaluate(nested, #"{"add": 100}"#) == [[101, 102]])
        #expect(
            try evaluate(
                #"{"filter": [{"var": "xs"}, {">": [{"val": []}, {"val": [[2], "min"]}]}]}"#,
                #"{"xs": [1, 5, 9], "min": 4}"#)
                == [5, 9])
        #expect(
            try evaluate(
                #"{"reduce": [[1, 2], {"+": [{"var": "accumulator"}, {"val": [[2], "k"]}]}, 0]}"#, #"{"k": 3}"#)
                == 6)
        #expect(try evaluate(#"{"all": [[1, 2], {"exists": [[1], "index"]}]}"#) == true)
        // Outside any iteration there is nothing to climb to.
        #expect(try evaluate(#"{"val": [[1], "index"]}"#) == .null)
    }

    /// An iteration whose source is constant is folded when it is loaded, unless its body climbs out to the
    /// data around it.
    @Test func aClimbingBodyIsNotFolded() throws {
        let climbing = try JsonLogicExpression.compile(
            JSONParser.parse(#"{"map": [[1, 2], {"+": [{"val": []}, {"val": [[2], "k"]}]}]}"#))
        #expect(!climbing.isConstant)
        #expect(try climbing.evaluate(["k": 10]) == [11, 12])
        let plain = try JsonLogicExpression.compile(JSONParser.parse(#"{"map": [[1, 2], {"val": []}]}"#))
        #expect(plain.isConstant)
    }

    /// The scopes an iteration pushed are gone once an error raised in its body is caught: from the `try`'s
    /// fallback, three levels up is the outer iteration, not the inner one that raised.
    @Test func scopesUnwindWithACaughtError() throws {
        let rule = """
            {"map": [["a", "b"], {"try": [{"map": [[1, 2, 3], {"throw": {"val": [[1], "index"]}}]}, {"val": [[3], "index"]}]}]}
            """
        #expect(try evaluate(rule) == [0, 1])
    }
}
