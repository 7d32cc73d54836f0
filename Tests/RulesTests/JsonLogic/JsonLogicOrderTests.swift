import Foundation
import LiveRelayCore
import LiveRelayTesting
import Testing

@testable import Rules

/// Numbers compared with a decimal among them are ordered from their parts when that settles it
/// (``JsonLogicNumber/quickOrder(_:_:)``), and by Foundation's decimals otherwise: both give the order the
/// definition gives (``JsonLogicNumber/exactOrder(_:_:)``).
@Suite struct JsonLogicOrderTests {
    /// A number of one of the kinds rules meet, often one of the last three drawn, as it is or as another kind
    /// of the same value.
    struct Draw {
        var random: SplitMix
        var pool: [JsonLogicNumber] = []

        mutating func number() -> JsonLogicNumber {
            if !pool.isEmpty, random.next() % 3 == 0 {
                // One already drawn, as it is or as another kind of the same value (a level equal to the price).
                let earlier = pool[Int(random.next() % UInt64(pool.count))]
                switch random.next() % 3 {
                case 0: return earlier
                case 1: return earlier.decimalValue.map { .decimal($0) } ?? earlier
                default: return .double(earlier.doubleValue)
                }
            }
            let n = fresh()
            pool = pool.suffix(2) + [n]
            return n
        }

        private mutating func fresh() -> JsonLogicNumber {
            let sign: Int64 = random.next() % 4 == 0 ? -1 : 1
            switch random.next() % 8 {
            case 0: return .int(Int(sign) * Int(random.next() % 1_000))
            case 1: return .int(Int(bitPattern: UInt(random.next())))
            case 2: return .double(Double(sign) * Double(random.next() % 200_000))
            case 3: return .double(Double(sign) * Double(random.next() >> 1))  // integral, past 2^53
            case 4: return .double(Double(sign) * Double(random.next() % 10_000_000) / 100)
            case 5:
                return .decimal(
                    Decimal(
                        sign: sign < 0 ? .minus : .plus, exponent: -Int(random.next() % 12),
                        significand: Decimal(random.next() % 100_000_000_000)))
            case 6:
                // Past 64 bits of mantissa, or of a wide exponent.
                let wide = Decimal(string: "\(random.next())\(random.next() % 1_000_000)")!
                return .decimal(
                    Decimal(sign: sign < 0 ? .minus : .plus, exponent: Int(random.next() % 40) - 30, significand: wide))
            default:
                let text = ["0", "-0.000", "100120.50000000", "99000", "1e-20", "NaN"][Int(random.next() % 6)]
                return .decimal(Decimal(string: text) ?? .nan)
            }
        }
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func theQuickOrderIsTheExactOrder(seed: UInt64) {
        var draw = Draw(random: SplitMix(seed: seed))
        var settled = 0
        for _ in 0..<20_000 {
            let (a, b) = (draw.number(), draw.number())
            guard case .decimal = a else {
                guard case .decimal = b else { continue }
                #expect(JsonLogicNumber.compare(a, b) == JsonLogicNumber.exactOrder(a, b), "\(a) against \(b)")
                continue
            }
            if JsonLogicNumber.quickOrder(a, b) != nil { settled += 1 }
            #expect(JsonLogicNumber.compare(a, b) == JsonLogicNumber.exactOrder(a, b), "\(a) against \(b)")
        }
        #expect(settled > 1_000, "the parts settle most orders")
    }

    /// The cases each side of the quick order is for, by hand.
    @Test func theQuickOrderReadsPartsAndLeavesTheCloseOnes() {
        let price = JsonLogicNumber.decimal(Decimal(string: "100120.50000000")!)
        #expect(JsonLogicNumber.quickOrder(price, .double(100_120)) == 1)
        #expect(JsonLogicNumber.quickOrder(price, .int(100_121)) == -1)
        #expect(JsonLogicNumber.quickOrder(price, .decimal(Decimal(string: "100120.5")!)) == 0)
        #expect(JsonLogicNumber.quickOrder(.decimal(Decimal(string: "-0.5")!), .int(0)) == -1)
        #expect(JsonLogicNumber.quickOrder(price, .double(100_120.25)) == 1, "apart by more than rounding")
        #expect(JsonLogicNumber.quickOrder(price, .double(100_120.5)) == nil, "a fraction this close: exact")
        #expect(JsonLogicNumber.quickOrder(price, .double(9_007_199_254_740_992)) == -1)
        // 2^60's text, which the exact order reads, is 1152921504606847000: above the decimal between the two.
        #expect(
            JsonLogicNumber.compare(
                .double(1_152_921_504_606_846_976), .decimal(Decimal(string: "1152921504606846980")!))
                == 1)
        #expect(JsonLogicNumber.quickOrder(.decimal(.nan), .int(1)) == nil)
        #expect(JsonLogicNumber.compare(.decimal(.nan), .int(1)) == nil)
    }
}
