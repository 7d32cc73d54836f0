public import LiveRelayCore

/// The rules loaded from a set of files, and every problem found on the way. Problems in one rule do not
/// stop the others from loading.
public struct RuleSet: Sendable {
    public var rules: [Rule]
    public var diagnostics: [Diagnostic]
    /// The errors among ``diagnostics`` (warnings left out).
    public var errors: [Diagnostic] { diagnostics.filter(\.isError) }
    /// The files that were read, in load order.
    public var files: [String]

    public init(rules: [Rule] = [], diagnostics: [Diagnostic] = [], files: [String] = []) {
        self.rules = rules
        self.diagnostics = diagnostics
        self.files = files
    }
}
