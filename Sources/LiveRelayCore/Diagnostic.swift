/// A problem found in a file a person wrote (a config or a rule file), printed as `file:line:column: message`.
public struct Diagnostic: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file, as the user named it.
    public var file: String
    /// Where in the file; `nil` when the problem is the file as a whole (unreadable, missing).
    public var location: SourceLocation?
    /// What is wrong, in words a rule author understands.
    public var message: String
    /// An error stops what it is in (a rule is skipped, `check` fails); a warning names what may be
    /// intended and stops nothing.
    public var severity: Severity

    /// How bad a diagnostic is.
    public enum Severity: Sendable, Hashable {
        case error, warning
    }

    public init(file: String, location: SourceLocation?, message: String, severity: Severity = .error) {
        self.file = file
        self.location = location
        self.message = message
        self.severity = severity
    }

    /// True for an error (not a warning).
    public var isError: Bool { severity == .error }

    public var description: String {
        let text = severity == .warning ? "warning: " + message : message
        if let location { return "\(file):\(location.line):\(location.column): \(text)" }
        return "\(file): \(text)"
    }
}

/// Several diagnostics thrown together, in file order.
public struct Diagnostics: Error, Sendable, CustomStringConvertible {
    public var items: [Diagnostic]

    public init(_ items: [Diagnostic]) { self.items = items }

    public var description: String { items.map(\.description).joined(separator: "\n") }
}
