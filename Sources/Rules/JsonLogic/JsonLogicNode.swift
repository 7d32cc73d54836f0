import LiveRelayCore

/// A compiled JsonLogic expression: a tree walked once per evaluation, with `var` paths pre-split and the
/// common two-argument forms given their own cases so that they evaluate without allocating.
indirect enum JsonLogicNode: Sendable {
    /// A value that needs no evaluation, including folded constant sub-expressions.
    case literal(JSONValue)
    /// An array whose items are evaluated.
    case array([JsonLogicNode])
    /// `var` with a path known at compile time and an optional default.
    case variable(JsonLogicPath, fallback: JsonLogicNode?)
    /// `missing` with keys known at compile time.
    case missing(JsonLogicMissingCheck)
    /// `missing_some` with arguments known at compile time.
    case missingSome(needed: JSONValue, optionCount: Int?, JsonLogicMissingCheck)
    /// `and`: the first falsy value, or the last.
    case and([JsonLogicNode])
    /// `or`: the first truthy value, or the last.
    case or([JsonLogicNode])
    /// `if` and `?:`: condition, value pairs, then an optional else value.
    case condition([JsonLogicNode])
    /// `!!` (`negated` false) and `!` (true) of their first argument.
    case truthiness(JsonLogicNode, negated: Bool)
    /// `==`, `===`, `!=`, `!==` with two arguments.
    case equality(Equality, JsonLogicNode, JsonLogicNode)
    /// `<`, `<=`, `>`, `>=` with two arguments.
    case comparison(Comparison, JsonLogicNode, JsonLogicNode)
    /// `<` and `<=` with three arguments: `a < b < c`.
    case between(Comparison, JsonLogicNode, JsonLogicNode, JsonLogicNode)
    /// `+`, `-`, `*`, `/`, `%` with two arguments.
    case arithmetic(Arithmetic, JsonLogicNode, JsonLogicNode)
    /// `map`, `filter`, `all`, `none`, `some`: `body` is evaluated with each item of `source` as its data.
    case iteration(Iteration, source: JsonLogicNode, body: JsonLogicNode?)
    /// `reduce`: `body` is evaluated with `{"current": item, "accumulator": value}` as its data.
    case reduce(source: JsonLogicNode, body: JsonLogicNode?, initial: JsonLogicNode?)
    /// Any other operator call: its arguments are evaluated, then the operator applied to their values.
    case operation(JsonLogicOperator, [JsonLogicNode])

    /// The value of the expression for `data`; `memo`, when given, holds the `var` lookups already made in
    /// this same `data`. Every node spends from `budget`, and what operators read and build is charged by
    /// its size; once the budget is spent the value is meaningless (`null`) and `budget.exceeded` says why.
    func evaluate(_ data: JSONValue, memo: JsonLogicMemo?, budget: inout JsonLogicBudget) -> JSONValue {
        guard budget.step() else { return .null }
        switch self {
        case .literal(let value):
            return value
        case .array(let items):
            let value = JSONValue.array(JsonLogicNode.evaluateAll(items, data, memo, &budget))
            return budget.admit(value) ? value : .null
        case .variable(let path, let fallback):
            if let found = memo?.lookup(path, in: data) ?? path.lookup(in: data) { return found }
            return fallback?.evaluate(data, memo: memo, budget: &budget) ?? .null
        case .missing(let check):
            return .array(check.missing(in: data))
        case .missingSome(let needed, let optionCount, let check):
            return .array(check.missingSome(needed: needed, optionCount: optionCount, in: data))
        case .and(let items):
            var current = JSONValue.null
            for item in items {
                current = item.evaluate(data, memo: memo, budget: &budget)
                if !current.isTruthy { return current }
            }
            return current
        case .or(let items):
            var current = JSONValue.null
            for item in items {
                current = item.evaluate(data, memo: memo, budget: &budget)
                if current.isTruthy { return current }
            }
            return current
        case .condition(let items):
            var i = 0
            while i + 1 < items.count {
                if items[i].evaluate(data, memo: memo, budget: &budget).isTruthy {
                    return items[i + 1].evaluate(data, memo: memo, budget: &budget)
                }
                i += 2
            }
            return i < items.count ? items[i].evaluate(data, memo: memo, budget: &budget) : .null
        case .truthiness(let operand, let negated):
            return .bool(operand.evaluate(data, memo: memo, budget: &budget).isTruthy != negated)
        case .equality(let kind, let lhs, let rhs):
            let l = lhs.evaluate(data, memo: memo, budget: &budget)
            let r = rhs.evaluate(data, memo: memo, budget: &budget)
            guard budget.read(l), budget.read(r) else { return .null }
            return .bool(kind.test(l, r))
        case .comparison(let kind, let lhs, let rhs):
            let l = lhs.evaluate(data, memo: memo, budget: &budget)
            let r = rhs.evaluate(data, memo: memo, budget: &budget)
            guard budget.read(l), budget.read(r) else { return .null }
            return .bool(kind.test(l, r))
        case .between(let kind, let low, let middle, let high):
            let a = low.evaluate(data, memo: memo, budget: &budget)
            let b = middle.evaluate(data, memo: memo, budget: &budget)
            guard budget.read(a), budget.read(b) else { return .null }
            guard kind.test(a, b) else { return .bool(false) }
            let c = high.evaluate(data, memo: memo, budget: &budget)
            guard budget.read(c) else { return .null }
            return .bool(kind.test(b, c))
        case .arithmetic(let kind, let lhs, let rhs):
            let l = lhs.evaluate(data, memo: memo, budget: &budget)
            let r = rhs.evaluate(data, memo: memo, budget: &budget)
            guard budget.read(l), budget.read(r) else { return .null }
            return kind.apply(l, r)
        case .iteration(let kind, let source, let body):
            let items = source.evaluate(data, memo: memo, budget: &budget)
            let value = kind.apply(body, over: items, budget: &budget)
            return budget.admit(value) ? value : .null
        case .reduce(let source, let body, let initial):
            let items = source.evaluate(data, memo: memo, budget: &budget)
            let start = initial?.evaluate(data, memo: memo, budget: &budget) ?? .null
            return JsonLogicNode.reduce(items, body, initial: start, budget: &budget)
        case .operation(let op, let arguments):
            let values = JsonLogicNode.evaluateAll(arguments, data, memo, &budget)
            guard budget.read(values) else { return .null }
            let value = JsonLogicNode.apply(op, values, data: data)
            return budget.admit(value) ? value : .null
        }
    }

    /// True when the value does not depend on the data, so the compiler may evaluate it once.
    var readsNoData: Bool {
        switch self {
        case .literal:
            return true
        case .variable, .missing, .missingSome:
            return false
        case .array(let items), .and(let items), .or(let items), .condition(let items):
            return items.allSatisfy(\.isLiteral)
        case .truthiness(let operand, _):
            return operand.isLiteral
        case .equality(_, let lhs, let rhs), .comparison(_, let lhs, let rhs), .arithmetic(_, let lhs, let rhs):
            return lhs.isLiteral && rhs.isLiteral
        case .between(_, let a, let b, let c):
            return a.isLiteral && b.isLiteral && c.isLiteral
        case .iteration(_, let source, _):
            // The body reads the items, not the data.
            return source.isLiteral
        case .reduce(let source, _, let initial):
            return source.isLiteral && (initial?.isLiteral ?? true)
        case .operation(let op, let arguments):
            return !op.readsData && arguments.allSatisfy(\.isLiteral)
        }
    }

    var isLiteral: Bool {
        if case .literal = self { return true }
        return false
    }

    private static func evaluateAll(
        _ nodes: [JsonLogicNode], _ data: JSONValue, _ memo: JsonLogicMemo?, _ budget: inout JsonLogicBudget
    ) -> [JSONValue] {
        var values: [JSONValue] = []
        values.reserveCapacity(nodes.count)
        for node in nodes { values.append(node.evaluate(data, memo: memo, budget: &budget)) }
        return values
    }

    /// Applies an operator whose arguments have been evaluated; `arguments.count` is JavaScript's
    /// `arguments.length`, so a missing argument is `undefined`, not `null`.
    static func apply(_ op: JsonLogicOperator, _ arguments: [JSONValue], data: JSONValue) -> JSONValue {
        switch op {
        case .variable:
            let path = arguments.first.map(JsonLogicPath.init) ?? .wholeData
            if let found = path.lookup(in: data) { return found }
            return arguments.count > 1 ? arguments[1] : .null
        case .missing:
            return .array(JsonLogicMissingCheck(arguments: arguments).missing(in: data))
        case .missingSome:
            let options = arguments.count > 1 ? arguments[1] : .null
            let check = JsonLogicMissingCheck(arguments: options.arrayValue ?? [options])
            let needed = arguments.first ?? .null
            return .array(check.missingSome(needed: needed, optionCount: options.jsLength, in: data))
        case .equal, .strictEqual, .notEqual, .strictNotEqual:
            return .bool(Equality(op)!.test(arguments))
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            return .bool(Comparison(op)!.test(arguments))
        case .not, .truthy:
            let value = arguments.first?.isTruthy ?? false
            return .bool(op == .not ? !value : value)
        case .add, .subtract, .multiply, .divide, .remainder, .max, .min:
            return arithmetic(op, arguments)
        case .merge, .in, .cat, .substr:
            return collection(op, arguments)
        case .log:
            return arguments.first ?? .null
        case .round, .format:
            return numbers(op, arguments)
        case .if, .ternary, .and, .or, .map, .reduce, .filter, .all, .none, .some:
            // These control evaluation of their arguments; the compiler gives them their own nodes.
            return .null
        }
    }
}
