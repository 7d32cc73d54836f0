import Foundation
import LiveRelayCore

/// A number as JsonLogic computes with it: JavaScript semantics, but integers and decimals kept exact.
///
/// Two integers give an integer unless the result overflows or is fractional; a decimal operand makes
/// `+`, `-`, `*` and comparisons exact in `Decimal`; everything else is `Double`, as in JavaScript.
enum JsonLogicNumber: Sendable {
    case int(Int)
    case double(Double)
    case decimal(Decimal)

    static let nan = JsonLogicNumber.double(.nan)

    var json: JSONValue {
        switch self {
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .decimal(let d): return .decimal(d)
        }
    }

    var doubleValue: Double {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .decimal(let d): return d.isNaN ? .nan : NSDecimalNumber(decimal: d).doubleValue
        }
    }

    /// The exact decimal, or `nil` for `NaN` and infinities, which `Decimal` cannot hold.
    var decimalValue: Decimal? {
        switch self {
        case .int(let i): return Decimal(i)
        case .decimal(let d): return d.isNaN ? nil : d
        case .double(let d): return JSONValue.double(d).decimalValue
        }
    }

    var isNaN: Bool {
        switch self {
        case .int: return false
        case .double(let d): return d.isNaN
        case .decimal(let d): return d.isNaN
        }
    }

    /// False for `NaN` and the infinities, which have no JSON text: arithmetic raises them as `NaN`.
    var isFinite: Bool {
        switch self {
        case .int: return true
        case .double(let d): return d.isFinite
        case .decimal(let d): return !d.isNaN
        }
    }

    static func + (a: Self, b: Self) -> Self {
        combine(a, b, { $0.addingReportingOverflow($1) }, { $0 + $1 }, { $0 + $1 })
    }

    static func - (a: Self, b: Self) -> Self {
        combine(a, b, { $0.subtractingReportingOverflow($1) }, { $0 - $1 }, { $0 - $1 })
    }

    static func * (a: Self, b: Self) -> Self {
        combine(a, b, { $0.multipliedReportingOverflow(by: $1) }, { $0 * $1 }, { $0 * $1 })
    }

    static prefix func - (a: Self) -> Self {
        switch a {
        case .int(let i): return i == .min ? .double(-Double(i)) : .int(-i)
        case .double(let d): return .double(-d)
        case .decimal(let d): return .decimal(-d)
        }
    }

    /// `a / b`: an integer when both are integers and the division is exact, else a `Double`.
    static func / (a: Self, b: Self) -> Self {
        if case .int(let x) = a, case .int(let y) = b, y != 0, !(x == .min && y == -1), x % y == 0 {
            return .int(x / y)
        }
        return .double(a.doubleValue / b.doubleValue)
    }

    /// JavaScript's `%`: truncated, with the sign of the dividend; `NaN` for a zero divisor.
    static func % (a: Self, b: Self) -> Self {
        if case .int(let x) = a, case .int(let y) = b {
            if y == 0 { return .nan }
            let (r, overflow) = x.remainderReportingOverflow(dividingBy: y)
            return .int(overflow ? 0 : r)
        }
        return .double(a.doubleValue.truncatingRemainder(dividingBy: b.doubleValue))
    }

    /// -1, 0 or 1 as `a` is below, equal to or above `b`; `nil` when either is `NaN` (JavaScript's undefined).
    static func compare(_ a: Self, _ b: Self) -> Int? {
        switch (a, b) {
        case (.int(let x), .int(let y)):
            return x < y ? -1 : (x == y ? 0 : 1)
        case (.decimal, _), (_, .decimal):
            // A personal rule compares a decimal price with each subscription's level: most orders are read from
            // the numbers' parts, without Foundation's decimal arithmetic (which allocates).
            if let order = quickOrder(a, b) { return order }
        default:
            break
        }
        return exactOrder(a, b)
    }

    /// The order ``compare(_:_:)`` gives, by the definition: a decimal against anything finite compared as two
    /// decimals, the rest as doubles.
    static func exactOrder(_ a: Self, _ b: Self) -> Int? {
        switch (a, b) {
        case (.int(let x), .int(let y)):
            return x < y ? -1 : (x == y ? 0 : 1)
        case (.decimal, _), (_, .decimal):
            if let x = a.decimalValue, let y = b.decimalValue { return x < y ? -1 : (x == y ? 0 : 1) }
        default:
            break
        }
        let x = a.doubleValue
        let y = b.doubleValue
        if x.isNaN || y.isNaN { return nil }
        return x < y ? -1 : (x == y ? 0 : 1)
    }

    /// The order of `a` and `b` when their parts settle it: both exact in 64 bits (an integer, an integral
    /// double, a decimal of up to 64 bits' mantissa) and compared as integers scaled to one exponent; or a
    /// double and a decimal that lie apart by more than either's rounding. `nil` otherwise (zero decimals,
    /// wide mantissas, NaN, infinities, numbers that close): ``exactOrder(_:_:)`` decides.
    static func quickOrder(_ a: Self, _ b: Self) -> Int? {
        if let x = Scaled(a), let y = Scaled(b) { return Scaled.order(x, y) }
        // A fractional double against a decimal: the decimal as a double is within a few units in the last
        // place, far inside a billionth.
        let (x, y) = (a.quickDouble, b.quickDouble)
        guard let x, let y, x.isFinite, y.isFinite else { return nil }
        let margin = Swift.max(abs(x), abs(y)) * 1e-9
        if x < y - margin { return -1 }
        if x > y + margin { return 1 }
        return nil
    }

    /// The number as a double, for ``quickOrder(_:_:)``: a decimal's from its parts; `nil` when it has none.
    private var quickDouble: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .decimal(let d):
            guard let parts = DecimalParts(d) else { return nil }
            let magnitude = Double(parts.mantissa) * pow(10, Double(parts.exponent))
            return parts.negative ? -magnitude : magnitude
        }
    }

    /// A number that is exactly `±mantissa × 10^exponent`, the mantissa in 64 bits.
    struct Scaled: Equatable {
        var negative: Bool
        var mantissa: UInt64
        var exponent: Int

        init?(_ n: JsonLogicNumber) {
            switch n {
            case .int(let i):
                (negative, mantissa, exponent) = (i < 0, UInt64(i.magnitude), 0)
            case .double(let d):
                // Integral doubles to 2^53 only: past it, and for a fraction, the double's text (which the exact
                // order reads) is not its binary value.
                guard d.isFinite, d == d.rounded(.towardZero), abs(d) <= 9_007_199_254_740_992 else { return nil }
                (negative, mantissa, exponent) = (d < 0, UInt64(abs(d)), 0)
            case .decimal(let d):
                guard let parts = DecimalParts(d) else { return nil }
                (negative, mantissa, exponent) = (parts.negative, parts.mantissa, parts.exponent)
            }
        }

        static func order(_ x: Scaled, _ y: Scaled) -> Int {
            switch (x.mantissa == 0, y.mantissa == 0) {
            case (true, true): return 0
            case (true, false): return y.negative ? 1 : -1
            case (false, true): return x.negative ? -1 : 1
            case (false, false): break
            }
            if x.negative != y.negative { return x.negative ? -1 : 1 }
            let magnitude = magnitudeOrder(x.mantissa, x.exponent, y.mantissa, y.exponent)
            return x.negative ? -magnitude : magnitude
        }

        /// `m1 × 10^e1` against `m2 × 10^e2`, both mantissas above zero: the one of the larger exponent is
        /// scaled down to the other's; past 64 bits it is the larger.
        private static func magnitudeOrder(_ m1: UInt64, _ e1: Int, _ m2: UInt64, _ e2: Int) -> Int {
            if e1 > e2 { return -magnitudeOrder(m2, e2, m1, e1) }
            var scaled = m2
            for _ in 0..<(e2 - e1) {
                let (product, overflow) = scaled.multipliedReportingOverflow(by: 10)
                if overflow { return -1 }
                scaled = product
            }
            return m1 < scaled ? -1 : (m1 == scaled ? 0 : 1)
        }
    }

    @inline(__always)
    private static func combine(
        _ a: Self, _ b: Self,
        _ int: (Int, Int) -> (partialValue: Int, overflow: Bool),
        _ double: (Double, Double) -> Double,
        _ decimal: (Decimal, Decimal) -> Decimal
    ) -> Self {
        switch (a, b) {
        case (.int(let x), .int(let y)):
            let result = int(x, y)
            return result.overflow ? .double(double(Double(x), Double(y))) : .int(result.partialValue)
        case (.decimal, _), (_, .decimal):
            if let x = a.decimalValue, let y = b.decimalValue { return .decimal(decimal(x, y)) }
            return .double(double(a.doubleValue, b.doubleValue))
        default:
            return .double(double(a.doubleValue, b.doubleValue))
        }
    }
}
