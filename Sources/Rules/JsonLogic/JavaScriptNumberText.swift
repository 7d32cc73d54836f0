import Foundation

/// JavaScript's conversions between numbers and text, which JsonLogic inherits from json-logic-js:
/// `Number("…")` (StringToNumber), `parseFloat` and `Number.prototype.toString`.
enum JavaScriptNumberText {
    /// `Number(text)`: the whole text, trimmed, must be a number; `""` is 0; anything else is `NaN`.
    static func number(from text: String) -> JsonLogicNumber {
        var trimmed = trim(text, trailing: true)
        if trimmed.isEmpty { return .int(0) }
        return trimmed.withUTF8 { bytes -> JsonLogicNumber in
            if let value = nonDecimalInteger(bytes) { return value }
            guard let literal = scanDecimal(bytes), literal.end == bytes.count else { return .nan }
            return convert(bytes, literal)
        }
    }

    /// `parseFloat(text)`: the longest decimal prefix after leading white space, or `NaN`.
    static func parseFloat(_ text: String) -> JsonLogicNumber {
        var trimmed = trim(text, trailing: false)
        return trimmed.withUTF8 { bytes -> JsonLogicNumber in
            guard let literal = scanDecimal(bytes) else { return .nan }
            return convert(UnsafeBufferPointer(rebasing: bytes[..<literal.end]), literal)
        }
    }

    /// `String(number)`: shortest round-trip digits, exponent notation only below 1e-6 or from 1e21.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        if value == 0 { return "0" }
        if value.rounded(.towardZero) == value, abs(value) < 1e15 { return String(Int(value)) }
        // Swift's description has the same shortest round-trip digits; only the layout differs.
        return layout(value.description)
    }

    /// A decimal laid out as JavaScript would print a number with the same digits.
    static func format(_ value: Decimal) -> String {
        if value.isNaN { return "NaN" }
        if value.isZero { return "0" }
        return layout(value.description)
    }

    private enum LiteralKind {
        case integer, fraction, infinity
    }

    private struct Literal {
        var end: Int
        var kind: LiteralKind
    }

    /// The longest StrDecimalLiteral at the start of `bytes`: `[+-]` then `Infinity`, or digits with an
    /// optional fraction and exponent.
    private static func scanDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Literal? {
        var i = 0
        if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
        let infinity = Array("Infinity".utf8)
        if bytes.count - i >= infinity.count, zip(bytes[i...], infinity).allSatisfy({ $0 == $1 }) {
            return Literal(end: i + infinity.count, kind: .infinity)
        }
        let integerStart = i
        while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        var digits = i - integerStart
        var kind = LiteralKind.integer
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            let fractionStart = i + 1
            var j = fractionStart
            while j < bytes.count, isDigit(bytes[j]) { j += 1 }
            if digits > 0 || j > fractionStart {
                digits += j - fractionStart
                kind = .fraction
                i = j
            }
        }
        guard digits > 0 else { return nil }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            var j = i + 1
            if j < bytes.count, bytes[j] == UInt8(ascii: "+") || bytes[j] == UInt8(ascii: "-") { j += 1 }
            let exponentStart = j
            while j < bytes.count, isDigit(bytes[j]) { j += 1 }
            if j > exponentStart {
                i = j
                kind = .fraction
            }
        }
        return Literal(end: i, kind: kind)
    }

    private static func convert(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: Literal) -> JsonLogicNumber {
        let text = String(decoding: bytes, as: UTF8.self)
        switch literal.kind {
        case .infinity:
            return .double(text.hasPrefix("-") ? -.infinity : .infinity)
        case .integer:
            if let i = Int(text) { return .int(i) }
            return .double(Double(text) ?? .nan)
        case .fraction:
            return .double(Double(text) ?? .nan)
        }
    }

    /// `0x1F`, `0o17`, `0b101` (no sign, whole text), as `Number()` accepts them.
    private static func nonDecimalInteger(_ bytes: UnsafeBufferPointer<UInt8>) -> JsonLogicNumber? {
        guard bytes.count > 2, bytes[0] == UInt8(ascii: "0") else { return nil }
        let radix: Int
        switch bytes[1] | 0x20 {
        case UInt8(ascii: "x"): radix = 16
        case UInt8(ascii: "o"): radix = 8
        case UInt8(ascii: "b"): radix = 2
        default: return nil
        }
        var exact: Int? = 0
        var approximate = 0.0
        for b in bytes[2...] {
            let digit: Int
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = Int(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = Int(b - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = Int(b - UInt8(ascii: "A")) + 10
            default: return .nan
            }
            guard digit < radix else { return .nan }
            approximate = approximate * Double(radix) + Double(digit)
            if let e = exact {
                let (shifted, o1) = e.multipliedReportingOverflow(by: radix)
                let (sum, o2) = shifted.addingReportingOverflow(digit)
                exact = o1 || o2 ? nil : sum
            }
        }
        return exact.map { .int($0) } ?? .double(approximate)
    }

    /// ECMAScript Number::toString layout of a number printed as `[-]digits[.digits][e±exp]`.
    private static func layout(_ text: String) -> String {
        var rest = Substring(text)
        let negative = rest.first == "-"
        if negative { rest = rest.dropFirst() }
        var exponent = 0
        if let e = rest.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(rest[rest.index(after: e)...]) ?? 0
            rest = rest[..<e]
        }
        let integerPart = rest.prefix { $0 != "." }
        let fractionPart = rest.dropFirst(integerPart.count + 1)
        var digits = Array(integerPart.utf8) + Array(fractionPart.utf8)
        // The value is 0.d1d2… × 10^n.
        var n = integerPart.utf8.count + exponent
        while digits.first == UInt8(ascii: "0") {
            digits.removeFirst()
            n -= 1
        }
        while digits.last == UInt8(ascii: "0") { digits.removeLast() }
        if digits.isEmpty { return "0" }
        let k = digits.count
        var out = negative ? "-" : ""
        let s = String(decoding: digits, as: UTF8.self)
        if k <= n && n <= 21 {
            out += s + String(repeating: "0", count: n - k)
        } else if 0 < n && n <= 21 {
            out += s.prefix(n) + "." + s.dropFirst(n)
        } else if -6 < n && n <= 0 {
            out += "0." + String(repeating: "0", count: -n) + s
        } else {
            let e = n - 1
            out += k == 1 ? s : s.prefix(1) + "." + s.dropFirst()
            out += (e < 0 ? "e-" : "e+") + String(abs(e))
        }
        return out
    }

    /// `text` without JavaScript white space and line terminators at the start (and end).
    private static func trim(_ text: String, trailing: Bool) -> Substring {
        let scalars = text.unicodeScalars
        var start = scalars.startIndex
        var end = scalars.endIndex
        while start < end, isWhitespace(scalars[start]) { start = scalars.index(after: start) }
        if trailing {
            while end > start, isWhitespace(scalars[scalars.index(before: end)]) { end = scalars.index(before: end) }
        }
        return Substring(scalars[start..<end])
    }

    private static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x20, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
            return true
        default:
            return false
        }
    }

    private static func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
}
