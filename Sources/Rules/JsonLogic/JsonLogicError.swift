public import LiveRelayCore

/// A rule that cannot be compiled, with where in the rule the problem is.
public struct JsonLogicError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable kind of rule problem, short enough to be a metric label.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The label text.
        public let rawValue: String

        /// Creates a code from its label text.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// A one-key object whose key is not a JsonLogic operator.
        public static let unknownOperator = Code("unknown-operator")
        /// An operator called with fewer arguments than it can work with.
        public static let missingArgument = Code("missing-argument")
        /// An operator's arguments are not of the form it takes: not a list where it needs one, or a written
        /// value it cannot iterate over or apply.
        public static let invalidArguments = Code("invalid-arguments")
        /// A constant expression whose evaluation goes past `JsonLogicLimits`.
        public static let limit = Code("limit")
        /// Any other problem with a rule.
        public static let invalidRule = Code("invalid-rule")

        /// The label text.
        public var description: String { rawValue }
    }

    /// Where in the rule the problem is, relative to the expression root: the operator's value
    /// (`/and/1` for the second argument of `and`), or for an unknown operator the one-key object itself.
    public var pointer: JSONPointer
    /// What is wrong, in words a rule author understands, e.g. `unknown operator "foo"`.
    public var message: String
    /// The kind of problem.
    public var code: Code

    /// Creates an error at `pointer`.
    public init(pointer: JSONPointer, message: String, code: Code = .invalidRule) {
        self.pointer = pointer
        self.message = message
        self.code = code
    }

    /// `/and/1: unknown operator "foo"`, or just the message when the problem is the whole rule.
    public var description: String {
        pointer.tokens.isEmpty ? message : "\(pointer): \(message)"
    }
}
