/// A problem found in a file a person wrote (a config or a rule file), printed as `file:line:column: message`.
public struct Diagnostic: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file, as the user named it.
    public var file: String
    /// Where in the file; `nil` when the problem is the file as a whole (unreadable, missing).
    public var location: SourceLocation?
    /// What is wrong, in words a rule author understands.
    public var message: String

    public init(file: String, location: SourceLocation?, message: String) {
        self.file = file
        self.location = location
        self.message = message
    }

    public var description: String {
        if let location { return "\(file):\(location.line):\(location.column): \(message)" }
        return "\(file): \(message)"
    }
}

/// Several diagnostics thrown together, in file order.
public struct Diagnostics: Error, Sendable, CustomStringConvertible {
    public var items: [Diagnostic]

    public init(_ items: [Diagnostic]) { self.items = items }

    public var description: String { items.map(\.description).joined(separator: "\n") }
}
