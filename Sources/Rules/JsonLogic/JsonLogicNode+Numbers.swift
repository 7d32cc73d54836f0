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
        let grouping = arguments.count > 2 ? arguments[2].jsString : ","
        let decimal = arguments.count > 3 ? arguments[3].jsString : decimalSeparator(forGrouping: grouping)
        return .string(text(rounded, decimals: max(digits, 0), grouping: grouping, decimal: decimal))
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
        var plain = value.plainText  // "-1234.5", never an exponent
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
        return sign + grouped + (decimals > 0 ? decimal + fraction.prefix(decimals) : "")
    }
}
