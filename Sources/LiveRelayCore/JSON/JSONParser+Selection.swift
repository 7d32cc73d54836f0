public import Foundation

/// Selective parsing: a document of which only a ``JSONSelection`` is built; the rest is checked as JSON
/// and skipped without building anything (no strings, no dictionaries).
extension JSONParser {
    /// Parses a whole JSON text but builds only the selected parts: everything else is checked and skipped.
    /// Members outside the selection are absent from the result, as if the document did not have them.
    public static func parse(
        _ data: Data, numbers: NumberMode = .double, selecting selection: JSONSelection
    ) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError> = data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self), numbers: numbers, map: nil)
            return Result { () throws(JSONParseError) in try parser.parseDocument(selection) }
        }
        return try result.get()
    }

    /// A value of which only `selection` is built.
    mutating func parseSelected(_ selection: JSONSelection) throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input: expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseSelectedObject(selection)
        case UInt8(ascii: "["): return try parseSelectedArray(selection)
        default: return try parseValue()
        }
    }

    private mutating func parseChild(_ child: JSONSelection) throws(JSONParseError) -> JSONValue {
        child.keepsAll ? try parseValue() : try parseSelected(child)
    }

    private mutating func parseSelectedObject(_ selection: JSONSelection) throws(JSONParseError) -> JSONValue {
        var object: [String: JSONValue] = [:]
        let keys = seenKeys.count
        try walkObject { (p: inout JSONParser) throws(JSONParseError) in
            // The key is matched by its bytes; text is made only for a selected member (or one with escapes).
            let keyStart = p.index + 1
            let plain = try p.skipString()
            try p.noteKey(SeenKey(start: keyStart - 1, end: p.index, plain: plain), since: keys)
            let keyBytes = UnsafeBufferPointer(rebasing: p.bytes[keyStart..<(p.index - 1)])
            let key: String?
            let child: JSONSelection?
            if plain {
                key = nil
                child = selection.member(bytes: keyBytes)
            } else {
                let end = p.index
                p.index = keyStart - 1
                key = try p.parseString()
                p.index = end
                child = selection.member(key!)
            }
            try p.expectColon(after: nil)
            if let child {
                object[key ?? String(decoding: keyBytes, as: UTF8.self)] = try p.parseChild(child)
            } else {
                try p.skipValue()
            }
        }
        seenKeys.removeSubrange(keys...)
        return .object(object)
    }

    private mutating func parseSelectedArray(_ selection: JSONSelection) throws(JSONParseError) -> JSONValue {
        var array: [JSONValue] = []
        try walkArray { (p: inout JSONParser, position: Int) throws(JSONParseError) in
            // An element outside the selection becomes null, so the positions of the others stay.
            let child = selection.hasNamedMembers ? selection.member(String(position)) : selection.member("")
            if let child {
                array.append(try p.parseChild(child))
            } else {
                try p.skipValue()
                array.append(.null)
            }
        }
        return .array(array)
    }

    /// Checks one value and moves past it without building anything.
    mutating func skipValue() throws(JSONParseError) {
        guard index < bytes.count else { throw error("unexpected end of input: expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            let keys = seenKeys.count
            try walkObject { (p: inout JSONParser) throws(JSONParseError) in
                let start = p.index
                let plain = try p.skipString()
                try p.noteKey(SeenKey(start: start, end: p.index, plain: plain), since: keys)
                try p.expectColon(after: nil)
                try p.skipValue()
            }
            seenKeys.removeSubrange(keys...)
        case UInt8(ascii: "["):
            try walkArray { (p: inout JSONParser, _: Int) throws(JSONParseError) in try p.skipValue() }
        case UInt8(ascii: "\""): _ = try skipString()
        case UInt8(ascii: "t"): try expectLiteral("true")
        case UInt8(ascii: "f"): try expectLiteral("false")
        case UInt8(ascii: "n"): try expectLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try parseNumber()
        default: throw error("unexpected \(describeByte(index)): expected a value")
        }
    }

    /// Checks a string and moves past it; true when it has no escapes (its bytes are its text).
    mutating func skipString() throws(JSONParseError) -> Bool {
        let start = index
        index += 1
        var plain = true
        while index < bytes.count {
            skipPlainBytes()
            guard index < bytes.count else { break }
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                // Skipped text is still checked: invalid UTF-8 is a JSON error wherever it is (a key matched
                // by its bytes included), never text repaired into a different key or value.
                guard JSONParser.isValidUTF8(UnsafeBufferPointer(rebasing: bytes[(start + 1)..<index])) else {
                    throw error("invalid UTF-8 in a string", at: start)
                }
                index += 1
                return plain
            }
            if b == UInt8(ascii: "\\") {
                plain = false
                index += 1
                guard index < bytes.count else { break }
                switch bytes[index] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 1
                case UInt8(ascii: "u"):
                    index += 1
                    _ = try readUnicodeEscape()
                default:
                    throw error("invalid escape in a string", at: index - 1)
                }
                continue
            }
            if b < 0x20 { throw error("control character in a string (escape it)") }
            index += 1
        }
        throw error("unterminated string", at: start)
    }

    /// Whether the bytes are valid UTF-8: eight ASCII bytes at a time, the standard library's check for the
    /// rest.
    static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var i = 0
        while i + 8 <= bytes.count {
            if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { break }
            i += 8
        }
        while i < bytes.count, bytes[i] < 0x80 { i += 1 }
        if i == bytes.count { return true }
        return String(validating: UnsafeBufferPointer(rebasing: bytes[i...]), as: UTF8.self) != nil
    }

    /// Refuses a key the object (its keys are `seenKeys[since...]`) already has, compared as text (escapes
    /// decoded), as a plain parse does; remembers it otherwise.
    mutating func noteKey(_ key: SeenKey, since first: Int) throws(JSONParseError) {
        var key = key
        key.hash = key.plain ? Self.fnv(UnsafeBufferPointer(rebasing: bytes[(key.start + 1)..<(key.end - 1)])) : 0
        if !key.plain { key.hash = Self.fnv(Array(try text(of: key).utf8)) }
        for seen in seenKeys[first...] where seen.hash == key.hash {
            let text = try text(of: key)
            if try self.text(of: seen) == text { throw error("duplicate key \"\(text)\"", at: key.start) }
        }
        seenKeys.append(key)
    }

    /// A key's text.
    private mutating func text(of key: SeenKey) throws(JSONParseError) -> String {
        if key.plain { return String(decoding: bytes[(key.start + 1)..<(key.end - 1)], as: UTF8.self) }
        let resume = index
        index = key.start
        defer { index = resume }
        return try parseString()
    }

    /// FNV-1a of some bytes.
    static func fnv(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }
}

/// A key of an object read without building it: where it is (its quotes), whether its bytes are its text
/// (no escapes), and a hash of its text.
struct SeenKey {
    var start: Int
    var end: Int
    var plain: Bool
    var hash: UInt64 = 0
}
