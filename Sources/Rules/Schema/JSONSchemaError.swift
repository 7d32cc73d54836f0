/// A schema that cannot be compiled: malformed, or using a keyword this validator does not implement.
///
/// Unsupported keywords are errors rather than being skipped, so that a compiled schema never silently
/// means less than its text says.
public struct JSONSchemaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// JSON Pointer (RFC 6901) of the offending place in the schema document.
    public var pointer: String
    /// What is wrong, in words.
    public var message: String

    /// Creates an error at `pointer` in the schema document.
    public init(pointer: String, message: String) {
        self.pointer = pointer
        self.message = message
    }

    /// `#<pointer>: <message>`, the schema location written as a URI fragment.
    public var description: String { "#\(pointer): \(message)" }
}
