import Foundation
import LiveRelayCore
import Testing

@Suite struct JSONParserTests {
    @Test func parsesEveryKindAndKeepsNumberKinds() throws {
        let v = try JSONParser.parse(#"{"a": [1, -2.5, 1e3, "x\n\u00e9\ud83d\ude00", true, null], "b": {}}"#)
        #expect(v["a"] == [1, -2.5, 1000.0, "x\né😀", true, .null])
        guard case .int = v["a"]!.arrayValue![0] else { Issue.record("1 must stay an integer"); return }
        #expect(v["b"] == .emptyObject)
    }

    @Test func decimalModeKeepsPricesExact() throws {
        let v = try JSONParser.parse(#"{"price": 67187.33}"#, numbers: .decimal)
        #expect(v["price"] == .decimal(Decimal(string: "67187.33")!))
        #expect(v["price"]!.jsonString() == "67187.33")
    }

    @Test func numbersCompareByValue() {
        #expect(JSONValue.int(2) == .double(2.0))
        #expect(JSONValue.decimal(2) == .int(2))
        #expect(JSONValue.int(2) != .string("2"))
        #expect(Set<JSONValue>([.int(2), .double(2)]).count == 1)
    }

    @Test(arguments: [
        ("{\"a\": 1,}", "1:9: expected a string key, found '}'"),
        ("[1 2]", "1:4: expected ',' or ']' in an array, found '2'"),
        ("{\n  \"a\": tru\n}", "2:8: invalid literal: expected true"),
        ("", "1:1: empty document: expected a JSON value"),
        ("\"abc", "1:1: unterminated string"),
        ("01", "1:1: leading zero in a number"),
        ("{\"a\":1} x", "1:9: unexpected 'x' after the JSON value"),
    ])
    func reportsLineAndColumn(text: String, expected: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
        do {
            _ = try JSONParser.parse(text)
        } catch {
            #expect(error.description == expected)
        }
    }

    @Test func sourceMapLocatesKeysAndValues() throws {
        let text = "{\n  \"rules\": [\n    {\"id\": \"goal\", \"when\": {\"==\": [1, 1]}}\n  ]\n}"
        let (_, map) = try JSONParser.parseWithSourceMap(Data(text.utf8))
        #expect(map.keyLocation("/rules") == SourceLocation(line: 2, column: 3))
        #expect(map.keyLocation("/rules/0/when") == SourceLocation(line: 3, column: 20))
        #expect(map.valueLocation("/rules/0/id") == SourceLocation(line: 3, column: 12))
        #expect(map.location("/rules/0/missing") == SourceLocation(line: 3, column: 5))
    }

    @Test func sourceMapModeRejectsDuplicateKeys() {
        #expect(throws: JSONParseError.self) { try JSONParser.parseWithSourceMap(Data(#"{"a":1,"a":2}"#.utf8)) }
    }

    @Test func canonicalOutputIsStable() {
        let v: JSONValue = ["b": 2.0, "a": ["x": "q\"uote"], "c": 0.5]
        #expect(v.jsonString() == #"{"a":{"x":"q\"uote"},"b":2,"c":0.5}"#)
    }

    @Test func pointersResolveAndEscape() throws {
        let doc: JSONValue = ["a/b": ["c~d": [10, 20]]]
        let p = try JSONPointer("/a~1b/c~0d/1")
        #expect(p.resolve(in: doc) == 20)
        #expect(p.description == "/a~1b/c~0d/1")
        #expect(try JSONPointer("/a~1b/x").resolve(in: doc) == nil)
        #expect(throws: JSONPointer.ParseError.self) { try JSONPointer("a") }
    }

    @Test func factsChangedPaths() {
        var a = Facts()
        a.set("home.score", 0)
        a.set("state", "in")
        var b = a
        b.set("home.score", 1)
        b.set("clock.seconds", 60)
        #expect(Facts.changedPaths(from: a, to: b) == ["clock.seconds", "home.score"])
        #expect(Facts.changedPaths(from: nil, to: a) == ["home.score", "state"])
    }
}
