import Foundation

/// Strings (with their escapes) and numbers (by ``JSONParser/NumberMode``), read byte by byte.
extension JSONParser {
    mutating func parseString() throws(JSONParseError) -> String {
        let start = index
        index += 1
        let contentStart = index
        // Fast path: no escapes.
        while index < bytes.count {
            skipPlainBytes()
            guard index < bytes.count else { break }
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                guard let s = Self.string(UnsafeBufferPointer(rebasing: bytes[contentStart..<index])) else {
                    throw error("invalid UTF-8 in a string", at: start)
                }
                index += 1
                return s
            }
            if b == UInt8(ascii: "\\") { break }
            if b < 0x20 { throw error("control character in a string (escape it)") }
            index += 1
        }
        var scalars = Array(bytes[contentStart..<index])
        while index < bytes.count {
            let b = bytes[index]
            switch b {
            case UInt8(ascii: "\""):
                index += 1
                guard let s = String(validating: scalars, as: UTF8.self) else {
                    throw error("invalid UTF-8 in a string", at: start)
                }
                return s
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { break }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): scalars.append(0x22)
                case UInt8(ascii: "\\"): scalars.append(0x5C)
                case UInt8(ascii: "/"): scalars.append(0x2F)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"): try appendUnicodeEscape(to: &scalars)
                default: throw error("invalid escape '\\\(Character(UnicodeScalar(e)))' in a string", at: index - 2)
                }
            default:
                if b < 0x20 { throw error("control character in a string (escape it)") }
                scalars.append(b)
                index += 1
            }
        }
        throw error("unterminated string", at: start)
    }

    /// The string of `bytes`, or `nil` when they are not UTF-8. ASCII (most of JSON: keys, tokens, numbers
    /// as text) is taken as it is: `String(validating:as:)` looks up its generic metadata on every call, a
    /// fifth of the time a token file of a million strings took to read.
    static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        if isASCII(bytes) { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Whether every byte is below 0x80, eight at a time.
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var high: UInt64 = 0
        var i = 0
        while i + 8 <= bytes.count {
            high |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < bytes.count {
            high |= UInt64(bytes[i])
            i += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }

    private mutating func appendUnicodeEscape(to out: inout [UInt8]) throws(JSONParseError) {
        let code = try readUnicodeEscape()
        out.append(contentsOf: Array(String(UnicodeScalar(code)!).utf8))
    }

    /// The code point of a `\uXXXX` escape (two of them for a surrogate pair), from just after the `u`. A lone
    /// or misordered surrogate is an error here, so that a string skipped unbuilt is refused like a built one.
    mutating func readUnicodeEscape() throws(JSONParseError) -> UInt32 {
        var code = try readHex4()
        if (0xD800...0xDBFF).contains(code) {
            // A high surrogate must be followed by an escaped low surrogate.
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else { throw error("lone high surrogate in a \\u escape") }
            index += 2
            let low = try readHex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid low surrogate in a \\u escape") }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(code) {
            throw error("lone low surrogate in a \\u escape")
        }
        return code
    }

    mutating func readHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let digit: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in a \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number", at: start) }
        // The digits of the mantissa, read as they pass while they fit a UInt64 (19 digits always do).
        var significand: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        func take(_ b: UInt8) {
            if digits < 19 { significand = significand &* 10 &+ UInt64(b &- UInt8(ascii: "0")) }
            digits += 1
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw error("leading zero in a number", at: start) }
        } else {
            while index < bytes.count, isDigit(bytes[index]) {
                take(bytes[index])
                index += 1
            }
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected digits after '.'") }
            while index < bytes.count, isDigit(bytes[index]) {
                // Leading zeros of a fraction (0.0001) are no significant digits.
                if digits > 0 || bytes[index] != UInt8(ascii: "0") { take(bytes[index]) }
                fractionDigits += 1
                index += 1
            }
        }
        var exponent = 0
        var exponentDigits = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            var negativeExponent = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                negativeExponent = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected digits in exponent") }
            while index < bytes.count, isDigit(bytes[index]) {
                if exponentDigits < 6 { exponent = exponent * 10 + Int(bytes[index] - UInt8(ascii: "0")) }
                exponentDigits += 1
                index += 1
            }
            if negativeExponent { exponent = -exponent }
        }
        // Fast paths, without making text: integers that fit, and exact decimals of up to 19 digits.
        if isInteger, digits <= 18 {
            let value = Int(significand)
            return .int(negative ? -value : value)
        }
        if numberMode == .decimal, !isInteger, digits <= 19, exponentDigits <= 6 {
            let scale = exponent - fractionDigits
            if scale >= -127, scale <= 127 {
                return .decimal(
                    Decimal(
                        sign: negative && significand != 0 ? .minus : .plus, exponent: scale,
                        significand: Decimal(significand)))
            }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let i = Int(text) { return .int(i) }
        if numberMode == .decimal, let d = Decimal(string: text, locale: JSONParser.posix), !d.isNaN {
            return .decimal(d)
        }
        // JSON has no infinity: a number too large for a Double (1e999) is refused, not read as one.
        guard let d = Double(text), d.isFinite else { throw error("number out of range", at: start) }
        return .double(d)
    }

    private static let posix = Locale(identifier: "en_US_POSIX")

    private func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
}
