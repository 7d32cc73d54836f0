import Foundation
import LiveRelayCore

extension JsonLogicNode {
    /// `round` and `format`, LiveRelay's operators for numbers people read, computed exactly in `Decimal`:
    /// - `{"round": [x, digits]}`: `x` rounded to `digits` decimal places (0 when left out; negative rounds
    ///   to tens, hundreds, …), halves away from zero; an integer when `digits` ≤ 0.
    /// - `{"format": [x, digits, grouping, decimal]}`: the text of `x` rounded so, with exactly `digits`
    ///   decimals, its thousands grouped with `grouping` (`","` when left out, `""` for none) and `decimal`
    ///   before the decimals (when left out: `","` if `grouping` is `"."`, else `"."`):
    ///   `{"format": [100150.5, 2]}` is `"100,150.50"`, `{"format": [100150.5, 2, "."]}` is `"100.150,50"`.
    /// `x` is a number, or text that is one (`"67187.34"`, as some feeds write prices); anything else
    /// (`null` for a missing fact, `true`, `"abc"`, a list) is no number to show, and raises
    /// `{"type": "NaN"}`, as arithmetic on it does, rather than writing "NaN" or "0.00" on a lock screen.
    static func numbers(_ op: JsonLogicOperator, _ arguments: [JSONValue], _ budget: inout JsonLogicBudget)
        -> JSONValue
    {
        guard let exact = readableNumber(arguments.first ?? .null) else {
            return budget.raise(JsonLogicRaised.notANumber)
        }
        let digits = arguments.count > 1 ? decimalPlaces(arguments[1]) : 0
        if op == .format {
            let grouping = arguments.count > 2 ? arguments[2].jsString : ","
            let decimal = arguments.count > 3 ? arguments[3].jsString : decimalSeparator(forGrouping: grouping)
            return .string(formatted(exact, digits: digits, grouping: grouping, decimal: decimal))
        }
        var value = exact
        var rounded = Decimal()
        // `round` always rounds: its result is a number, and rounding also gives it its shortest form.
        NSDecimalRound(&rounded, &value, digits, .plain)
        if digits <= 0, let integer = Int(exactly: NSDecimalNumber(decimal: rounded).doubleValue),
            Decimal(integer) == rounded
        {
            return .int(integer)
        }
        return .decimal(rounded)
    }

    /// `format`'s text of `exact`: from its parts when they are at hand (``quickText``), else rounded in
    /// `Decimal` (``decimalText``).
    static func formatted(_ exact: Decimal, digits: Int, grouping: String, decimal: String) -> String {
        quickText(exact, digits: digits, grouping: grouping, decimal: decimal)
            ?? decimalText(exact, digits: digits, grouping: grouping, decimal: decimal)
    }

    /// `format`'s text, rounded in `Decimal`.
    static func decimalText(_ exact: Decimal, digits: Int, grouping: String, decimal: String) -> String {
        var value = exact
        var rounded = Decimal()
        // A number with no more decimals than it shows is written as it is (rounding it would change nothing
        // but cost the most of the operator).
        if digits >= 0, exact.exponent >= -digits {
            rounded = exact
        } else {
            NSDecimalRound(&rounded, &value, digits, .plain)
        }
        return text(rounded, decimals: max(digits, 0), grouping: grouping, decimal: decimal)
    }

    /// `format`'s text from the decimal's parts (``DecimalParts``): its value in units of the last decimal
    /// shown, rounded half away from zero as `Decimal` rounds, written with the point put back. `nil` for
    /// digits below zero, or parts not at hand or past 64 bits once scaled: a price (`100120.50000000` to two
    /// decimals) is written without `Decimal`'s arithmetic, which allocates.
    static func quickText(_ exact: Decimal, digits: Int, grouping: String, decimal: String) -> String? {
        guard digits >= 0 else { return nil }
        var negative = false
        var units: UInt64 = 0
        if !exact.isZero {
            guard let parts = DecimalParts(exact) else { return nil }
            negative = parts.negative
            let shift = parts.exponent + digits
            if shift >= 0 {
                units = parts.mantissa
                for _ in 0..<shift {
                    let (product, overflow) = units.multipliedReportingOverflow(by: 10)
                    if overflow { return nil }
                    units = product
                }
            } else if -shift < 20 {
                // Past 19 digits dropped, what is dropped is below half a unit (a mantissa is below 2·10^19).
                var unit: UInt64 = 1
                for _ in 0..<(-shift) { unit *= 10 }
                let (whole, dropped) = parts.mantissa.quotientAndRemainder(dividingBy: unit)
                units = dropped >= unit - dropped ? whole + 1 : whole
            }
        }
        return written(negative: negative && units != 0, units: units, decimals: digits, grouping, decimal)
    }

