import Foundation
import LiveRelayCore
import Testing

/// A selective parse builds exactly the selected parts of the full parse, and still refuses invalid JSON
/// anywhere in the body.
@Suite struct JSONSelectionTests {
    /// The reference: the selected parts of a fully parsed value.
    static func project(_ value: JSONValue, _ paths: [[JSONSelection.Step]]) -> JSONValue? {
        if paths.contains(where: \.isEmpty) { return value }
        switch value {
        case .object(let o):
            var out: [String: JSONValue] = [:]
            for (k, v) in o {
                let below = paths.compactMap { p -> [JSONSelection.Step]? in
                    p.first == .any || p.first == .key(k) ? Array(p.dropFirst()) : nil
                }
                if !below.isEmpty, let kept = project(v, below) { out[k] = kept }
            }
            return .object(out)
        case .array(let a):
            return .array(
                a.enumerated().map { i, v in
                    let below = paths.compactMap { p -> [JSONSelection.Step]? in
                        p.first == .any || p.first == .key(String(i)) ? Array(p.dropFirst()) : nil
                    }
                    return below.isEmpty ? .null : project(v, below) ?? .null
                })
        default:
            return value
        }
    }

    @Test func theSelectedPartsEqualTheFullParseOverRandomDocuments() throws {
        var state: UInt64 = 11
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        let names = ["a", "b", "c", "é\\u00e9", "0", "1"]
        func value(_ depth: Int) -> String {
            switch next(depth > 3 ? 5 : 7) {
            case 0: return "null"
            case 1: return ["true", "false"][next(2)]
            case 2: return ["0", "-12", "3.25", "1e3", "67321.55000000"][next(5)]
            case 3: return ["\"x\"", "\"q\\\"uote\"", "\"\\u00fc\"", "\"\""][next(4)]
            case 4: return "[]"
            case 5: return "[" + (0..<next(4)).map { _ in value(depth + 1) }.joined(separator: ", ") + "]"
            default:
                var keys = Set<String>()
                for _ in 0..<next(5) { keys.insert(names[next(names.count)]) }
                return "{" + keys.map { "\"\($0)\": \(value(depth + 1))" }.joined(separator: ",") + "}"
            }
        }
        for _ in 0..<400 {
            let text = value(0)
            var paths: [[JSONSelection.Step]] = []
            for _ in 0..<(1 + next(3)) {
                paths.append(
                    (0..<next(4)).map { _ in
                        next(4) == 0
                            ? .any : .key(names[next(names.count)].replacingOccurrences(of: "\\u00e9", with: "é"))
                    })
            }
            var selection = JSONSelection()
            for p in paths { selection.include(p) }
            let full = try JSONParser.parse(text, numbers: .decimal)
            let selected = try JSONParser.parse(Data(text.utf8), numbers: .decimal, selecting: selection)
            #expect(selected == Self.project(full, paths), "\(text) selecting \(paths)")
        }
    }

    @Test func invalidJSONOutsideTheSelectionIsStillRefused() throws {
        var selection = JSONSelection()
        selection.include([.key("a")])
        for text in [
            #"{"a": 1, "b": [1, 2,]}"#, #"{"a": 1, "b": {"c" 1}}"#, #"{"a": 1, "b": "\x"}"#, #"{"a": 1, "b": tru}"#,
            #"{"a": 1, "b": 01}"#, #"{"a": 1, "b": "unterminated}"#, #"{"a": 1} trailing"#,
        ] {
            #expect(throws: JSONParseError.self, "\(text)") {
                try JSONParser.parse(Data(text.utf8), selecting: selection)
            }
        }
        #expect(
            try JSONParser.parse(Data(#"{"a": [1], "b": {"deep": [true, null, "s\n"]}}"#.utf8), selecting: selection)
                == ["a": [1]])
    }

