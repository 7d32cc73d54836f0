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
            if let x = a.decimalValue, let y = b.decimalValue { return x < y ? -1 : (x == y ? 0 : 1) }
        default:
            break
        }
        let x = a.doubleValue
        let y = b.doubleValue
        if x.isNaN || y.isNaN { return nil }
        return x < y ? -1 : (x == y ? 0 : 1)
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
