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
        let result: Result<JSONValue, JSONParseError> = data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self), numbers: numbers, map: nil)
            return Result { () throws(JSONParseError) in try parser.parseStreaming(key, element) }
        }
        return try result.get()
    }

    private mutating func parseStreaming(_ key: String, _ element: (Int, JSONValue) -> Void)
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
                    element(position, try q.parseValue())
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
