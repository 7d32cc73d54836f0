public import Foundation

/// A JSON text that is not valid JSON, with where it went wrong.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset of the problem.
    public var offset: Int
    /// 1-based line and column of the problem.
    public var location: SourceLocation
    /// What was wrong, in words.
    public var message: String
    /// True when the text went past a limit the caller set (``JSONParser/parseWithSourceMap(_:numbers:maxValues:)``)
    /// rather than being invalid JSON.
    public var pastLimit = false

    public var description: String { "\(location.line):\(location.column): \(message)" }
}

/// A byte-level JSON parser (RFC 8259) that keeps number kinds and, on request, where every value sits.
///
/// Config and rule files are parsed with a `SourceMap` so that every diagnostic can name its
/// `line:column`; feed bodies are parsed without one, as fast as possible.
public struct JSONParser: ~Copyable {
    /// How non-integer numbers are read.
    public enum NumberMode: Sendable {
        /// As `Double`: configs, and JsonLogic as json-logic-js reads it.
        case double
        /// As exact `Decimal`: feed bodies and rule files, where prices and thresholds must not pick up binary
        /// rounding (`0.1 + 0.2` is `0.3`).
        case decimal
    }

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    let numberMode: NumberMode
    var depth = 0
    var map: SourceMapBuilder?
    /// The keys of the objects being read without building them (a selective parse), innermost last, to
    /// refuse a key given twice there as everywhere: reused, so reading a large body allocates it once.
    var seenKeys: [SeenKey] = []
    private static let maxDepth = 512

