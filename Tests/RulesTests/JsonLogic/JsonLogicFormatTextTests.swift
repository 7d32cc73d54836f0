import Foundation
import LiveRelayCore
import LiveRelayTesting
import Testing

@testable import Rules

/// `format` writes a number from its decimal parts when they are at hand
/// (``JsonLogicNode/quickText(_:digits:grouping:decimal:)``): the same text as rounding it in `Decimal`.
@Suite struct JsonLogicFormatTextTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func thePartsWriteWhatDecimalRoundingWrites(seed: UInt64) {
        var random = SplitMix(seed: seed)
        var quick = 0
        for _ in 0..<20_000 {
            let mantissa: UInt64
            switch random.next() % 4 {
            case 0: mantissa = random.next() % 1_000
            case 1: mantissa = random.next() % 100_000_000_000 * 10 + 5  // halves, when the 5 is dropped first
            case 2: mantissa = random.next()  // 64 bits
            default: mantissa = random.next() % 10_000_000_000_000
            }
            let value = Decimal(
                sign: random.next() % 3 == 0 ? .minus : .plus, exponent: Int(random.next() % 30) - 22,
                significand: Decimal(mantissa))
            let digits = Int(random.next() % 10)
            let (grouping, decimal) = [(",", "."), (".", ","), ("", "."), ("'", ".")][Int(random.next() % 4)]
            let expected = JsonLogicNode.decimalText(value, digits: digits, grouping: grouping, decimal: decimal)
            if let text = JsonLogicNode.quickText(value, digits: digits, grouping: grouping, decimal: decimal) {
                quick += 1
                #expect(text == expected, "\(value) to \(digits) decimals")
            }
        }
        #expect(quick > 10_000, "most numbers are written from their parts")
    }

    @Test(arguments: [
        ("100120.50000000", 2, "100,120.50"), ("99000", 2, "99,000.00"), ("0.005", 2, "0.01"), ("-0.005", 2, "-0.01"),
        ("-0.004", 2, "0.00"), ("0", 3, "0.000"), ("1234.5", 0, "1,235"), ("999.999", 2, "1,000.00"),
        ("18446744073709551615", 0, "18,446,744,073,709,551,615"),
    ])
    func prices(text: String, digits: Int, expected: String) {
        let value = Decimal(string: text)!
        #expect(JsonLogicNode.quickText(value, digits: digits, grouping: ",", decimal: ".") == expected)
        #expect(JsonLogicNode.decimalText(value, digits: digits, grouping: ",", decimal: ".") == expected)
    }
}
