public import Foundation

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
