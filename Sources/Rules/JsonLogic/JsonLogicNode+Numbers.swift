import Foundation
import LiveRelayCore

extension JsonLogicNode {
    /// `round` and `format`, LiveRelay's operators for numbers people read, computed exactly in `Decimal`:
    /// - `{"round": [x, digits]}`: `x` rounded to `digits` decimal places (0 when left out; negative rounds
    ///   to tens, hundreds, …), halves away from zero; an integer when `digits` ≤ 0.
    /// - `{"format": [x, digits, separator]}`: the text of `x` rounded so, with exactly `digits` decimals
    ///   and its thousands grouped with `separator` (`","` when left out, `""` for none):
    ///   `{"format": [100150.5, 2]}` is `"100,150.50"`.
    /// A value that is not a number is read as JavaScript's `Number()` reads it; `NaN` and infinities stay
    /// (`round`) or are written as JavaScript writes them (`format`).
    static func numbers(_ op: JsonLogicOperator, _ arguments: [JSONValue]) -> JSONValue {
        let number = (arguments.first ?? .null).jsNumber
        let digits = arguments.count > 1 ? decimalPlaces(arguments[1]) : 0
        guard let exact = number.decimalValue else {
            return op == .round ? number.json : .string(JavaScriptNumberText.format(number.doubleValue))
        }
        var value = exact
        var rounded = Decimal()
        NSDecimalRound(&rounded, &value, digits, .plain)
        if op == .round {
            if digits <= 0, let integer = Int(exactly: NSDecimalNumber(decimal: rounded).doubleValue),
                Decimal(integer) == rounded
            {
                return .int(integer)
            }
            return .decimal(rounded)
        }
        let separator = arguments.count > 2 ? arguments[2].jsString : ","
        return .string(text(rounded, decimals: max(digits, 0), separator: separator))
    }

    /// Decimal places as an integer, kept within what `Decimal` can round to.
    private static func decimalPlaces(_ value: JSONValue) -> Int {
        let d = value.jsNumber.doubleValue
        guard d.isFinite else { return 0 }
        return Int(min(max(d.rounded(.towardZero), -30), 30))
    }

    /// `value` (already rounded) with exactly `decimals` decimals and grouped thousands.
    private static func text(_ value: Decimal, decimals: Int, separator: String) -> String {
        var plain = NSDecimalNumber(decimal: value).stringValue  // "-1234.5", never an exponent for these
        let negative = plain.hasPrefix("-")
        if negative { plain.removeFirst() }
        let parts = plain.split(separator: ".", maxSplits: 1).map(String.init)
        let whole = parts[0]
        var fraction = parts.count > 1 ? parts[1] : ""
        fraction += String(repeating: "0", count: max(0, decimals - fraction.count))
        var grouped = ""
        for (i, digit) in whole.enumerated() {
            if i > 0, (whole.count - i) % 3 == 0 { grouped += separator }
            grouped.append(digit)
        }
        let sign = negative && (whole.contains { $0 != "0" } || fraction.contains { $0 != "0" }) ? "-" : ""
        return sign + grouped + (decimals > 0 ? "." + fraction.prefix(decimals) : "")
    }
}
