public import Foundation

/// The one JSON encoding LiveRelay writes for machines: sorted keys and unescaped slashes, so equal values
/// encode to equal bytes (provider request bodies, JWT parts, saved states, API answers).
public enum CanonicalJSON {
    /// The shared encoder (thread-safe; made once, not per push).
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

extension Encodable {
    /// This value as canonical JSON (see ``CanonicalJSON``).
    public func canonicalJSON() throws -> Data { try CanonicalJSON.encoder.encode(self) }
}