    /// `units` in units of the last of `decimals` decimals, as ``grouped(negative:whole:fraction:decimals:_:_:)``
    /// writes it, its digits on the stack (at most 20, and 30 decimals).
    private static func written(negative: Bool, units: UInt64, decimals: Int, _ grouping: String, _ point: String)
        -> String
    {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
            // The digits from the end of the buffer back, at least one before the point.
            var first = buffer.count
            var rest = units
            repeat {
                first -= 1
                buffer[first] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            while buffer.count - first <= decimals {
                first -= 1
                buffer[first] = UInt8(ascii: "0")
            }
            let split = buffer.count - decimals
            return grouped(
                negative: negative, whole: buffer[first..<split], fraction: buffer[split...], decimals: decimals,
                grouping, point)
        }
    }

    /// The decimal separator that goes with a grouping separator when none is written: `","` after `"."`
    /// (`1.234,5`), else `"."`.
    static func decimalSeparator(forGrouping grouping: String) -> String {
        grouping == "." ? "," : "."
    }

    /// `value` as an exact number, when it is a finite number or text that reads as one.
    private static func readableNumber(_ value: JSONValue) -> Decimal? {
        switch value {
        case .int, .double, .decimal:
            return value.jsNumber.decimalValue
        case .string(let text) where !text.trimmingCharacters(in: .whitespaces).isEmpty:
            return value.jsNumber.decimalValue
        default:
            return nil
        }
    }

    /// Decimal places as an integer, kept within what `Decimal` can round to.
    private static func decimalPlaces(_ value: JSONValue) -> Int {
        let d = value.jsNumber.doubleValue
        guard d.isFinite else { return 0 }
        return Int(min(max(d.rounded(.towardZero), -30), 30))
    }

    /// `value` (already rounded) with exactly `decimals` decimals and grouped thousands.
    private static func text(_ value: Decimal, decimals: Int, grouping separator: String, decimal: String) -> String {
        let plain = Array(value.plainText.utf8)  // "-1234.5", never an exponent
        let (minus, dot, zero) = (UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "0"))
        let start = plain.first == minus ? 1 : 0
        let point = plain[start...].firstIndex(of: dot) ?? plain.endIndex
        let whole = plain[start..<point]
        let fraction = point < plain.endIndex ? plain[(point + 1)...] : []
        let negative =
            start == 1 && (whole.contains(where: { $0 != zero }) || fraction.contains(where: { $0 != zero }))
        return grouped(
            negative: negative, whole: whole, fraction: fraction, decimals: decimals, separator, decimal)
    }

    /// A number's text from its digits: `-` when `negative`, the whole digits with `grouping` between
    /// thousands, then `point` and exactly `decimals` of the fraction's digits (zeros after the last).
    private static func grouped(
        negative: Bool, whole: some Collection<UInt8>, fraction: some Collection<UInt8>, decimals: Int,
        _ grouping: String, _ point: String
    ) -> String {
        let capacity = 1 + whole.count + (whole.count / 3) * grouping.utf8.count + point.utf8.count + decimals
        return String(unsafeUninitializedCapacity: capacity) { out in
            var at = 0
            func put(_ byte: UInt8) {
                out[at] = byte
                at += 1
            }
            if negative { put(UInt8(ascii: "-")) }
            for (i, digit) in whole.enumerated() {
                if i > 0, (whole.count - i) % 3 == 0 { grouping.utf8.forEach(put) }
                put(digit)
            }
            if decimals > 0 {
                point.utf8.forEach(put)
                fraction.prefix(decimals).forEach(put)
                for _ in 0..<max(0, decimals - fraction.count) { put(UInt8(ascii: "0")) }
            }
            return at
        }
    }
}
