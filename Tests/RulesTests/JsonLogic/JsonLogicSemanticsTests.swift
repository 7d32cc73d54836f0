import Foundation
import LiveRelayCore
import Rules
import Testing

@Suite struct JsonLogicSemanticsTests {
    @Test(
        arguments: [
            (JSONValue.null, false), (false, false), (true, true), (0, false), (-0.0, false), (0.0, false),
            (.double(.nan), false), (.decimal(0), false), (.decimal(Decimal(string: "0.01")!), true), (1, true),
            (-1, true), ("", false), ("0", true), ("false", true), ([], false), ([0], true), (.emptyObject, true),
        ] as [(JSONValue, Bool)])
    func truthiness(value: JSONValue, truthy: Bool) {
        #expect(value.isTruthy == truthy)
    }

    private let match = try! JSONParser.parse(
        """
        {"curr": {"state": "in", "home": {"score": 2, "name": "Lions"}, "away": {"score": 1}},
         "prev": {"state": "in", "home": {"score": 1}, "away": {"score": 1}},
         "tags": ["derby", "final"]}
        """)

    @Test(
        arguments: [
            (#"{"var":"curr.home.score"}"#, JSONValue.int(2)),
            (#"{"var":"curr.home.name"}"#, "Lions"),
            (#"{"var":"curr.home"}"#, ["score": 2, "name": "Lions"]),
            (#"{"var":"curr.home.missing"}"#, .null),
            (#"{"var":["curr.home.missing", 0]}"#, 0),
            (#"{"var":"curr.state.x"}"#, .null),
            (#"{"var":"tags.1"}"#, "final"),
            (#"{"var":"tags.length"}"#, 2),
            (#"{"var":"tags.01"}"#, .null),
            (#"{"var":"curr.home.name.0"}"#, "L"),
            (#"{"var":["tags.5", "none"]}"#, "none"),
            (#"{"var":{"cat":["curr.", "away", ".score"]}}"#, 1),
        ] as [(String, JSONValue)])
    func varReadsNestedData(rule: String, expected: JSONValue) throws {
        let result = try JsonLogicExpression.compile(JSONParser.parse(rule)).evaluate(match)
        #expect(result == expected)
    }

    @Test func varDefaultIsNotUsedForAFoundNull() throws {
        #expect(try evaluate(#"{"var":["a", 9]}"#, #"{"a":null}"#) == .null)
        #expect(try evaluate(#"{"var":["a.b", 9]}"#, #"{"a":null}"#) == 9)
    }

    @Test func scoreChangeCondition() throws {
        let rule = try JSONParser.parse(
            #"{"and":[{">":[{"var":"curr.home.score"},{"var":"prev.home.score"}]},{"==":[{"var":"curr.state"},"in"]}]}"#
        )
        let expression = try JsonLogicExpression.compile(rule)
        #expect(!expression.isConstant)
        #expect(try expression.evaluate(match) == true)
        #expect(try expression.evaluate(["curr": match["prev"]!, "prev": match["prev"]!]) == false)
        #expect(try expression.evaluate(.null) == false)
    }

    @Test(arguments: [
        (#"{"==":[0,""]}"#, true), (#"{"==":[null,null]}"#, true), (#"{"==":[false,"0"]}"#, true),
        (#"{"==":[true,"1"]}"#, true), (#"{"==":[1,true]}"#, true), (#"{"==":["abc","abc"]}"#, true),
        (#"{"===":[[1,2],[1,2]]}"#, true), (#"{"===":[{"a":1,"b":2},{"b":2,"a":1}]}"#, true),
        (#"{"===":[[1],{"a":1,"b":2}]}"#, false), (#"{"!==":[[1],[2]]}"#, true),
        (#"{"===":[1,1.0]}"#, true), (#"{"===":[null,0]}"#, false), (#"{"===":[1,"1"]}"#, false),
        (#"{"<":["a","b"]}"#, true), (#"{"<":["10","9"]}"#, true), (#"{"<":[10,"9"]}"#, false),
        (#"{"<":[null,1]}"#, true), (#"{"<":[null,"a"]}"#, false), (#"{">=":[null,"a"]}"#, false),
        (#"{">":[3,2,1]}"#, true), (#"{">":[3,2,3]}"#, false), (#"{"<=":[1,1,1]}"#, true),
        (#"{"==":[2,2,2]}"#, true), (#"{"!=":[1,2,1]}"#, true), (#"{"!==":[1,1,2]}"#, false),
    ])
    func looseEqualityAndComparisonCoerceLikeJavaScript(rule: String, expected: Bool) throws {
        #expect(try evaluate(rule) == .bool(expected))
    }

    /// As the community suites have it, `null` is loosely equal to 0 and `false` (it reads as the number 0)
    /// and to `null`, but not to a text; "is this fact missing" is `{"!==": [fact, null]}`, true for a 0.
    @Test(arguments: [
        (#"{"==":[null,0]}"#, true), (#"{"==":[0,null]}"#, true), (#"{"!=":[0,null]}"#, false),
        (#"{"!=":[null,false]}"#, false), (#"{"==":[null,""]}"#, false), (#"{"==":[null,"0"]}"#, false),
        (#"{"==":[null,1]}"#, false), (#"{"!==":[0,null]}"#, true), (#"{"===":[null,null]}"#, true),
    ])
    func nullIsLooselyEqualToZero(rule: String, expected: Bool) throws {
        #expect(try evaluate(rule) == .bool(expected))
    }

    /// A comparison that must read a side as a number raises `{"type": "NaN"}` when it is not one.
    @Test(arguments: [
        #"{"==":[true,"true"]}"#, #"{"==":[[1],1]}"#, #"{"==":[[],false]}"#, #"{"!=":[1,{}]}"#,
        #"{"==":[[1,2],[1,2]]}"#, #"{"==":[null,[]]}"#, #"{"!=":[{},{}]}"#,
        #"{">":["a",1]}"#, #"{"<=":["a",1]}"#, #"{"<":[[1],[2]]}"#, #"{"<":[1,2,"x"]}"#,
    ])
    func comparingWhatIsNotANumberRaises(rule: String) throws {
        #expect(throws: JsonLogicEvaluationError.raised(["type": "NaN"])) { try evaluate(rule) }
    }

    /// Chained comparisons stop at the first pair that fails: what comes after is never evaluated.
    @Test func chainedComparisonsAreLazy() throws {
        #expect(try evaluate(#"{"<":[3,2,{"throw":"late"}]}"#) == false)
        #expect(try evaluate(#"{"===":[1,2,{"throw":"late"}]}"#) == false)
        #expect(throws: JsonLogicEvaluationError.raised(["type": "late"])) {
            try evaluate(#"{"<":[1,2,{"throw":"late"}]}"#)
        }
    }

    @Test(
        arguments: [
            (#"{"in":[1,"a1"]}"#, JSONValue.bool(true)), (#"{"in":["","abc"]}"#, true), (#"{"in":["a",""]}"#, false),
            (#"{"in":[1,["1"]]}"#, false), (#"{"in":[1,[1.0]]}"#, true), (#"{"in":["a",null]}"#, false),
            (#"{"in":["é","café"]}"#, true),
            (#"{"substr":["jsonlogic"]}"#, "jsonlogic"), (#"{"substr":["jsonlogic", 20]}"#, ""),
            (#"{"substr":["jsonlogic", -20, 2]}"#, "js"), (#"{"substr":["jsonlogic", 2, -20]}"#, ""),
            (#"{"substr":[12345, 1, 2]}"#, "23"), (#"{"substr":["héllo", 1, 1]}"#, "é"),
            (#"{"merge":[[1],2,[[3]]]}"#, [1, 2, [3]]), (#"{"log":"x"}"#, "x"), (#"{"log":[[1,2]]}"#, [1, 2]),
            (#"{"!":[]}"#, true), (#"{"!!":[[0]]}"#, true),
            (#"{"and":[]}"#, false), (#"{"or":[]}"#, false), (#"{"or":[0,""]}"#, ""), (#"{"*":["1"]}"#, 1),
            (#"{"map":[[1,2],{"+":[{"var":""},{"var":""}]}]}"#, [2, 4]),
            (#"{"reduce":[[1,2,3],{"+":[{"var":"current"},{"var":"accumulator"}]},0]}"#, 6),
            (#"{"reduce":[{"var":"x"},{"var":"current"}]}"#, .null),
            (#"{"filter":[{"var":"x"}]}"#, []), (#"{"missing":["a","b.c"]}"#, ["a", "b.c"]),
        ] as [(String, JSONValue)])
    func otherOperatorsFollowJsonLogic(rule: String, expected: JSONValue) throws {
        #expect(try evaluate(rule, "null") == expected)
    }

    @Test func missingSomeWithComputedArguments() throws {
        let rule = #"{"missing_some":[{"var":"need"}, {"var":"keys"}]}"#
        #expect(try evaluate(rule, #"{"need":1,"keys":["a","b"],"a":1}"#) == [])
        #expect(try evaluate(rule, #"{"need":2,"keys":["a","b"],"a":1}"#) == ["b"])
    }

    @Test(arguments: [
        (#"{"+":[1,2]}"#, true), (#"{"map":[[1,2],{"var":""}]}"#, true), (#"[1,{"cat":["a","b"]}]"#, true),
        (#"{"if":[true,{"var":"a"},2]}"#, false), (#"{"missing":"a"}"#, false), (#"{"var":""}"#, false),
        (#"{"a":{"var":"x"},"b":1}"#, true),
    ])
    func constantsAreFolded(rule: String, constant: Bool) throws {
        #expect(try JsonLogicExpression.compile(JSONParser.parse(rule)).isConstant == constant)
    }
}
