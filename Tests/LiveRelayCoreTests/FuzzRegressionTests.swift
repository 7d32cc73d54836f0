import Foundation
import LiveRelayCore
import Testing

/// Inputs the fuzz targets in `Fuzz/` found (see the Fuzzing section of docs/reliability.md), reduced.
@Suite struct FuzzRegressionTests {
    /// fuzz-json: `[{"":"\ud800"}]` was refused by a plain parse (a lone surrogate) but accepted by a selective
    /// parse that skipped the string unbuilt, so a feed body's validity depended on what its mapping read.
    @Test func aLoneSurrogateIsRefusedWhereverTheStringIs() throws {
        var elementZero = JSONSelection()
        elementZero.include([.any, .key("0")])
        let found = Data(#"[{"":"\ud800"}]"#.utf8)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(found) }
        #expect(throws: JSONParseError.self) { try JSONParser.parse(found, selecting: elementZero) }

        var onlyA = JSONSelection()
        onlyA.include([.key("a")])
        for text in [
            #"{"a": 1, "b": "\udc00"}"#, #"{"a": 1, "b": "\ud800\u0041"}"#, #"{"a": 1, "b": "x\ud800"}"#,
            #"{"a": 1, "b": {"\udfff": 2}}"#,
        ] {
            #expect(throws: JSONParseError.self, "\(text)") { try JSONParser.parse(Data(text.utf8)) }
            #expect(throws: JSONParseError.self, "\(text)") { try JSONParser.parse(Data(text.utf8), selecting: onlyA) }
        }
        // A surrogate pair stays valid when skipped.
        #expect(try JSONParser.parse(Data(#"{"a": 1, "b": "\ud83d\ude00"}"#.utf8), selecting: onlyA) == ["a": 1])
    }
}
