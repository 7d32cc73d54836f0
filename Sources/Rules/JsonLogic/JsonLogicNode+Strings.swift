import LiveRelayCore

extension JsonLogicNode {
    /// `merge`, `in`, `cat` and `substr`.
    static func collection(_ op: JsonLogicOperator, _ arguments: [JSONValue]) -> JSONValue {
        switch op {
        case .merge:
            var merged: [JSONValue] = []
            for value in arguments {
                if case .array(let items) = value { merged.append(contentsOf: items) } else { merged.append(value) }
            }
            return .array(merged)
        case .in:
            guard arguments.count >= 2 else { return .bool(false) }
            return .bool(contains(arguments[1], arguments[0]))
        case .cat:
            var text = ""
            for value in arguments { text += value.jsJoinElement }
            return .string(text)
        case .substr:
            return .string(substring(arguments))
        default:
            return .null
        }
    }

    /// `b.indexOf(a) !== -1`: an item of an array (strict equality) or a substring of a text; false for
    /// anything without `indexOf`.
    private static func contains(_ container: JSONValue, _ needle: JSONValue) -> Bool {
        switch container {
        case .array(let items):
            return items.contains { $0.jsStrictlyEquals(needle) }
        case .string(let text) where !text.isEmpty:
            let pattern = needle.jsString
            // Substring search on UTF-8 bytes matches code points exactly, as JavaScript does on code units.
            return pattern.isEmpty || Array(text.utf8).firstRange(of: Array(pattern.utf8)) != nil
        default:
            return false
        }
    }

    /// json-logic-js `substr(source, start, end)`: JavaScript's `String(source).substr(start, length)`,
    /// except that a negative `end` drops that many UTF-16 code units from the end.
    private static func substring(_ arguments: [JSONValue]) -> String {
        let units = Array((arguments.first?.jsString ?? "undefined").utf16)
        let start = arguments.count > 1 ? integer(arguments[1]) : 0
        let end: JSONValue? = arguments.count > 2 ? arguments[2] : nil
        let result: ArraySlice<UInt16>
        if let end, let order = end.jsCompare(.int(0)), order < 0 {
            let tail = substr(units[...], start: start, length: nil)
            result = substr(tail, start: 0, length: Double(tail.count) + integer(end))
        } else {
            result = substr(units[...], start: start, length: end.map(integer))
        }
        return String(decoding: result, as: UTF16.self)
    }

    /// `String.prototype.substr` on code units; `nil` length means "to the end".
    private static func substr(_ units: ArraySlice<UInt16>, start: Double, length: Double?) -> ArraySlice<UInt16> {
        let size = Double(units.count)
        let from = start < 0 ? max(size + start, 0) : min(start, size)
        let count = min(max(length ?? size, 0), size)
        let to = min(from + count, size)
        guard from < to else { return [] }
        return units[(units.startIndex + Int(from))..<(units.startIndex + Int(to))]
    }

    /// `ToIntegerOrInfinity`: the number truncated, `NaN` as 0.
    private static func integer(_ value: JSONValue) -> Double {
        let d = value.jsNumber.doubleValue
        return d.isNaN ? 0 : d.rounded(.towardZero)
    }
}
