public import Foundation

/// A JSON value as LiveRelay moves it between stages: feed facts, rule data, content-states.
///
/// Numbers keep their kind: integers stay `Int` (scores), exact decimals stay `Decimal` (prices), and
/// everything else is a `Double`. Equality compares numbers by value, so `2`, `2.0` and `Decimal(2)` are
/// equal, which is what JsonLogic and the content-state ledger both need.
public enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case decimal(Decimal)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

extension JSONValue {
    /// The empty object.
    public static let emptyObject = JSONValue.object([:])

    /// True for `.int`, `.double` and `.decimal`.
    public var isNumber: Bool {
        switch self {
        case .int, .double, .decimal: return true
        default: return false
        }
    }

    /// The value as a `Double`, for numbers only.
    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .decimal(let d): return NSDecimalNumber(decimal: d).doubleValue
        default: return nil
        }
    }

    /// The value as an exact `Decimal`, for numbers only.
    public var decimalValue: Decimal? {
        switch self {
        case .int(let i): return Decimal(i)
        case .decimal(let d): return d
        case .double(let d): return d.isFinite ? Decimal(string: String(d)) : nil
        default: return nil
        }
    }

    /// The string payload, for strings only.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The object payload, for objects only.
    public var objectValue: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The array payload, for arrays only.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// A short name of the JSON type, for error messages ("string", "integer", "object", …).
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .int: return "integer"
        case .double, .decimal: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// Member lookup on objects; `nil` for other values or absent keys.
    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    /// Element lookup on arrays; `nil` for other values or an index out of range.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let a) = self, a.indices.contains(index) { return a[index] }
        return nil
    }
}

extension JSONValue: Equatable {
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.int, _), (.double, _), (.decimal, _):
            guard rhs.isNumber else { return false }
            return JSONValue.numbersEqual(lhs, rhs)
        default: return false
        }
    }

    private static func numbersEqual(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.decimal, _), (_, .decimal):
            guard let a = lhs.decimalValue, let b = rhs.decimalValue else { return false }
            return a == b
        default:
            return lhs.doubleValue == rhs.doubleValue
        }
    }
}

extension JSONValue: Hashable {
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b): hasher.combine(b)
        // Numbers that compare equal must hash equal: hash every number through one Double.
        case .int, .double, .decimal: hasher.combine(doubleValue ?? 0)
        case .string(let s): hasher.combine(s)
        case .array(let a): hasher.combine(a)
        case .object(let o): hasher.combine(o)
        }
    }
}

// No ExpressibleByNilLiteral: `optionalValue == nil` would then silently compare against `.null`.
extension JSONValue: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