    /// Invalid UTF-8 is a JSON error in every mode: in a key matched by its bytes, in a key or a value the
    /// selection skips, long or short. Repaired with U+FFFD it would be a new entity, and a change.
    @Test func invalidUTF8IsRefusedInKeysAndSkippedValues() throws {
        var selection = JSONSelection()
        selection.includeMemberNames(at: [])
        selection.include([.key("a")])
        let bad: [UInt8] = [0xFF, 0xC3, 0xED, 0xA0, 0x80]
        for prefix in ["", "abcdefghij"] {
            for byte in bad {
                let b = Array(prefix.utf8) + [byte]
                for doc: [UInt8] in [
                    Array(#"{"a": 1, ""#.utf8) + b + Array(#"": 2}"#.utf8),
                    Array(#"{"a": 1, "skip": {""#.utf8) + b + Array(#"": 2}}"#.utf8),
                    Array(#"{"a": 1, "skip": [""#.utf8) + b + Array(#""]}"#.utf8),
                ] {
                    #expect(throws: JSONParseError.self, "\(doc)") {
                        try JSONParser.parse(Data(doc), selecting: selection)
                    }
                }
            }
        }
        #expect(
            try JSONParser.parse(Data(#"{"a": 1, "é": "ü", "skip": {"日本": "ok"}}"#.utf8), selecting: selection)
                == ["a": 1, "é": "ü", "skip": [:]])
    }

    /// A key given twice is an error in every mode, also in an object the selection reads only in part or
    /// skips, escapes decoded (`"a"` and `"\u0061"` are one key), as a plain parse says. (Found by the
    /// `json` fuzz target: a copy of a JsonLogic case with `"rule"` twice, which a plain parse refused and a
    /// selective one took.)
    @Test func aKeyGivenTwiceIsRefusedWhereverItIs() throws {
        var selection = JSONSelection()
        selection.include([.any, .key("0")])
        selection.include([.key("events"), .any, .key("id")])
        for text in [
            #"[1, {"description": "x", "rule": {"a": 1}, "rule": {"a": 1}, "data": {}}]"#,
            #"{"events": [{"id": 1, "id": 2}]}"#, #"{"events": [{"x": 1, "x": 2}]}"#,
            #"{"skip": {"deep": {"k": 1, "k": 1}}}"#, #"[{"0": 1, "0": 2}]"#,
        ] {
            #expect(throws: JSONParseError.self, "\(text)") { try JSONParser.parse(Data(text.utf8)) }
            #expect(throws: JSONParseError.self, "\(text)") {
                try JSONParser.parse(Data(text.utf8), selecting: selection)
            }
        }
        var ids = JSONSelection()
        ids.include([.key("events"), .any, .key("id")])
        #expect(
            try JSONParser.parse(
                Data(#"{"events": [{"id": 1, "x": {"id": 2}}, {"id": 3, "x": {"y": 1}, "y": 2}]}"#.utf8),
                selecting: ids) == ["events": [["id": 1], ["id": 3]]], "the same key in different objects is fine")
    }

    @Test func memberNamesCanBeKeptWithoutTheirValues() throws {
        var selection = JSONSelection()
        selection.includeMemberNames(at: [])
        selection.include([.key("a")])
        let parsed = try JSONParser.parse(
            Data(#"{"a": [1], "b": {"x": {"y": 1}}, "c": [1, {"z": 2}], "d": "s"}"#.utf8), selecting: selection)
        #expect(parsed == ["a": [1], "b": [:], "c": [.null, .null], "d": "s"])
    }

    /// Strings are scanned eight bytes at a time; an escape, a quote or a control character at any position
    /// of a long string must still be seen, skipped or built.
    @Test func longStringsAreReadCorrectlyAtEveryPosition() throws {
        var selection = JSONSelection()
        selection.include([.key("keep")])
        for length in 0..<40 {
            for position in 0..<max(1, length) {
                var chars: [String] = Array(repeating: "é", count: length)
                var expected = chars
                if length > 0 {
                    chars[position] = "\\\""
                    expected[position] = "\""
                }
                let text = chars.joined()
                let doc = Data("{\"skip\": \"\(text)\", \"keep\": \"\(text)\"}".utf8)
                let parsed = try JSONParser.parse(doc, selecting: selection)
                #expect(parsed == ["keep": .string(expected.joined())])
                #expect(
                    try JSONParser.parse(doc) == [
                        "skip": .string(expected.joined()), "keep": .string(expected.joined()),
                    ])
                if length > 0 {
                    chars[position] = "\u{01}"
                    let bad = Data("{\"skip\": \"\(chars.joined())\", \"keep\": 1}".utf8)
                    #expect(throws: JSONParseError.self) { try JSONParser.parse(bad, selecting: selection) }
                    #expect(throws: JSONParseError.self) { try JSONParser.parse(bad) }
                }
            }
        }
    }
}
