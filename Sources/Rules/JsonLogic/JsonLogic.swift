public import LiveRelayCore

/// A JsonLogic rule (jsonlogic.com), compiled once and evaluated many times.
///
/// Semantics follow the reference implementation json-logic-js, including its JavaScript coercions
/// (`{"==":[1,"1"]}` is true, `{"+":"3"}` is 3), with two deliberate differences:
/// numbers stay exact where JavaScript would round (`Int` stays `Int`, `Decimal` prices stay `Decimal` in
/// `+`, `-`, `*` and comparisons), and arrays and objects compare by value in `==` and `===` because
/// JSON values have no identity.
///
/// Evaluation fails only past its limits (`JsonLogicLimits`): like json-logic-js, a nonsensical operation
/// yields `null`, `NaN` or `false`.
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
    /// unbounded time or memory.
    public func evaluate(
        _ data: JSONValue, memo: JsonLogicMemo? = nil, limits: JsonLogicLimits = .standard
    ) throws(JsonLogicLimitError) -> JSONValue {
        var budget = JsonLogicBudget(limits)
        let value = root.evaluate(data, memo: memo, budget: &budget)
        if let exceeded = budget.exceeded { throw exceeded }
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
