import Foundation

/// Decodes `Decodable` types straight from a `JSONValue`, so a config or rule file is parsed once (with its
/// source map) and never re-serialised. A failure carries the JSON Pointer of the offending value.
public struct JSONValueDecoder: Sendable {
    public init() {}

    /// A value that did not fit the type, and where.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var pointer: JSONPointer
        public var message: String
        public var description: String { "\(pointer): \(message)" }
    }

    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws(Failure) -> T {
        do {
            return try T(from: ValueDecoder(value: value, codingPath: []))
        } catch let failure as Failure {
            throw failure
        } catch let error as DecodingError {
            throw Failure(error)
        } catch {
            throw Failure(pointer: .root, message: "\(error)")
        }
    }
}

extension JSONValueDecoder.Failure {
    init(_ error: DecodingError) {
        func pointer(_ path: [any CodingKey]) -> JSONPointer {
            JSONPointer(tokens: path.map { $0.intValue.map(String.init) ?? $0.stringValue })
        }
        switch error {
        case .typeMismatch(_, let ctx), .valueNotFound(_, let ctx), .dataCorrupted(let ctx):
            self.init(pointer: pointer(ctx.codingPath), message: ctx.debugDescription)
        case .keyNotFound(let key, let ctx):
            self.init(pointer: pointer(ctx.codingPath), message: "missing required key \"\(key.stringValue)\"")
        @unknown default:
            self.init(pointer: .root, message: "\(error)")
        }
    }
}

private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}

private struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else { throw mismatch("an object") }
        return KeyedDecodingContainer(KeyedContainer<Key>(object: object, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let array) = value else { throw mismatch("an array") }
        return UnkeyedContainer(array: array, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleContainer(decoder: self) }

    func mismatch(_ expected: String) -> DecodingError {
        .typeMismatch(
            Any.self, .init(codingPath: codingPath, debugDescription: "expected \(expected), found \(value.typeName)"))
    }

    func decodeScalar<T: Decodable>(_ type: T.Type) throws -> T {
        switch (type, value) {
        case (is String.Type, .string(let s)): return s as! T
        case (is Bool.Type, .bool(let b)): return b as! T
        case (is Int.Type, .int(let i)): return i as! T
        case (is Int.Type, .double(let d)) where d == d.rounded() && abs(d) < 9e15: return Int(d) as! T
        case (is Double.Type, _) where value.isNumber: return value.doubleValue! as! T
        case (is Decimal.Type, _) where value.isNumber: return value.decimalValue! as! T
        case (is JSONValue.Type, _): return value as! T
        case (is String.Type, _): throw mismatch("a string")
        case (is Bool.Type, _): throw mismatch("a boolean")
        case (is Int.Type, _): throw mismatch("an integer")
        case (is Double.Type, _), (is Decimal.Type, _): throw mismatch("a number")
        default: return try T(from: self)
        }
    }
}

private struct SingleContainer: SingleValueDecodingContainer {
    let decoder: ValueDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    func decodeNil() -> Bool { decoder.value == .null }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeScalar(type) }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: [String: JSONValue]
    let codingPath: [any CodingKey]
    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

    func decodeNil(forKey key: Key) throws -> Bool { (object[key.stringValue] ?? .null) == .null }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard let value = object[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "missing"))
        }
        return try ValueDecoder(value: value, codingPath: codingPath + [key]).decodeScalar(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try ValueDecoder(value: object[key.stringValue] ?? .null, codingPath: codingPath + [key]).container(
            keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: object[key.stringValue] ?? .null, codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { ValueDecoder(value: .object(object), codingPath: codingPath) }
    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: object[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let array: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { array.count }
    var isAtEnd: Bool { currentIndex >= array.count }

    init(array: [JSONValue], codingPath: [any CodingKey]) {
        self.array = array
        self.codingPath = codingPath
    }

    private mutating func next() throws -> ValueDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any.self, .init(codingPath: codingPath, debugDescription: "unexpected end of array"))
        }
        defer { currentIndex += 1 }
        return ValueDecoder(value: array[currentIndex], codingPath: codingPath + [AnyKey(intValue: currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        if !isAtEnd, array[currentIndex] == .null {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decodeScalar(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    { try next().container(keyedBy: type) }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
    mutating func superDecoder() throws -> any Decoder { try next() }
}
