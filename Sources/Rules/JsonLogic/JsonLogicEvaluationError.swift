public import LiveRelayCore

/// Why an evaluation produced no value: it went past its limits, or an operator raised an error that no
/// `try` caught.
public enum JsonLogicEvaluationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The evaluation went past one of its `JsonLogicLimits`; a `try` never catches this.
    case limit(JsonLogicLimitError)
    /// The error object an operator raised: `{"throw": "late"}` raises `{"type": "late"}`, arithmetic on a
    /// value that is not a number raises `{"type": "NaN"}`.
    case raised(JSONValue)

    /// `takes more than 10000000 evaluation steps`, or `raised {"type":"NaN"}`.
    public var description: String {
        switch self {
        case .limit(let limit): return limit.description
        case .raised(let error): return "raised \(error.jsonString())"
        }
    }

    /// The limit passed, for `.limit`.
    public var limit: JsonLogicLimitError? {
        if case .limit(let limit) = self { return limit }
        return nil
    }

    /// The error object, for `.raised`.
    public var raisedError: JSONValue? {
        if case .raised(let error) = self { return error }
        return nil
    }
}
