import Foundation
import LiveRelayCore

/// Converts raw feed values to a fact type, or refuses. Never goes through `Double` for decimals.
enum FieldConversion {
    static func convert(_ raw: JSONValue, to type: FieldType) -> JSONValue? {
        switch type {
        case .int:
            switch raw {
            case .int: return raw
            case .decimal(let d):
                var rounded = Decimal()
                var copy = d
                NSDecimalRound(&rounded, &copy, 0, .plain)
                // Outside 64 bits, `int64Value` wraps around (2^64 + 1 would read as 1): not an integer here.
                guard rounded == d, d >= Decimal(Int.min), d <= Decimal(Int.max) else { return nil }
                return Int(exactly: NSDecimalNumber(decimal: d).int64Value).map { JSONValue.int($0) }
            case .double(let d): return d == d.rounded() && abs(d) < 9e15 ? .int(Int(d)) : nil
            case .string(let s):
                if let i = Int(s) { return .int(i) }  // the usual case: no spaces to trim
                return Int(s.trimmingCharacters(in: .whitespaces)).map { .int($0) }
            default: return nil
            }
        case .decimal:
            switch raw {
            case .int(let i): return .decimal(Decimal(i))
            case .decimal: return raw
            case .double: return raw.decimalValue.map { .decimal($0) }
            case .string(let s): return parseDecimal(s).map { .decimal($0) }
            default: return nil
            }
        case .string:
            switch raw {
            case .string: return raw
            case .int, .decimal, .double: return .string(raw.jsonString())
            default: return nil
            }
        case .bool:
            switch raw {
            case .bool: return raw
            case .string("true"): return .bool(true)
            case .string("false"): return .bool(false)
            default: return nil
            }
        case .time:
            switch raw {
            case .string(let s): return ISO8601.parse(s).map { .int($0) }
            case .int(let i): return .int(i > 100_000_000_000 ? i / 1000 : i)
            case .decimal, .double:
                guard let d = raw.doubleValue, d.isFinite else { return nil }
                // Beyond 64 bits `Int(_:)` traps: such a time is no time, not a crash.
                return Int(exactly: (d > 100_000_000_000 ? d / 1000 : d).rounded(.towardZero)).map { .int($0) }
            default: return nil
            }
        }
    }

    /// A strict decimal: optional sign, digits, optional fraction and exponent; nothing else.
    static func parseDecimal(_ text: String) -> Decimal? {
        let s =
            text.first?.isWhitespace == true || text.last?.isWhitespace == true
            ? text.trimmingCharacters(in: .whitespaces) : text
        guard isStrictDecimal(s.utf8) else { return nil }
        return Decimal(string: s, locale: posix)
    }

    private static let posix = Locale(identifier: "en_US_POSIX")

    /// `[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?`, checked byte by byte (a price feed has one per
    /// field per body).
    static func isStrictDecimal(_ text: String.UTF8View) -> Bool {
        var it = text.makeIterator()
        var c = it.next()
        func isDigit(_ c: UInt8?) -> Bool { c.map { $0 >= 48 && $0 <= 57 } ?? false }
        if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") { c = it.next() }
        var mantissaDigits = 0
        while isDigit(c) {
            mantissaDigits += 1
            c = it.next()
        }
        if c == UInt8(ascii: ".") {
            c = it.next()
            while isDigit(c) {
                mantissaDigits += 1
                c = it.next()
            }
        }
        guard mantissaDigits > 0 else { return false }
        if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
            c = it.next()
            if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") { c = it.next() }
            guard isDigit(c) else { return false }
            while isDigit(c) { c = it.next() }
        }
        return c == nil
    }

    static func describe(_ raw: JSONValue) -> String {
        switch raw {
        case .string(let s): return "the string \"\(s.prefix(40))\""
        case .object, .array: return "an \(raw.typeName)"
        default: return "\(raw.typeName) \(raw.jsonString())"
        }
    }
}
