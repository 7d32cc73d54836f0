import Foundation
import LiveRelayCore
import Testing

@Suite("Streaming one array of a JSON document")
struct JSONStreamingTests {
    @Test func theArraysElementsAreHandedOnInOrderAndTheRestReturned() throws {
        var seen: [(Int, JSONValue)] = []
        let rest = try JSONParser.parse(
            Data(#"{"a": 1, "items": [{"x": 1}, 2, "three"], "b": [true]}"#.utf8), streaming: "items"
        ) { seen.append(($0, $1)) }
        #expect(seen.map(\.0) == [0, 1, 2])
        #expect(seen.map(\.1) == [.object(["x": .int(1)]), .int(2), .string("three")])
        #expect(rest == .object(["a": .int(1), "b": .array([.bool(true)])]))
    }

    /// Each element's offset, as the streaming parse tells it, reads that element and those after it again.
    @Test func anElementsOffsetReadsItAndTheNextOnesAgain() throws {
        let data = Data(#"{"items": [ {"x": [1, 2]} ,"two",  3, null ], "b": 1}"#.utf8)
        var offsets: [Int] = []
        var values: [JSONValue] = []
        _ = try JSONParser.parse(data, streaming: "items") { position, offset, value in
            #expect(position == offsets.count)
            offsets.append(offset)
            values.append(value)
        }
        for (start, offset) in offsets.enumerated() {
            var again: [JSONValue] = []
            try JSONParser.parseElements(data, from: offset, count: offsets.count - start) { again.append($0) }
            #expect(again == Array(values[start...]))
        }
        var two: [JSONValue] = []
        try JSONParser.parseElements(data, from: offsets[1], count: 2) { two.append($0) }
        #expect(two == [.string("two"), .int(3)])
        // Past the array's end there is no next element.
        #expect(throws: JSONParseError.self) {
            try JSONParser.parseElements(data, from: offsets[3], count: 2) { _ in }
        }
    }

    @Test func theSameJSONIsRefusedAsAWholeParseRefusesIt() {
        func refused(_ text: String) -> JSONParseError? {
            do {
                _ = try JSONParser.parse(Data(text.utf8), streaming: "items") { _, _ in }
                return nil
            } catch {
                return error
            }
        }
        #expect(refused(#"[1, 2]"#)?.message.contains("expected an object") == true)
        #expect(refused(#"{"items": {}}"#)?.message == "\"items\" must be an array")
        #expect(refused(#"{"items": [], "items": []}"#)?.message.contains("duplicate key") == true)
        #expect(refused(#"{"a": 1, "a": 2, "items": []}"#)?.message.contains("duplicate key") == true)
        #expect(refused(#"{"items": [1,]}"#) != nil)
        #expect(refused(#"{"items": []} x"#)?.message.contains("after the JSON value") == true)
        #expect(refused("") != nil)
    }
}
