/// One way an instance fails a schema, phrased for the person who wrote the instance.
public struct SchemaViolation: Sendable, Hashable, CustomStringConvertible {
    /// JSON Pointer (RFC 6901 text, `""` is the root) of the instance location the problem is about.
    public var pointer: String
    /// True when the best place to point at is the member's key (an unknown key, a member of the wrong type)
    /// rather than inside its value; a source map then reports the key's `line:column`.
    public var atKey: Bool
    /// What is wrong, e.g. `unknown key "prioirty" (did you mean "priority"?)`.
    public var message: String

    /// Creates a violation.
    public init(pointer: String, atKey: Bool, message: String) {
        self.pointer = pointer
        self.atKey = atKey
        self.message = message
    }

    /// `<pointer>: <message>`, with `(root)` for the empty pointer.
    public var description: String { "\(pointer.isEmpty ? "(root)" : pointer): \(message)" }
}
