public import Foundation

/// Streaming one array: a file of a million entries is read one entry at a time, never held whole.
extension JSONParser {
    /// Parses a document whose top level is an object, handing each element of the array under `key` to
    /// `element` (with its position) as soon as it is read, without keeping it. Returns the object's other
    /// members. The same checks as ``parse(_:numbers:)``: a key given twice, anything after the value, and
    /// `key` holding something other than an array are errors where they are.
    public static func parse(
        _ data: Data, numbers: NumberMode = .double, streaming key: String, _ element: (Int, JSONValue) -> Void
    ) throws(JSONParseError) -> JSONValue {
        try parse(data, numbers: numbers, streaming: key) { position, _, value in element(position, value) }
    }

    /// ``parse(_:numbers:streaming:_:)``, telling each element's byte offset in `data` too: where
    /// ``parseElements(_:numbers:from:count:_:)`` can read it (and those after it) again.
    public static func parse(
        _ data: Data, numbers: NumberMode = .double, streaming key: String,
        _ element: (_ position: Int, _ offset: Int, _ value: JSONValue) -> Void
    ) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError> = data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self), numbers: numbers, map: nil)
            return Result { () throws(JSONParseError) in try parser.parseStreaming(key, element) }
        }
        return try result.get()
    }

    /// Reads again `count` elements of an array of `data` that a streaming parse read, the first at the
    /// byte `offset` it told: a file's elements a slice at a time, none kept between slices.
    public static func parseElements(
        _ data: Data, numbers: NumberMode = .double, from offset: Int, count: Int, _ element: (JSONValue) -> Void
    ) throws(JSONParseError) {
        let result: Result<Void, JSONParseError> = data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self), numbers: numbers, map: nil)
            parser.index = offset
            return Result { () throws(JSONParseError) in
                for read in 0..<count {
                    if read > 0 {
                        parser.skipWhitespace()
                        guard parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: ",") else {
                            throw parser.error("expected ',' between the array's elements")
                        }
                        parser.index += 1
                        parser.skipWhitespace()
                    }
                    element(try parser.parseValue())
                }
            }
        }
        try result.get()
    }

    private mutating func parseStreaming(_ key: String, _ element: (Int, Int, JSONValue) -> Void)
        throws(JSONParseError) -> JSONValue
    {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else {
            throw error(index < bytes.count ? "expected an object, found \(describeByte(index))" : "empty document")
        }
        var object: [String: JSONValue] = [:]
        var streamed = false
        try walkObject { (p: inout JSONParser) throws(JSONParseError) in
            let keyOffset = p.index
            let name = try p.parseString()
            try p.expectColon(after: name)
            if name == key {
                if streamed { throw p.error("duplicate key \"\(name)\"", at: keyOffset) }
                streamed = true
                guard p.index < p.bytes.count, p.bytes[p.index] == UInt8(ascii: "[") else {
                    throw p.error("\"\(name)\" must be an array")
                }
                try p.walkArray { (q: inout JSONParser, position: Int) throws(JSONParseError) in
                    let offset = q.index
                    element(position, offset, try q.parseValue())
                }
            } else if object.updateValue(try p.parseValue(), forKey: name) != nil {
                throw p.error("duplicate key \"\(name)\"", at: keyOffset)
            }
        }
        skipWhitespace()
        if index < bytes.count { throw error("unexpected \(describeByte(index)) after the JSON value") }
        return .object(object)
    }
}
