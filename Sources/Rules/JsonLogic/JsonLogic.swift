public import LiveRelayCore

/// A JsonLogic rule (jsonlogic.com), compiled once and evaluated many times.
///
/// Semantics follow the reference implementation json-logic-js and the JsonLogic community's compatibility
/// suites, which add `val`, `exists`, `??`, `throw`, `try` and `preserve`, and errors as values: arithmetic
/// or a numeric comparison on a value that is not a number raises `{"type": "NaN"}` (`{"/": [1, 0]}`,
/// `{"+": ["apple", 1]}`, `{"<": [1, "a"]}`), which a `try` can catch. Where LiveRelay differs on purpose:
/// numbers stay exact where JavaScript would round (`Int` stays `Int`, `Decimal` prices stay `Decimal` in
/// `+`, `-`, `*` and comparisons), and `===` compares arrays and objects by value because JSON values have
/// no identity. `==` follows the suites: `null` is loosely equal to 0 and `false`, and an array or object on
/// either side raises `{"type": "NaN"}`.
public struct JsonLogicExpression: Sendable {
    let root: JsonLogicNode

    /// Every operator name a rule may use.
    public static let knownOperators: Set<String> = Set(JsonLogicOperator.allCases.map(\.rawValue))

    /// Compiles `rule`, rejecting unknown operators and calls that cannot work, with where they are.
    ///
    /// An object is an operator call when it has exactly one key; other objects are literal data.
    public static func compile(_ rule: JSONValue) throws(JsonLogicError) -> JsonLogicExpression {
        JsonLogicExpression(root: try JsonLogicCompiler.compile(rule, at: .root))
    }

    /// The value of the rule for `data`. `memo`, when given, shares `var` lookups with other expressions
    /// evaluated against the same `data`. An evaluation that goes past `limits` throws instead of using
    /// unbounded time or memory; one that raises an error no `try` catches throws that error.
    public func evaluate(
        _ data: JSONValue, memo: JsonLogicMemo? = nil, limits: JsonLogicLimits = .standard
    ) throws(JsonLogicEvaluationError) -> JSONValue {
        var budget = JsonLogicBudget(limits)
        let value = root.evaluate(data, memo: memo, budget: &budget)
        if let exceeded = budget.exceeded { throw .limit(exceeded) }
        if let raised = budget.raised { throw .raised(raised) }
        return value
    }

    /// The expression `true`: a condition that always holds.
    public static let always = JsonLogicExpression(root: .literal(.bool(true)))

    /// True when the expression reads no data, so every evaluation gives the same value.
    public var isConstant: Bool {
        if case .literal = root { return true }
        return false
    }
}
