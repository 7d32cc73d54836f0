import Foundation
import LiveRelayCore

/// A value inside a feed body with the JSON Pointer that leads to it, so that every complaint about a
/// body names the exact place: `/events/13/competitions/0/competitors/1/score is null`.
struct BodyNode: Sendable {
    let value: JSONValue
    let pointer: JSONPointer

    init(_ value: JSONValue, at pointer: JSONPointer = .root) {
        self.value = value
        self.pointer = pointer
    }

    /// Parses a whole body, numbers as exact decimals. A body that is not JSON (an HTML error page, an empty
    /// or truncated body) fails with `invalid_json` and the start of the body.
    /// With a selection, only those parts are built (the rest is checked and skipped).
    static func parse(_ body: Data, selecting selection: JSONSelection = .everything) throws(NormalizationFailure)
        -> BodyNode
    {
        do {
            return BodyNode(try JSONParser.parse(body, numbers: .decimal, selecting: selection))
        } catch {
            throw NormalizationFailure(
                kind: .invalidJSON, message: "body is not valid JSON (\(error)); \(preview(body))")
        }
    }

    /// The start of a body that is not JSON, so an HTML error page is recognisable in the log.
    static func preview(_ body: Data) -> String {
        if body.isEmpty { return "the body is empty" }
        let text = String(decoding: body.prefix(60), as: UTF8.self)
            .replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ")
        return "it starts with \"\(text)\(body.count > 60 ? "…" : "")\" (\(body.count) bytes)"
    }

    /// Where this value is, for messages.
    var place: String { pointer.tokens.isEmpty ? "the document root" : pointer.description }

    /// A member that may be missing; `nil` when it is missing or `null`.
    func optional(_ key: String) -> BodyNode? {
        guard let v = value[key], v != .null else { return nil }
        return BodyNode(v, at: pointer.appending(key))
    }

    /// A member that must be there and not be `null`.
    func member(_ key: String) throws(NormalizationFailure) -> BodyNode {
        guard let v = value[key] else { throw .shape("\(pointer.appending(key)) is missing") }
        guard v != .null else { throw .shape("\(pointer.appending(key)) is null") }
        return BodyNode(v, at: pointer.appending(key))
    }

    /// A member of the document root that tells what the body is; its absence means the body is something
    /// else altogether: `the body is not a Kraken ticker: no "result" at the document root (it has price, …)`.
    func member(_ key: String, of what: String) throws(NormalizationFailure) -> BodyNode {
        guard case .object(let members) = value else {
            throw .shape("the body is not \(what): \(place) is \(FieldConversion.describe(value))")
        }
        guard members[key] != nil else {
            let keys = members.keys.sorted()
            let shown = keys.prefix(5).joined(separator: ", ") + (keys.count > 5 ? ", …" : "")
            throw .shape(
                "the body is not \(what): no \"\(key)\" at \(place) (\(keys.isEmpty ? "it is empty" : "it has \(shown)"))"
            )
        }
        return try member(key)
    }

    /// The elements of an array.
    func elements() throws(NormalizationFailure) -> [BodyNode] {
        guard case .array(let items) = value else { throw mismatch("an array") }
        return items.enumerated().map { BodyNode($0.element, at: pointer.appending(String($0.offset))) }
    }

    /// The members of an object, sorted by name.
    func members() throws(NormalizationFailure) -> [(key: String, node: BodyNode)] {
        guard case .object(let object) = value else { throw mismatch("an object") }
        return object.keys.sorted().map { ($0, BodyNode(object[$0]!, at: pointer.appending($0))) }
    }

    /// The value converted to a fact type (numeric strings accepted for numbers, decimals exact).
    func fact(_ type: FieldType) throws(NormalizationFailure) -> JSONValue {
        guard let converted = FieldConversion.convert(value, to: type) else { throw mismatch(Self.phrase(type)) }
        return converted
    }

    /// A non-empty string.
    func string() throws(NormalizationFailure) -> String {
        guard case .string(let s) = value, !s.isEmpty else { throw mismatch("a non-empty string") }
        return s
    }

    /// An integer (a numeric string accepted).
    func int() throws(NormalizationFailure) -> Int {
        guard case .int(let i) = try fact(.int) else { throw mismatch("an integer") }
        return i
    }

    /// An exact decimal, from a decimal string or a number.
    func decimal() throws(NormalizationFailure) -> Decimal {
        guard case .decimal(let d) = try fact(.decimal) else { throw mismatch("a decimal number") }
        return d
    }

    /// A complaint that this value is not what was expected.
    func mismatch(_ expected: String) -> NormalizationFailure {
        .shape("\(place) is \(FieldConversion.describe(value)), expected \(expected)")
    }

    private static func phrase(_ type: FieldType) -> String {
        switch type {
        case .int: "an integer"
        case .decimal: "a decimal number"
        case .string: "a string"
        case .bool: "a boolean"
        case .time: "a time (ISO 8601 or UNIX seconds)"
        }
    }
}

extension NormalizationFailure {
    /// The same failure, naming the entity it concerns first: `event "760499": …`.
    func about(_ entity: String) -> NormalizationFailure {
        NormalizationFailure(kind: kind, message: "\(entity): \(message)")
    }
}