    /// Parses a whole JSON text.
    public static func parse(_ data: Data, numbers: NumberMode = .double) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError> = data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self), numbers: numbers, map: nil)
            return Result { () throws(JSONParseError) in try parser.parseDocument() }
        }
        return try result.get()
    }

    /// Parses a whole JSON text from a string.
    public static func parse(_ text: String, numbers: NumberMode = .double) throws(JSONParseError) -> JSONValue {
        try parse(Data(text.utf8), numbers: numbers)
    }

    /// Parses a whole JSON text and records where each value and object key is. Duplicate object keys are
    /// an error in this mode: in a config or a rule file, the second one silently winning hides a mistake.
    /// At most `maxValues` values: past them it is an error where the next one starts (the map of every
    /// value's place is what costs memory for a file of millions of tiny values).
    public static func parseWithSourceMap(
        _ data: Data, numbers: NumberMode = .double, maxValues: Int = .max
    ) throws(JSONParseError) -> (JSONValue, SourceMap) {
        let result: Result<(JSONValue, SourceMap), JSONParseError> = data.withUnsafeBytes { raw in
            let buffer = raw.bindMemory(to: UInt8.self)
            var parser = JSONParser(bytes: buffer, numbers: numbers, map: SourceMapBuilder(maxValues: maxValues))
            return Result { () throws(JSONParseError) in
                let value = try parser.parseDocument()
                let builder = parser.map!
                return (value, SourceMap(bytes: Array(buffer), values: builder.values, keys: builder.keys))
            }
        }
        return try result.get()
    }

    init(bytes: UnsafeBufferPointer<UInt8>, numbers: NumberMode, map: SourceMapBuilder?) {
        self.bytes = bytes
        self.numberMode = numbers
        self.map = map
    }

    mutating func parseDocument(_ selection: JSONSelection? = nil) throws(JSONParseError) -> JSONValue {
        // A UTF-8 byte order mark is tolerated at the start.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        skipWhitespace()
        if index >= bytes.count { throw error("empty document: expected a JSON value") }
        let value: JSONValue
        if let selection, !selection.keepsAll {
            value = try parseSelected(selection)
        } else {
            value = try parseValue()
        }
        skipWhitespace()
        if index < bytes.count { throw error("unexpected \(describeByte(index)) after the JSON value") }
        return value
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input: expected a value") }
        if map != nil {
            map!.recordValue(at: index)
            if map!.values.count > map!.maxValues {
                var past = error("more than \(map!.maxValues) JSON values")
                past.pastLimit = true
                throw past
            }
        }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected \(describeByte(index)): expected a value")
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        var object: [String: JSONValue] = [:]
        try walkObject { (p: inout JSONParser) throws(JSONParseError) in
            let keyOffset = p.index
            let key = try p.parseString()
            if p.map != nil {
                if object[key] != nil { throw p.error("duplicate key \"\(key)\"", at: keyOffset) }
                p.map!.push(key, keyOffset: keyOffset)
            }
            try p.expectColon(after: key)
            // A key given twice is an error in every mode: which value a reader keeps differs between parsers.
            if object.updateValue(try p.parseValue(), forKey: key) != nil {
                throw p.error("duplicate key \"\(key)\"", at: keyOffset)
            }
            p.map?.pop()
        }
        return .object(object)
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        var array: [JSONValue] = []
        try walkArray { (p: inout JSONParser, position: Int) throws(JSONParseError) in
            p.map?.push(String(position), keyOffset: nil)
            array.append(try p.parseValue())
            p.map?.pop()
        }
        return .array(array)
    }

    /// Walks the object whose `{` is at `index`, checking the punctuation around its members: `member` is
    /// called at each key's opening quote and reads the key, the `:` (``expectColon(after:)``) and the value.
    mutating func walkObject(_ member: (inout JSONParser) throws(JSONParseError) -> Void) throws(JSONParseError) {
        try enter()
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error(
                    index < bytes.count
                        ? "expected a string key, found \(describeByte(index))"
                        : "unexpected end of input inside an object")
            }
            try member(&self)
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input inside an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                depth -= 1
                return
            }
            throw error("expected ',' or '}' in an object, found \(describeByte(index))")
        }
    }

    /// Walks the array whose `[` is at `index`, checking the punctuation around its elements: `element` is
    /// called at each element with its position and reads it.
    mutating func walkArray(_ element: (inout JSONParser, Int) throws(JSONParseError) -> Void) throws(JSONParseError) {
        try enter()
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return
        }
        var position = 0
        while true {
            skipWhitespace()
            try element(&self, position)
            position += 1
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input inside an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return
            }
            throw error("expected ',' or ']' in an array, found \(describeByte(index))")
        }
    }

    /// Moves past the `:` after an object key (and the whitespace around it).
    mutating func expectColon(after key: String?) throws(JSONParseError) {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
            throw error(key.map { "expected ':' after key \"\($0)\"" } ?? "expected ':' after an object key")
        }
        index += 1
        skipWhitespace()
    }

    /// Moves over string bytes that need no attention (no quote, backslash or control character), eight at
    /// a time: long strings (URLs, descriptions) are most of what a skipped subtree holds.
    @inline(__always)
    mutating func skipPlainBytes() {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        guard let base = bytes.baseAddress else { return }
        let raw = UnsafeRawPointer(base)
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let special =
                ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
            let found = special & highs
            if found != 0 {
                // The lowest flagged byte is exact (a borrow only carries upwards): stop right at it.
                index += found.trailingZeroBitCount >> 3
                return
            }
            index += 8
        }
    }

    mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > JSONParser.maxDepth { throw error("nesting deeper than \(JSONParser.maxDepth) levels") }
    }

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
                guard
                    let s = String(
                        validating: UnsafeBufferPointer(rebasing: bytes[contentStart..<index]), as: UTF8.self)
                else { throw error("invalid UTF-8 in a string", at: start) }
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

    mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let start = index
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end of input", at: start) }
        let matches = literal.withUTF8Buffer { lit in
            (0..<count).allSatisfy { bytes[start + $0] == lit[$0] }
        }
        guard matches else { throw error("invalid literal: expected \(literal)", at: start) }
        index += count
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    func describeByte(_ i: Int) -> String {
        let b = bytes[i]
        if b >= 0x21 && b < 0x7F { return "'\(Character(UnicodeScalar(b)))'" }
        return String(format: "byte 0x%02X", b)
    }

    func error(_ message: String, at offset: Int? = nil) -> JSONParseError {
        let at = min(offset ?? index, bytes.count)
        return JSONParseError(offset: at, location: SourceLocation.of(offset: at, in: bytes), message: message)
    }
}

/// Collects value and key offsets by JSON Pointer while parsing.
struct SourceMapBuilder {
    var maxValues: Int = .max
    var path: [String] = []
    var values: [String: Int] = [:]
    var keys: [String: Int] = [:]

    var pointer: String { path.isEmpty ? "" : "/" + path.joined(separator: "/") }

    mutating func recordValue(at offset: Int) { values[pointer] = offset }

    mutating func push(_ token: String, keyOffset: Int?) {
        path.append(JSONPointer.escape(token))
        if let keyOffset { keys[pointer] = keyOffset }
    }

    mutating func pop() { path.removeLast() }
}
