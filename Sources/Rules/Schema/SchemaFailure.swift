import LiveRelayCore

/// A violation while it is being found: besides the text, what kind of failure it is, so that `anyOf` and
/// `oneOf` can merge or rank the failures of their alternatives.
struct SchemaFailure {
    enum Kind {
        /// The value's type is none of these.
        case type([SchemaType])
        /// The value is none of these (`enum`, `const`).
        case value([JSONValue])
        /// A required key is absent: this one.
        case missing(String)
        /// The `false` schema: the value may not be there at all.
        case forbidden
        case other
    }

    var path: InstancePath
    var atKey: Bool
    var message: String
    var kind: Kind

    init(_ path: InstancePath, _ message: String, atKey: Bool = false, kind: Kind = .other) {
        self.path = path
        self.atKey = atKey
        self.message = message
        self.kind = kind
    }

    var violation: SchemaViolation { SchemaViolation(pointer: path.pointer, atKey: atKey, message: message) }

    /// True when the failure is about the value at `path` itself, not about something inside it.
    func isAt(_ path: InstancePath) -> Bool { self.path.tokens == path.tokens }
}

extension SchemaFailure {
    static func typeMismatch(_ expected: [SchemaType], _ instance: JSONValue, _ path: InstancePath) -> SchemaFailure {
        let shown = expected.contains(.number) ? expected.filter { $0 != .integer } : expected
        let actual: String
        if expected.contains(.integer), instance.isNumber {
            actual = render(instance)  // "must be an integer, not 2.5"
        } else {
            actual = typePhrase(of: instance)
        }
        return SchemaFailure(
            path, "\(path.subject) must be \(listed(shown.map(\.phrase))), not \(actual)", atKey: true,
            kind: .type(expected))
    }

    /// `"event" must be one of "start", "update", "end", not "begin"`; `types` come from alternatives
    /// that wanted another type altogether.
    static func valueMismatch(
        _ allowed: [JSONValue], orTypes types: [SchemaType] = [], _ instance: JSONValue, _ path: InstancePath
    ) -> SchemaFailure {
        let expected: String
        if types.isEmpty {
            expected = allowed.count == 1 ? render(allowed[0]) : "one of " + allowed.map(render).joined(separator: ", ")
        } else {
            expected = listed(types.map(\.phrase) + allowed.map(render))
        }
        return SchemaFailure(
            path, "\(path.subject) must be \(expected), not \(render(instance))", kind: .value(allowed))
    }

    static func missing(_ key: String, _ path: InstancePath) -> SchemaFailure {
        SchemaFailure(path, "missing required key \(quoted(key))", atKey: true, kind: .missing(key))
    }

    static func unknownKey(_ key: String, suggestion: String?, _ path: InstancePath) -> SchemaFailure {
        var message = "unknown key \(quoted(key))"
        if let suggestion { message += " (did you mean \(quoted(suggestion))?)" }
        return SchemaFailure(path, message, atKey: true, kind: .forbidden)
    }

    static func forbidden(_ path: InstancePath) -> SchemaFailure {
        SchemaFailure(path, "\(path.subject) is not allowed", atKey: true, kind: .forbidden)
    }

    /// `"rules" must not be empty`, `"tags" must have at most 3 elements (got 5)`, or with `long`,
    /// `"id" must be at most 8 characters long (got 9)`.
    static func size(
        _ path: InstancePath, atLeast: Bool, _ limit: Int, _ noun: String, actual: Int, long: Bool = false
    ) -> SchemaFailure {
        if atLeast, limit == 1, actual == 0 { return SchemaFailure(path, "\(path.subject) must not be empty") }
        let bound = "\(atLeast ? "at least" : "at most") \(counted(limit, noun))"
        let requirement = long ? "be \(bound) long" : "have \(bound)"
        return SchemaFailure(path, "\(path.subject) must \(requirement) (got \(actual))")
    }

    /// A value as a message shows it: scalars as JSON (long strings shortened), containers by their type.
    static func render(_ value: JSONValue) -> String {
        switch value {
        case .array, .object: return typePhrase(of: value)
        default:
            let text = value.jsonString()
            return text.count > 60 ? String(text.prefix(57)) + "…\"" : text
        }
    }

    static func typePhrase(of value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int: return "an integer"
        case .double, .decimal: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    static func counted(_ n: Int, _ noun: String) -> String { n == 1 ? "1 \(noun)" : "\(n) \(noun)s" }

    /// `a`, `a or b`, `a, b or c` (or with `and`).
    static func listed(_ items: [String], _ conjunction: String = "or") -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " \(conjunction) " + items.last!
    }
}
