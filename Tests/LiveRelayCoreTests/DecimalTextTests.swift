import Foundation
import LiveRelayCore
import LiveRelayTesting
import Testing

/// `JSONBytes.decimal` writes a decimal's own text without Foundation's loop: it must be `description`'s, byte
/// for byte, for every decimal a feed, a rule or arithmetic on them can make, so nothing stored changes.
@Suite struct DecimalTextTests {
    static func written(_ d: Decimal) -> String {
        var bytes = JSONBytes()
        bytes.decimal(d)
        return String(decoding: bytes.bytes, as: UTF8.self)
    }

    @Test(arguments: [
        "0", "-0", "0.0", "1", "-1", "10", "100", "1e3", "1e-3", "0.001", "-0.001", "99700.25", "100120.50000000",
        "100120.5", "0.1", "12345678901234567890", "18446744073709551615", "18446744073709551616",
        "-18446744073709551615", "123456789012345678901234567890.123", "1e20", "1e-20", "5e-30", "7.000",
        "0.000000000000000000001", "3.14159265358979323846", "1e127", "-1e-127",
    ])
    func aDecimalOfTextIsWrittenAsFoundationWritesIt(_ text: String) throws {
        let d = try #require(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")))
        #expect(Self.written(d) == d.description, "\(text)")
        #expect(d.plainText == NSDecimalNumber(decimal: d).stringValue, "\(text)")
    }

    /// The fast path is on: this Foundation lays decimals out as `DecimalParts` reads them (on one that does
    /// not, the text still comes out right, from `description`, and this says the fast path is off).
    @Test func theDecimalsPartsAreReadFromThisFoundation() throws {
        let price = try #require(Decimal(string: "-100120.50", locale: Locale(identifier: "en_US_POSIX")))
        #expect(DecimalParts(price) == DecimalParts(mantissa: 1_001_205, exponent: -1, negative: true))
        #expect(DecimalParts(Decimal(UInt64.max)) == DecimalParts(mantissa: .max, exponent: 0, negative: false))
        #expect(DecimalParts(Decimal(UInt64.max) + 1) == nil, "wider than 64 bits")
        #expect(DecimalParts(0) == nil)
        #expect(DecimalParts(.nan) == nil)
    }

    @Test func nanAndArithmeticResultsToo() {
        #expect(Self.written(Decimal.nan) == Decimal.nan.description)
        var draws = SplitMix(seed: 0x5EED)
        func next() -> UInt64 { draws.next() }
        for _ in 0..<20_000 {
            // A price as a feed gives it (up to 19 digits, the point anywhere), then what rules do with prices.
            let digits = String(next() % 10_000_000_000_000_000_000)
            let point = Int(next() % UInt64(digits.count + 4))
            var text = digits
            if point < digits.count { text.insert(".", at: text.index(text.startIndex, offsetBy: point)) }
            if next() & 1 == 1 { text = "-" + text }
            guard let a = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { continue }
            let b = Decimal(Int(next() % 100_000) + 1) / Decimal(Int(next() % 1000) + 1)
            for d in [
                a, a * b, a / b, a + b, a - a, b, -b,
                a * Decimal(sign: .plus, exponent: -Int(next() % 30), significand: 1),
            ] {
                #expect(Self.written(d) == d.description, "\(text) → \(d.description)")
            }
        }
    }
}
