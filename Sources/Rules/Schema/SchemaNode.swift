import Foundation
import LiveRelayCore

/// One compiled (sub)schema. Subschemas are referred to by their index in `JSONSchema.nodes`, which lets
/// `$ref` form cycles (recursive schemas) without reference types.
struct SchemaNode: Sendable {
    /// Where the schema sits in the schema document, as a JSON Pointer.
    var location: String
    /// The `false` schema: nothing is valid.
    var isFalse = false

    var ref: Int?
    var types: [SchemaType]?
    var allowedValues: [JSONValue]?
    var constant: JSONValue?

    var minimum: Bound?
    var maximum: Bound?
    var exclusiveMinimum: Bound?
    var exclusiveMaximum: Bound?

    var minLength: Int?
    var maxLength: Int?
    var pattern: Pattern?

    var prefixItems: [Int] = []
    var items: Int?
    var minItems: Int?
    var maxItems: Int?
    var uniqueItems = false

    /// Named properties, by name.
    var properties: [String: Int] = [:]
    var required: [String] = []
    var patternProperties: [(pattern: Pattern, node: Int)] = []
    var additionalProperties: Int?
    var propertyNames: Int?
    var minProperties: Int?
    var maxProperties: Int?

    var allOf: [Int] = []
    var anyOf: [Int] = []
    var oneOf: [Int] = []
    var not: Int?
    var ifNode: Int?
    var thenNode: Int?
    var elseNode: Int?
    /// Keys whose values decide `if`, when `if` is a plain test of member values; they are named in the
    /// messages of `then` ("required when "event" is "start"").
    var conditionKeys: [String] = []

    init(location: String) { self.location = location }
}

/// The seven JSON Schema primitive types.
enum SchemaType: String, Sendable, CaseIterable {
    case null, boolean, object, array, number, integer, string

    /// Whether `value` is of this type. `integer` accepts integral numbers of any representation.
    func accepts(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (.null, .null), (.boolean, .bool), (.object, .object), (.array, .array), (.string, .string):
            return true
        case (.number, _): return value.isNumber
        case (.integer, .int): return true
        case (.integer, .double(let d)): return d.isFinite && d == d.rounded()
        case (.integer, .decimal(let d)): return d == d.roundedToInteger()
        default: return false
        }
    }

    /// The narrowest type of `value`: `integer` for integral numbers of any representation.
    static func of(_ value: JSONValue) -> SchemaType {
        switch value {
        case .null: .null
        case .bool: .boolean
        case .object: .object
        case .array: .array
        case .string: .string
        case .int, .double, .decimal: integer.accepts(value) ? .integer : .number
        }
    }

    /// The type with an article, as a message names it: "a string", "an object", "null".
    var phrase: String {
        switch self {
        case .null: return "null"
        case .object, .array, .integer: return "an \(rawValue)"
        default: return "a \(rawValue)"
        }
    }
}

/// A numeric limit, kept both as a number to compare with and as the text the schema author wrote.
struct Bound: Sendable {
    var value: Double
    var text: String
}

/// A compiled regular expression. JSON Schema patterns are not anchored: they match anywhere.
struct Pattern: Sendable {
    var source: String
    var regex: NSRegularExpression

    init(_ source: String) throws {
        self.source = source
        self.regex = try NSRegularExpression(pattern: source)
    }

    func matches(_ string: String) -> Bool {
        regex.firstMatch(in: string, range: NSRange(string.startIndex..., in: string)) != nil
    }
}

extension Decimal {
    fileprivate func roundedToInteger() -> Decimal {
        var input = self
        var result = Decimal()
        NSDecimalRound(&result, &input, 0, .plain)
        return result
    }
}
