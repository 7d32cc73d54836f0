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

    /// Feed bodies too: which of two values a reader keeps differs between parsers.
    @Test func everyModeRejectsDuplicateKeys() {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(Data(#"{"score":1,"score":5}"#.utf8)) }
        #expect(throws: JSONParseError.self) {
            try JSONParser.parse(Data(#"[{"a":{"b":1,"b":1}}]"#.utf8), numbers: .decimal)
        }
    }

    /// Invalid UTF-8 is an error, not text silently repaired with U+FFFD.
    @Test func invalidUTF8IsAnError() throws {
        for bytes: [UInt8] in [
            [0x22, 0xFF, 0x22], [0x22, 0x61, 0xC3, 0x22], [0x22, 0x5C, 0x6E, 0xED, 0xA0, 0x80, 0x22],
        ] {
            #expect(throws: JSONParseError.self) { try JSONParser.parse(Data(bytes)) }
        }
        #expect(try JSONParser.parse(Data([0x22, 0xC3, 0xA9, 0x22])) == "é")
    }

    /// Strings long enough to be read eight bytes at a time: ASCII as it is, other UTF-8 checked, a bad byte
    /// anywhere in the word-sized part or the tail refused.
    @Test(arguments: [0, 3, 7, 8, 9, 16, 23, 160])
    func longStringsAreCheckedWhereverTheirBytesFall(length: Int) throws {
        let ascii = String(repeating: "a1B", count: length + 1).prefix(length)
        #expect(try JSONParser.parse(Data("\"\(ascii)\"".utf8)) == .string(String(ascii)))
        let accented = String(ascii) + "é€😀"
        #expect(try JSONParser.parse(Data("\"\(accented)\"".utf8)) == .string(accented))
        for at in Set([0, length / 2, max(0, length - 1)]) where at <= length {
            var bytes = Array(ascii.utf8)
            bytes.insert(0xFF, at: at)
            #expect(throws: JSONParseError.self, "0xFF at \(at) of \(length)") {
                try JSONParser.parse(Data([0x22] + bytes + [0x22]))
            }
        }
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

    /// Numbers are read from their digits without making text; `Decimal(string:)`, `Int(_:)` and
    /// `Double(_:)` are the reference for value, kind and printed form.
    @Test func numbersReadFromDigitsMatchTheTextConversions() throws {
        var texts = [
            "0", "-0", "7", "-12", "123456789012345678", "9223372036854775807", "-9223372036854775808",
            "99999999999999999999", "0.5", "-0.0", "0.0001", "10.05", "1.50", "67321.55000000", "1e3", "1E-3",
            "-2.5e+2", "0.000000000000000000001", "1234567890123456789.5", "12345678901234567890123.25",
            "1e127", "1e-130", "3.14159265358979323846",
        ]
        var state: UInt64 = 3
        for _ in 0..<500 {
            state = state &* 6_364_136_223_846_793_005 &+ 1
            let whole = String(state >> 40)
            let fraction = String(state % 1_000_000)
            texts.append((state & 1 == 0 ? "-" : "") + whole + (state & 2 == 0 ? "" : "." + fraction))
        }
        for text in texts {
            let decimal = try JSONParser.parse(text, numbers: .decimal)
            let double = try JSONParser.parse(text, numbers: .double)
            if let i = Int(text) {
                #expect(decimal == .int(i) && double == .int(i), "\(text)")
                if case .int = decimal {} else { Issue.record("\(text) is not an int") }
                continue
            }
            guard let expected = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                #expect(decimal == .double(Double(text)!), "\(text) is out of Decimal's range")
                continue
            }
            guard case .decimal(let d) = decimal else {
                Issue.record("\(text) is not a decimal: \(decimal)")
                continue
            }
            #expect(d == expected && d.description == expected.description, "\(text): \(d) vs \(expected)")
            #expect(double == .double(Double(text)!), "\(text)")
        }
    }
}
