import Foundation
import LiveRelayCore
import Rules
import Testing

@Suite struct JsonLogicNumberTests {
    private let prices: JSONValue = [
        "a": .decimal(Decimal(string: "67187.33")!), "b": .decimal(Decimal(string: "67000.10")!),
    ]

    @Test func decimalSubtractionIsExact() throws {
        let rule = try JSONParser.parse(#"{"-": [{"var":"a"}, {"var":"b"}]}"#)
        let result = try JsonLogicExpression.compile(rule).evaluate(prices)
        guard case .decimal(let d) = result else {
            Issue.record("expected a decimal, got \(result)")
            return
        }
        #expect(d == Decimal(string: "187.23")!)
        #expect(result.jsonString() == "187.23")
    }

    @Test func decimalsFromTheParserStayExact() throws {
        let data = try JSONParser.parse(#"{"a": 0.1, "b": 0.2}"#, numbers: .decimal)
        #expect(try evaluate(#"{"+":[{"var":"a"},{"var":"b"}]}"#).jsonString() != "0.3")  // sanity: doubles
        let rule = try JSONParser.parse(#"{"+":[{"var":"a"},{"var":"b"}]}"#)
        #expect(try JsonLogicExpression.compile(rule).evaluate(data) == .decimal(Decimal(string: "0.3")!))
    }

    @Test(arguments: [
        (#"{">": [{"var":"a"}, {"var":"b"}]}"#, true),
        (#"{"<": [{"var":"b"}, {"var":"a"}]}"#, true),
        (#"{"==": [{"var":"a"}, 67187.33]}"#, true),
        (#"{"==": [{"var":"a"}, "67187.33"]}"#, true),
        (#"{">=": [{"var":"a"}, 67187.33]}"#, true),
        (#"{">": [{"var":"a"}, 67187.33]}"#, false),
        (#"{"<": [67000, {"var":"b"}, {"var":"a"}]}"#, true),
        (#"{"==": [{"-": [{"var":"a"}, {"var":"b"}]}, 187.23]}"#, true),
    ])
    func decimalComparisons(rule: String, expected: Bool) throws {
        let result = try JsonLogicExpression.compile(JSONParser.parse(rule)).evaluate(prices)
        #expect(result == .bool(expected))
    }

    @Test func decimalTimesIntegerIsExact() throws {
        let data: JSONValue = ["price": .decimal(Decimal(string: "19.99")!)]
        let rule = try JSONParser.parse(#"{"*": [{"var":"price"}, 3]}"#)
        #expect(try JsonLogicExpression.compile(rule).evaluate(data).jsonString() == "59.97")
    }

    @Test(arguments: [
        (#"{"+":[1,2]}"#, "3"),
        (#"{"*":[4,5]}"#, "20"),
        (#"{"-":[4,5]}"#, "-1"),
        (#"{"%":[-7,3]}"#, "-1"),
        (#"{"/":[6,3]}"#, "2"),
    ])
    func integerArithmeticStaysInteger(rule: String, text: String) throws {
        let result = try evaluate(rule)
        guard case .int = result else {
            Issue.record("expected an integer, got \(result)")
            return
        }
        #expect(result.jsonString() == text)
    }

    @Test func overflowFallsBackToDouble() throws {
        let result = try evaluate(#"{"+":[9223372036854775807, 1]}"#)
        #expect(result == .double(9_223_372_036_854_775_808.0))
    }

    @Test(arguments: [
        (#"{"/":[1,2]}"#, JSONValue.double(0.5)),
        (#"{"/":[2]}"#, .double(0.5)),
        (#"{"+":"3.5"}"#, .double(3.5)),
        (#"{"+":["1e2", 1]}"#, 101),
        (#"{"+":[true, null, "", " 2 "]}"#, 3),  // Number(): true is 1, null and "" are 0, spaces trimmed
        (#"{"-":["", 1]}"#, -1),
        (#"{"-":[null, 1]}"#, -1),
        (#"{"-":"5"}"#, -5),
        (#"{"-":[10, 2, 3]}"#, 5),
        (#"{"/":[8, 2, 2]}"#, 2),
        (#"{"%":[8, 6, 3]}"#, 2),
        (#"{"*":[]}"#, 1),
        (#"{"+":[]}"#, 0),
        (#"{"*":["2", "0x10"]}"#, 32),  // Number() reads hexadecimal
        (#"{"-":["0x10", 1]}"#, 15),
        (#"{"max":[1, "7", 3.5]}"#, 7),
        (#"{"%":[5.5, 2]}"#, 1.5),
    ])
    func javaScriptCoercions(rule: String, expected: JSONValue) throws {
        #expect(try evaluate(rule) == expected)
    }

    /// Arithmetic with no finite number result raises `{"type": "NaN"}`: a `try` can catch it, a rule field
    /// reports it, and no `NaN` or `Infinity` (which JSON cannot write) reaches a push.
    @Test(arguments: [
        #"{"/":[1,0]}"#, #"{"/":[0,0]}"#, #"{"/":0}"#, #"{"%":[1,0]}"#, #"{"+":"apple"}"#,
        #"{"+":["3 apples", 1]}"#, #"{"*":[[2], 1]}"#, #"{"-":[{"a":1,"b":2}, 1]}"#, #"{"max":[1,"x"]}"#,
        #"{"*":[1e308, 10]}"#, #"{"+":[{"var":"missing.list"}, {"merge":[]}]}"#,
    ])
    func arithmeticWithoutANumberRaises(rule: String) throws {
        #expect(throws: JsonLogicEvaluationError.raised(["type": "NaN"])) { try evaluate(rule) }
    }

    @Test func aComputedArgumentListIsSpread() throws {
        let data: JSONValue = ["prices": [.decimal(Decimal(string: "0.1")!), .decimal(Decimal(string: "0.2")!)]]
        let sum = try JsonLogicExpression.compile(JSONParser.parse(#"{"+": {"var": "prices"}}"#))
        #expect(try sum.evaluate(data) == .decimal(Decimal(string: "0.3")!))
        #expect(try evaluate(#"{"max": {"merge": [[1, 5], 3]}}"#) == 5)
        #expect(try evaluate(#"{"-": {"var": "x"}}"#, #"{"x": 4}"#) == -4)
        #expect(throws: JsonLogicEvaluationError.raised(["type": "Invalid Arguments"])) {
            try evaluate(#"{"min": {"var": "x"}}"#, #"{"x": []}"#)
        }
    }

    @Test(arguments: [
        (#"{"cat":[1.0, "|", 0.5, "|", 2.50]}"#, "1|0.5|2.5"),
        (
            #"{"cat":[1e21, "|", 1e-7, "|", 0.000001, "|", 123456789012345680000]}"#,
            "1e+21|1e-7|0.000001|123456789012345680000"
        ),
        (#"{"cat":[0.1, "+", 0.2, "=", {"+":[0.1,0.2]}]}"#, "0.1+0.2=0.30000000000000004"),
        (#"{"cat":[null, true, [1,[2,null]], {"a":1,"b":2}]}"#, "true1,2,[object Object]"),
        (#"{"cat":[{"/":[1,3]}]}"#, "0.3333333333333333"),
        (#"{"cat":[-1.5e-9]}"#, "-1.5e-9"),
    ])
    func catFormatsNumbersLikeJavaScript(rule: String, expected: String) throws {
        #expect(try evaluate(rule) == .string(expected))
    }

    @Test func catFormatsDecimalsWithTheirDigits() throws {
        let rule = try JSONParser.parse(#"{"cat":["$", {"var":"p"}]}"#)
        let data: JSONValue = ["p": .decimal(Decimal(string: "1234.50")!)]
        #expect(try JsonLogicExpression.compile(rule).evaluate(data) == "$1234.5")
    }

    /// `round`: exact, halves away from zero, an integer at 0 or fewer digits.
    @Test(arguments: [
        (#"{"round": [2.345, 2]}"#, "2.35"),
        (#"{"round": [-2.5]}"#, "-3"),
        (#"{"round": [2.5]}"#, "3"),
        (#"{"round": [1234.5678, -2]}"#, "1200"),
        (#"{"round": [{"var": "p"}, 2]}"#, "67187.34"),
        (#"{"round": ["7.25", 1]}"#, "7.3"),
    ])
    func roundIsExact(rule: String, expected: String) throws {
        let data: JSONValue = ["p": .decimal(Decimal(string: "67187.3351")!)]
        let value = try JsonLogicExpression.compile(JSONParser.parse(rule)).evaluate(data)
        #expect(value.jsonString() == expected)
    }

    /// `round` and `format` of what is no number (a missing fact, text that is not a number, a list, `true`,
    /// infinity, nothing at all) raise `{"type": "NaN"}` as arithmetic does: a lock screen never reads
    /// "NaN" or "$0.00" for a price that is not there. A `try` (or an `if` on the fact) gives the fallback.
    @Test(arguments: [
        #"{"format": [{"var": "missing"}, 2]}"#, #"{"format": ["abc"]}"#, #"{"format": []}"#,
        #"{"format": [true]}"#, #"{"format": [[1]]}"#, #"{"format": [""]}"#, #"{"round": [null]}"#,
        #"{"round": ["Infinity"]}"#, #"{"round": [{"var": "missing"}]}"#,
    ])
    func roundAndFormatOfNoNumberRaise(rule: String) throws {
        #expect(throws: JsonLogicEvaluationError.raised(["type": "NaN"])) { try evaluate(rule) }
    }

    @Test func aTryGivesTheFallbackForAMissingNumber() throws {
        #expect(try evaluate(#"{"try": [{"format": [{"var": "price"}, 2]}, "—"]}"#) == "—")
        #expect(try evaluate(#"{"try": [{"format": [{"var": "price"}, 2]}, "—"]}"#, #"{"price": "12.5"}"#) == "12.50")
    }

    /// `format`: fixed decimals and grouped thousands, so an alert reads "Now 100,150.00", not "Now 100150".
    @Test(arguments: [
        (#"{"format": [100150]}"#, "100,150"),
        (#"{"format": [100150.5, 2]}"#, "100,150.50"),
        (#"{"format": [{"var": "p"}, 2]}"#, "67,187.34"),
        (#"{"format": [-1234567.891, 1, " "]}"#, "-1 234 567.9"),
        (#"{"format": [999.996, 2, ""]}"#, "1000.00"),
        (#"{"format": [-0.001, 2]}"#, "0.00"),
        (#"{"format": [0.5]}"#, "1"),
        // Grouped with ".", the decimals follow ","; or as written.
        (#"{"format": [1234567.891, 2, "."]}"#, "1.234.567,89"),
        (#"{"format": [1234567.891, 2, " ", ","]}"#, "1 234 567,89"),
        (#"{"format": [1234567.891, 2, "'", "."]}"#, "1'234'567.89"),
        (#"{"cat": ["Now ", {"format": [{"var": "q"}, 2]}]}"#, "Now 100,150.00"),
        // Already within the decimals shown (written as it is), and to tens.
        (#"{"format": [{"var": "r"}, 3]}"#, "-1,234.500"),
        (#"{"format": [{"var": "r"}, 1]}"#, "-1,234.5"),
        (#"{"format": [{"var": "z"}, 2]}"#, "0.00"),
        (#"{"format": [1234.5, -2]}"#, "1,200"),
        (#"{"format": [123, 2]}"#, "123.00"),
    ])
    func formatWritesNumbersForPeople(rule: String, expected: String) throws {
        let data: JSONValue = [
            "p": .decimal(Decimal(string: "67187.3351")!), "q": .decimal(Decimal(100150)),
            "r": .decimal(Decimal(string: "-1234.5")!), "z": .decimal(Decimal(string: "-0.00")!),
        ]
        #expect(try JsonLogicExpression.compile(JSONParser.parse(rule)).evaluate(data) == .string(expected))
    }
}
