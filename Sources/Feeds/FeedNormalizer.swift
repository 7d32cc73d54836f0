public import Foundation
public import LiveRelayCore

/// Turns one feed body into facts per entity: the generic JSON mapping and every preset conform.
///
/// A normaliser is all or nothing: any problem fails the whole body, so a half-read body never looks like
/// facts that disappeared.
public protocol FeedNormalizer: Sendable {
    /// The facts of every entity in `body`, keyed by entity id.
    func normalize(_ body: Data) throws(NormalizationFailure) -> [String: Facts]
    /// The facts it provides, by dotted name, with their types, when it knows them ahead of any body (a
    /// generic mapping does); `nil` when it does not say.
    var factFields: [String: FactField]? { get }
    /// Every fact it can give an entity, with its type and meaning; `nil` when it does not say.
    var factCatalogue: [FactDescription]? { get }
}

extension FeedNormalizer {
    public var factFields: [String: FactField]? { nil }
    public var factCatalogue: [FactDescription]? { nil }

    /// The longest entity id kept, in UTF-8 bytes: the token API takes no longer one, so such an entity
    /// could never be followed, and its id would go into every log line about it.
    public static var maxEntityIDBytes: Int { 128 }

    /// ``normalize(_:)``, with every entity id checked: a longer id than ``maxEntityIDBytes`` is a shape
    /// error naming the id's start.
    public func entities(_ body: Data) throws(NormalizationFailure) -> [String: Facts] {
        let entities = try normalize(body)
        for id in entities.keys where id.utf8.count > Self.maxEntityIDBytes {
            throw NormalizationFailure(
                kind: .shape,
                message:
                    "an entity id of \(id.utf8.count) bytes (at most \(Self.maxEntityIDBytes)): \"\(id.prefix(32))…\"")
        }
        return entities
    }
}

/// A fact a feed provides: its type, and whether it may be absent.
public struct FactField: Sendable, Hashable {
    public var type: FieldType
    public var optional: Bool

    public init(type: FieldType, optional: Bool) {
        self.type = type
        self.optional = optional
    }
}

/// Why one body could not be normalised; the caller wraps it into a `FeedError` with the feed and URL.
public struct NormalizationFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// `invalid_json`, `shape` or `provider_error`.
    public var kind: FeedError.Kind
    /// What was wrong, with the place in the body.
    public var message: String
    /// The message.
    public var description: String { message }

    /// Creates a failure.
    public init(kind: FeedError.Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// JSON that does not have the shape the normaliser expects.
    static func shape(_ message: String) -> NormalizationFailure { .init(kind: .shape, message: message) }
}
