import LiveRelayCore
import Rules
import Testing

@Suite struct JsonLogicCompileErrorTests {
    private func compileError(_ rule: String) throws -> JsonLogicError? {
        let value = try JSONParser.parse(rule)
        do {
            _ = try JsonLogicExpression.compile(value)
            return nil
        } catch {
            return error
        }
    }

    @Test func unknownOperatorNestedInAndIsReportedAtItsArgument() throws {
        let error = try #require(try compileError(#"{"and":[true,{"foo":[1]}]}"#))
        #expect(error.pointer.description == "/and/1")
        #expect(error.message == #"unknown operator "foo""#)
        #expect(error.code == .unknownOperator)
        #expect(error.description == #"/and/1: unknown operator "foo""#)
    }

    @Test(arguments: [
        (#"{"foo":1}"#, "", #"unknown operator "foo""#),
        (#"{"!":{"bar":2}}"#, "/!", #"unknown operator "bar""#),
        (#"[1,{"if":[{"var":"a"},{"baz":[]}]}]"#, "/1/if/1", #"unknown operator "baz""#),
        (#"{"map":[[1],{"x/y":1}]}"#, "/map/1", #"unknown operator "x/y""#),
        (#"{"%":[1]}"#, "/%", #"operator "%" takes at least 2 arguments"#),
        (#"{"and":[true,{"-":[]}]}"#, "/and/1/-", #"operator "-" takes at least 1 argument"#),
        (#"{"<":5}"#, "/<", #"operator "<" takes a list of arguments"#),
        (#"{"==":[1]}"#, "/==", #"operator "==" takes at least 2 arguments"#),
        (#"{"if":"apple"}"#, "/if", #"operator "if" takes a list of arguments"#),
        (#"{"or":{"preserve":[true]}}"#, "/or", #"operator "or" takes a list of arguments"#),
        (#"{"map":[null,{"var":""}]}"#, "/map/0", #"operator "map" iterates over an array, not null"#),
        (#"{"all":[5,true]}"#, "/all/0", #"operator "all" iterates over an array, not integer"#),
        (
            #"{"filter":[{"var":"x"},null]}"#, "/filter/1",
            #"operator "filter" needs an expression to apply to each item, not null"#
        ),
        (#"{"try":[]}"#, "/try", #"operator "try" takes at least 1 argument"#),
        (#"{"max":[]}"#, "/max", #"operator "max" takes at least 1 argument"#),
        (
            #"{"missing_some":[1]}"#, "/missing_some",
            #"operator "missing_some" takes 2 arguments: a count and a list of keys"#
        ),
    ])
    func errorsNameTheOffendingValue(rule: String, pointer: String, message: String) throws {
        let error = try #require(try compileError(rule))
        #expect(error.pointer == (try JSONPointer(pointer)))
        #expect(error.message == message)
    }

    @Test(arguments: [
        (#"{"if":"apple"}"#, JsonLogicError.Code.invalidArguments), (#"{"map":[null,{"var":""}]}"#, .invalidArguments),
        (#"{"%":[1]}"#, .missingArgument),
    ])
    func argumentErrorsHaveTheirCode(rule: String, code: JsonLogicError.Code) throws {
        #expect(try compileError(rule)?.code == code)
    }

    @Test func pointerTokensAreEscaped() throws {
        let error = try #require(try compileError(#"{"map":[[1],{"x/y":1}]}"#))
        #expect(error.description == #"/map/1: unknown operator "x/y""#)
    }

    @Test func rootErrorDescriptionIsTheMessage() throws {
        let error = try #require(try compileError(#"{"foo":1}"#))
        #expect(error.description == #"unknown operator "foo""#)
    }

    @Test(arguments: [
        #"{"a":{"foo":1},"b":2}"#,  // several keys: data, not a call
        #"{}"#,
        #"{"if":[]}"#,  // json-logic-js answers null, so this is not an error
        #"{"var":[]}"#,
        #"{"*":[]}"#,  // 1, the product of nothing
        #"{"all":[{"var":"x"},null]}"#,  // false: a null predicate is falsy
        #"{"/":{"preserve":[]}}"#,  // a computed argument list: raises when evaluated
        #"{"throw":"late"}"#,  // raises when evaluated, where a try may catch it
    ])
    func acceptsWhatJsonLogicAccepts(rule: String) throws {
        #expect(try compileError(rule) == nil)
    }

    @Test func multiKeyObjectsArePassedThroughUnevaluated() throws {
        #expect(try evaluate(#"{"a":{"var":"x"},"b":2}"#, #"{"x":1}"#) == ["a": ["var": "x"], "b": 2])
    }

    @Test func knownOperatorsIsTheJsonLogicSet() {
        let expected: Set<String> = [
            "var", "missing", "missing_some", "if", "?:", "==", "===", "!=", "!==", "!", "!!", "or", "and",
            ">", ">=", "<", "<=", "max", "min", "+", "-", "*", "/", "%", "map", "reduce", "filter", "all",
            "none", "some", "merge", "in", "cat", "substr", "log",
            // The JsonLogic community's.
            "val", "exists", "??", "throw", "try", "preserve",
            // LiveRelay's own, for numbers people read.
            "round", "format",
        ]
        #expect(JsonLogicExpression.knownOperators == expected)
    }
}
