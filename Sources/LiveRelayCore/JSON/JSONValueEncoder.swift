public import Foundation

/// Encodes `Encodable` types straight into a `JSONValue`, the mirror of ``JSONValueDecoder``: what LiveRelay
/// keeps for itself (throttle states, the pushes in the outbox) is written through it and
/// ``JSONValue/jsonData(sortedKeys:)`` (``Swift/Encodable/compactJSON()``), and read back with ``JSONParser`` and ``JSONValueDecoder``. A
/// `JSONValue` inside (a content-state, attributes) is taken as it is, not walked through `Codable`, which is
/// where Foundation's coder spends most of its time on these values.
public struct JSONValueEncoder: Sendable {
    public init() {}

    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        if let json = value as? JSONValue { return json }
        let slot = Slot()
        try value.encode(to: ValueEncoder(slot: slot))
        return slot.value
    }
}

extension Encodable {
    /// This value as compact canonical JSON (sorted keys, slashes and non-ASCII as they are: what
    /// ``CanonicalJSON`` writes), made without Foundation's coder: what LiveRelay keeps for itself and what its
    /// API answers. Read it back with ``JSONValueDecoder/decode(_:stored:)``.
    public func compactJSON() throws -> Data { try JSONValueEncoder().encode(self).jsonData() }
}

extension JSONValueDecoder {
    /// A value written by ``Swift/Encodable/compactJSON()`` (or any JSON of the same shape).
    public func decode<T: Decodable>(_ type: T.Type, stored data: Data) throws -> T {
        try decode(type, from: try JSONParser.parse(data))
    }
}

/// Where one value is being built: a scalar, or an object or array whose members may still be built.
private final class Slot {
    var scalar: JSONValue?
    var members: [String: Slot]?
    var items: [Slot]?

    init() {}
    init(_ value: JSONValue) { scalar = value }

    var value: JSONValue {
        if let scalar { return scalar }
        if let items { return .array(items.map(\.value)) }
        return .object((members ?? [:]).mapValues(\.value))
    }
}

/// No coding path is built (nothing this encoder writes fails, and building one costs an array per value).
private struct ValueEncoder: Encoder {
    let slot: Slot
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if slot.members == nil {
            slot.scalar = nil
            slot.items = nil
            slot.members = [:]
        }
        return KeyedEncodingContainer(KeyedContainer<Key>(slot: slot))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if slot.items == nil {
            slot.scalar = nil
            slot.members = nil
            slot.items = []
        }
        return UnkeyedContainer(slot: slot)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleContainer(slot: slot) }

    /// `value` as a slot: scalars and `JSONValue`s at once, anything else through its own `encode(to:)`.
    static func slot<T: Encodable>(for value: T) throws -> Slot {
        if let scalar = scalar(value) { return Slot(scalar) }
        let slot = Slot()
        try value.encode(to: ValueEncoder(slot: slot))
        return slot
    }

    /// Told by the type itself, not by casting the value (a cast looks up conformances, and costs more
    /// than the rest of the encoding).
    static func scalar<T: Encodable>(_ value: T) -> JSONValue? {
        if T.self == JSONValue.self { return (value as! JSONValue) }
        if T.self == String.self { return .string(value as! String) }
        if T.self == Int.self { return .int(value as! Int) }
        if T.self == Bool.self { return .bool(value as! Bool) }
        if T.self == Double.self { return .double(value as! Double) }
        if T.self == Decimal.self { return .decimal(value as! Decimal) }
        if T.self == Float.self { return .double(Double(value as! Float)) }
        if T.self == URL.self { return .string((value as! URL).absoluteString) }
        return integer(value, Int8.self) ?? integer(value, Int16.self) ?? integer(value, Int32.self)
            ?? integer(value, Int64.self) ?? integer(value, UInt.self) ?? integer(value, UInt8.self)
            ?? integer(value, UInt16.self) ?? integer(value, UInt32.self) ?? integer(value, UInt64.self)
    }

    private static func integer<T, I: BinaryInteger>(_ value: T, _ type: I.Type) -> JSONValue? {
        guard T.self == I.self else { return nil }
        let int = value as! I
        return Int(exactly: int).map { .int($0) } ?? .double(Double(int))
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: Slot
    var codingPath: [any CodingKey] { [] }

    private func set(_ child: Slot, _ key: Key) { slot.members?[key.stringValue] = child }

    mutating func encodeNil(forKey key: Key) throws { set(Slot(.null), key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        set(try ValueEncoder.slot(for: value), key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = Slot()
        set(child, key)
        return ValueEncoder(slot: child).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = Slot()
        set(child, key)
        return ValueEncoder(slot: child).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let child = Slot()
        set(child, key)
        return ValueEncoder(slot: child)
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let slot: Slot
    var codingPath: [any CodingKey] { [] }
    var count: Int { slot.items?.count ?? 0 }

    private func append(_ child: Slot) { slot.items?.append(child) }

    mutating func encodeNil() throws { append(Slot(.null)) }

    mutating func encode<T: Encodable>(_ value: T) throws { append(try ValueEncoder.slot(for: value)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = Slot()
        append(child)
        return ValueEncoder(slot: child).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = Slot()
        append(child)
        return ValueEncoder(slot: child).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let child = Slot()
        append(child)
        return ValueEncoder(slot: child)
    }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let slot: Slot
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { slot.scalar = .null }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let made = try ValueEncoder.slot(for: value)
        slot.scalar = made.scalar
        slot.members = made.members
        slot.items = made.items
    }
}
