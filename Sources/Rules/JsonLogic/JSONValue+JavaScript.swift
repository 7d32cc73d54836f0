import Foundation
import LiveRelayCore

/// The JavaScript coercions json-logic-js relies on, applied to JSON values.
extension JSONValue {
    /// `ToNumber(value)`: `null` is 0, booleans 0 and 1, strings parsed whole (`""` is 0), arrays through
    /// their text (`[5]` is 5), objects `NaN`.
    var jsNumber: JsonLogicNumber {
        switch self {
        case .null: return .int(0)
        case .bool(let b): return .int(b ? 1 : 0)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .decimal(let d): return .decimal(d)
        case .string(let s): return JavaScriptNumberText.number(from: s)
        case .array: return JavaScriptNumberText.number(from: jsString)
        case .object: return .nan
        }
    }

    /// A value as an arithmetic operand: `ToNumber`, except that arrays and objects are not numbers (`NaN`),
    /// as the JsonLogic community has it (`{"+": [[1], 1]}` is an error, not 2).
    var jsonLogicOperand: JsonLogicNumber {
        switch self {
        case .array, .object: return .nan
        default: return jsNumber
        }
    }

    /// `parseFloat(value)`, as json-logic-js's `+` and `*` coerce: the leading number of the value's text.
    var jsParsedFloat: JsonLogicNumber {
        switch self {
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .decimal(let d): return .decimal(d)
        case .string(let s): return JavaScriptNumberText.parseFloat(s)
        case .array: return JavaScriptNumberText.parseFloat(jsString)
        case .null, .bool, .object: return .nan
        }
    }

    /// `String(value)`: numbers as JavaScript prints them, arrays joined with commas (`null` items empty),
    /// objects `[object Object]`.
    var jsString: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return JavaScriptNumberText.format(d)
        case .decimal(let d): return JavaScriptNumberText.format(d)
        case .string(let s): return s
        case .array(let items): return items.map(\.jsJoinElement).joined(separator: ",")
        case .object: return "[object Object]"
        }
    }

    /// How `Array.prototype.join` writes an element: `null` as nothing.
    var jsJoinElement: String {
        if case .null = self { return "" }
        return jsString
    }

    /// `ToPrimitive(value)`: arrays and objects become their text, everything else stays.
    var jsPrimitive: JSONValue {
        switch self {
        case .array, .object: return .string(jsString)
        default: return self
        }
    }

    /// JavaScript's `==`, except that two arrays or objects are equal when their contents are.
    func jsLooselyEquals(_ other: JSONValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.string(let x), .string(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.bool(let x), _): return JSONValue.int(x ? 1 : 0).jsLooselyEquals(other)
        case (_, .bool(let y)): return jsLooselyEquals(.int(y ? 1 : 0))
        case (.array, .array), (.object, .object), (.array, .object), (.object, .array): return self == other
        case (.array, _), (.object, _): return jsPrimitive.jsLooselyEquals(other)
        case (_, .array), (_, .object): return jsLooselyEquals(other.jsPrimitive)
        default: return JsonLogicNumber.compare(jsNumber, other.jsNumber) == 0
        }
    }

    /// JavaScript's `===`, except that two arrays or objects are equal when their contents are.
    func jsStrictlyEquals(_ other: JSONValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array, .array), (.object, .object): return self == other
        default:
            guard isNumber, other.isNumber else { return false }
            return JsonLogicNumber.compare(jsNumber, other.jsNumber) == 0
        }
    }

    /// `==` as the JsonLogic community's suites define it: two texts as texts, `null` equal to `null`; `null`
    /// against a number or boolean as 0 (`{"==": [null, 0]}` is true: a rule asking "is this fact missing"
    /// writes `{"===": [fact, null]}` or `exists`, which `check` says); `null` against a text is false;
    /// anything else as numbers. `nil` when a side is not a number (an array or an object on either side, a
    /// text that is no number against a number or boolean), which the operator raises as `{"type": "NaN"}`.
    func jsonLogicLooselyEquals(_ other: JSONValue) -> Bool? {
        switch (self, other) {
        case (.int(let x), .int(let y)): return x == y
        case (.null, .null): return true
        case (.null, .string), (.string, .null): return false
        case (.string(let x), .string(let y)): return x == y
        case (.array, _), (.object, _), (_, .array), (_, .object): return nil
        default:
            let x = jsonLogicOperand
            let y = other.jsonLogicOperand
            if x.isNaN || y.isNaN { return nil }
            return JsonLogicNumber.compare(x, y) == 0
        }
    }

    /// How `<`, `<=`, `>` and `>=` order two values in JsonLogic rules: two texts (or a text and `null`) as
    /// JavaScript does, by UTF-16 code units; anything else as numbers, raising `{"type": "NaN"}` for a side
    /// that is not one (an array, an object, a text that is no number).
    func jsonLogicOrder(_ other: JSONValue) -> JsonLogicOrder {
        switch (self, other) {
        case (.int(let x), .int(let y)):
            return .ordered(x < y ? -1 : (x == y ? 0 : 1))
        case (.string, .string), (.null, .string), (.string, .null):
            return jsCompare(other).map { .ordered($0) } ?? .unordered
        default:
            let x = jsonLogicOperand
            let y = other.jsonLogicOperand
            guard let order = JsonLogicNumber.compare(x, y) else { return .notANumber }
            return .ordered(order)
        }
    }

    /// True for `null`.
    var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// JavaScript's relational comparison: two texts compare by UTF-16 code units, anything else as numbers.
    /// -1, 0 or 1, or `nil` when a side is not a number (every `<`, `<=`, `>`, `>=` is then false).
    func jsCompare(_ other: JSONValue) -> Int? {
        if case .int(let x) = self, case .int(let y) = other { return x < y ? -1 : (x == y ? 0 : 1) }
        let lhs = jsPrimitive
        let rhs = other.jsPrimitive
        if case .string(let x) = lhs, case .string(let y) = rhs {
            var a = x.utf16.makeIterator()
            var b = y.utf16.makeIterator()
            while true {
                switch (a.next(), b.next()) {
                case (nil, nil): return 0
                case (nil, _): return -1
                case (_, nil): return 1
                case (let p?, let q?) where p != q: return p < q ? -1 : 1
                default: continue
                }
            }
        }
        return JsonLogicNumber.compare(lhs.jsNumber, rhs.jsNumber)
    }

    /// `value.length` where JavaScript has one: UTF-16 length of a string, count of an array.
    var jsLength: Int? {
        switch self {
        case .string(let s): return s.utf16.count
        case .array(let a): return a.count
        default: return nil
        }
    }
}

/// The outcome of ordering two values for `<`, `<=`, `>` and `>=`.
enum JsonLogicOrder {
    /// -1, 0 or 1.
    case ordered(Int)
    /// Neither below, equal nor above (`null` against a text that is no number): every comparison is false.
    case unordered
    /// A side is not a number: the comparison raises `{"type": "NaN"}`.
    case notANumber
}
