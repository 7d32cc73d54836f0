import LiveRelayCore

/// A compiled JsonLogic expression: a tree walked once per evaluation, with `var` paths pre-split and the
/// common two-argument forms given their own cases so that they evaluate without allocating.
indirect enum JsonLogicNode: Sendable {
    /// A value that needs no evaluation, including folded constant sub-expressions.
    case literal(JSONValue)
    /// An array whose items are evaluated.
    case array([JsonLogicNode])
    /// `var` with a path known at compile time and an optional default; also `val` with keys known at
    /// compile time that reads the data itself.
    case variable(JsonLogicPath, fallback: JsonLogicNode?)
    /// `val` (`exists` false) or `exists` (true) with keys known at compile time that climb out of the data.
    case lookup(JsonLogicScopedPath, exists: Bool)
    /// `missing` with keys known at compile time.
    case missing(JsonLogicMissingCheck)
    /// `missing_some` with arguments known at compile time.
    case missingSome(needed: JSONValue, optionCount: Int?, JsonLogicMissingCheck)
    /// `and`: the first falsy value, or the last.
    case and([JsonLogicNode])
    /// `or`: the first truthy value, or the last.
    case or([JsonLogicNode])
    /// `??`: the first value that is not `null`, or `null`.
    case coalesce([JsonLogicNode])
    /// `try`: the first value of its arguments that raises no error; each later one is evaluated with the
    /// error raised before it as its data (with `scoped`, it can climb to the data around the `try`). When
    /// the last raises, that error is raised.
    case attempt([JsonLogicNode], scoped: Bool)
    /// `if` and `?:`: condition, value pairs, then an optional else value.
    case condition([JsonLogicNode])
    /// `!!` (`negated` false) and `!` (true) of their first argument.
    case truthiness(JsonLogicNode, negated: Bool)
    /// `==`, `===`, `!=`, `!==` with two arguments.
    case equality(Equality, JsonLogicNode, JsonLogicNode)
    /// `<`, `<=`, `>`, `>=` with two arguments.
    case comparison(Comparison, JsonLogicNode, JsonLogicNode)
    /// Any comparison with three or more arguments: `a < b < c`, `a == b == c`.
    case chain(Relation, [JsonLogicNode])
    /// `+`, `-`, `*`, `/`, `%` with two arguments.
    case arithmetic(Arithmetic, JsonLogicNode, JsonLogicNode)
    /// `map`, `filter`, `all`, `none`, `some`: `body` is evaluated with each item of `source` as its data;
    /// `scoped` when it climbs out of it (`{"val": [[1], "index"]}`).
    case iteration(Iteration, source: JsonLogicNode, body: JsonLogicNode?, scoped: Bool)
    /// `reduce`: `body` is evaluated with `{"current": item, "accumulator": value}` as its data.
    case reduce(source: JsonLogicNode, body: JsonLogicNode?, initial: JsonLogicNode?, scoped: Bool)
    /// Any other operator call: its arguments are evaluated, then the operator applied to their values.
    case operation(JsonLogicOperator, [JsonLogicNode])
    /// An operator whose argument list one expression computes (`{"+": {"var": "prices"}}`): an array value
    /// is the list, any other value its only item.
    case computedList(JsonLogicOperator, JsonLogicNode)

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
        case .lookup(let path, let exists):
            let found = path.lookup(in: data, scopes: budget.scopes)
            return exists ? .bool(found != nil) : found ?? .null
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
        case .coalesce(let items):
            for item in items {
                let value = item.evaluate(data, memo: memo, budget: &budget)
                if value != .null || budget.isSpent { return value }
            }
            return .null
        case .attempt(let items, let scoped):
            return JsonLogicNode.attempt(items, scoped: scoped, data, memo, &budget)
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
            guard let holds = kind.test(l, r) else { return budget.raise(JsonLogicRaised.notANumber) }
            return .bool(holds)
        case .comparison(let kind, let lhs, let rhs):
            let l = lhs.evaluate(data, memo: memo, budget: &budget)
            let r = rhs.evaluate(data, memo: memo, budget: &budget)
            guard budget.read(l), budget.read(r) else { return .null }
            guard let holds = kind.test(l, r) else { return budget.raise(JsonLogicRaised.notANumber) }
            return .bool(holds)
        case .chain(let relation, let operands):
            return JsonLogicNode.chain(relation, operands, data, memo, &budget)
        case .arithmetic(let kind, let lhs, let rhs):
            let l = lhs.evaluate(data, memo: memo, budget: &budget)
            let r = rhs.evaluate(data, memo: memo, budget: &budget)
            guard budget.read(l), budget.read(r) else { return .null }
            return JsonLogicNode.number(kind.apply(l, r), &budget)
        case .iteration(let kind, let source, let body, let scoped):
            let items = source.evaluate(data, memo: memo, budget: &budget)
            let value = kind.apply(body, over: items, around: data, scoped: scoped, budget: &budget)
            return budget.admit(value) ? value : .null
        case .reduce(let source, let body, let initial, let scoped):
            let items = source.evaluate(data, memo: memo, budget: &budget)
            let start = initial?.evaluate(data, memo: memo, budget: &budget) ?? .null
            return JsonLogicNode.reduce(items, body, initial: start, around: data, scoped: scoped, budget: &budget)
        case .operation(let op, let arguments):
            let values = JsonLogicNode.evaluateAll(arguments, data, memo, &budget)
            guard budget.read(values) else { return .null }
            let value = JsonLogicNode.apply(op, values, data: data, budget: &budget)
            return budget.admit(value) ? value : .null
        case .computedList(let op, let argument):
            let list = argument.evaluate(data, memo: memo, budget: &budget)
            guard budget.read(list) else { return .null }
            let value = JsonLogicNode.apply(op, list.arrayValue ?? [list], data: data, budget: &budget)
            return budget.admit(value) ? value : .null
        }
    }

    /// `try`'s alternatives, each after the one before raised an error, with that error as its data.
    private static func attempt(
        _ items: [JsonLogicNode], scoped: Bool, _ data: JSONValue, _ memo: JsonLogicMemo?,
        _ budget: inout JsonLogicBudget
    ) -> JSONValue {
        var value = items[0].evaluate(data, memo: memo, budget: &budget)
        var pushed = false
        defer { if pushed { budget.leaveScope() } }
        for item in items.dropFirst() {
            guard let error = budget.catchRaised() else { return value }
            if scoped, !pushed {
                budget.enterFallback(around: data)
                pushed = true
            }
            value = item.evaluate(error, memo: nil, budget: &budget)
        }
        return value
    }

    /// True when the value does not depend on the data, so the compiler may evaluate it once.
    var readsNoData: Bool {
        switch self {
        case .literal:
            return true
        case .variable, .lookup, .missing, .missingSome:
            return false
        case .array(let items), .and(let items), .or(let items), .condition(let items), .coalesce(let items),
            .chain(_, let items):
            return items.allSatisfy(\.isLiteral)
        case .attempt(let items, let scoped):
            return !scoped && items.allSatisfy(\.isLiteral)
        case .truthiness(let operand, _), .computedList(_, let operand):
            return operand.isLiteral
        case .equality(_, let lhs, let rhs), .comparison(_, let lhs, let rhs), .arithmetic(_, let lhs, let rhs):
            return lhs.isLiteral && rhs.isLiteral
        case .iteration(_, let source, _, let scoped):
            // The body reads the items, not the data, unless it climbs out of them.
            return source.isLiteral && !scoped
        case .reduce(let source, _, let initial, let scoped):
            return source.isLiteral && (initial?.isLiteral ?? true) && !scoped
        case .operation(let op, let arguments):
            return !op.readsData && arguments.allSatisfy(\.isLiteral)
        }
    }

    /// True when a `val` or `exists` in this expression may climb out of the data it is evaluated on, so an
    /// iteration or `try` around it must keep its scopes (a computed `val` path might climb).
    var climbs: Bool {
        switch self {
        case .literal, .variable, .missing, .missingSome:
            return false
        case .lookup(let path, _):
            return path.climbs
        case .array(let items), .and(let items), .or(let items), .condition(let items), .coalesce(let items),
            .chain(_, let items), .attempt(let items, _):
            return items.contains(where: \.climbs)
        case .truthiness(let operand, _), .computedList(_, let operand):
            return operand.climbs
        case .equality(_, let lhs, let rhs), .comparison(_, let lhs, let rhs), .arithmetic(_, let lhs, let rhs):
            return lhs.climbs || rhs.climbs
        case .iteration(_, let source, let body, _):
            return source.climbs || (body?.climbs ?? false)
        case .reduce(let source, let body, let initial, _):
            return source.climbs || (body?.climbs ?? false) || (initial?.climbs ?? false)
        case .operation(let op, let arguments):
            return op == .val || op == .exists || arguments.contains(where: \.climbs)
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
    /// `arguments.length`, so a missing argument is `undefined`, not `null`. An operator that fails raises its
    /// error through `budget`.
    static func apply(
        _ op: JsonLogicOperator, _ arguments: [JSONValue], data: JSONValue, budget: inout JsonLogicBudget
    ) -> JSONValue {
        switch op {
        case .variable:
            let path = arguments.first.map(JsonLogicPath.init) ?? .wholeData
            if let found = path.lookup(in: data) { return found }
            return arguments.count > 1 ? arguments[1] : .null
        case .val, .exists:
            // One computed argument that is an array is the whole argument list.
            let list = arguments.count == 1 ? arguments[0].arrayValue ?? arguments : arguments
            let found = JsonLogicScopedPath(list).lookup(in: data, scopes: budget.scopes)
            return op == .exists ? .bool(found != nil) : found ?? .null
        case .missing:
            return .array(JsonLogicMissingCheck(arguments: arguments).missing(in: data))
        case .missingSome:
            let options = arguments.count > 1 ? arguments[1] : .null
            let check = JsonLogicMissingCheck(arguments: options.arrayValue ?? [options])
            let needed = arguments.first ?? .null
            return .array(check.missingSome(needed: needed, optionCount: options.jsLength, in: data))
        case .not, .truthy:
            let value = arguments.first?.isTruthy ?? false
            return .bool(op == .not ? !value : value)
        case .add, .subtract, .multiply, .divide, .remainder, .max, .min:
            return arithmetic(op, arguments, &budget)
        case .merge, .in, .cat, .substr:
            return collection(op, arguments)
        case .log, .preserve:
            return arguments.first ?? .null
        case .throw:
            // An object is raised as it is; anything else is the type of the error raised.
            let type = arguments.first ?? .null
            return budget.raise(type.objectValue != nil ? type : ["type": type])
        case .round, .format:
            return numbers(op, arguments, &budget)
        case .if, .ternary, .and, .or, .coalesce, .try, .map, .reduce, .filter, .all, .none, .some, .equal,
            .strictEqual, .notEqual, .strictNotEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
            // These control evaluation of their arguments, or compare them; the compiler gives them their own
            // nodes.
            return .null
        }
    }
}
