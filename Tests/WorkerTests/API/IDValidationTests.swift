import Foundation
import Testing

@testable import Worker

/// The API's id checks take exactly what their patterns describe: checked against the regular expressions
/// over strings made to sit on the edges (lengths, neighbouring bytes, line breaks, non-ASCII, dots).
@Suite struct IDValidationTests {
    static let alphabet: [String] = [
        "a", "Z", "0", "9", "_", ".", ":", "-", "@", "/", " ", "\n", "\r", "%", "é", "ß", "\u{0}", "`", "[", "{",
        "~", "A", "z",
    ]

    static func strings(count: Int) -> [String] {
        var random = SystemRandomNumberGenerator()
        var out: [String] = ["", ".", "..", "...", "a.", "id\n", "\nid", "a b"]
        for length in [1, 2, 127, 128, 129, 199, 200, 201] {
            out.append(String(repeating: "a", count: length))
            out.append("_" + String(repeating: "b", count: length - 1))
            out.append("1" + String(repeating: "c", count: max(0, length - 1)))
        }
        for _ in 0..<count {
            let length = Int.random(in: 1...6, using: &random)
            out.append((0..<length).map { _ in alphabet.randomElement(using: &random)! }.joined())
        }
        return out
    }

    static func matches(_ raw: String, _ pattern: String) -> Bool {
        raw.range(of: pattern, options: .regularExpression) != nil && !raw.allSatisfy { $0 == "." }
    }

    @Test func eachCheckTakesWhatItsPatternDescribes() {
        for raw in Self.strings(count: 3_000) {
            #expect(
                ((try? Validate.device(raw, inBody: true)) != nil)
                    == Self.matches(raw, #"\A[A-Za-z0-9._:-]{1,128}\z"#), "device \(raw.debugDescription)")
            #expect(
                ((try? Validate.entity(raw, inBody: true)) != nil)
                    == Self.matches(raw, #"\A[A-Za-z0-9._:@-]{1,128}\z"#), "entity \(raw.debugDescription)")
            #expect(
                ((try? Validate.subscription(raw.replacingOccurrences(of: "%", with: "")))
                    != nil)
                    == Self.matches(raw.replacingOccurrences(of: "%", with: ""), #"\A[A-Za-z0-9._:-]{1,200}\z"#),
                "subscription \(raw.debugDescription)")
            #expect(
                ((try? Validate.attributesType(raw.replacingOccurrences(of: "%", with: ""))) != nil)
                    == Self.matches(
                        raw.replacingOccurrences(of: "%", with: ""), #"\A[A-Za-z_][A-Za-z0-9_]{0,127}\z"#),
                "attributes type \(raw.debugDescription)")
        }
    }
}
