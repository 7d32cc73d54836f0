import LiveRelayCore

/// Turns a JsonLogic rule into a `JsonLogicNode` tree: operators resolved, `var` and `val` paths split,
/// dedicated nodes for the common forms, and every sub-expression that reads no data evaluated once.
enum JsonLogicCompiler {
    static func compile(_ rule: JSONValue, at pointer: JSONPointer) throws(JsonLogicError) -> JsonLogicNode {
        switch rule {
        case .array(let items):
            var nodes: [JsonLogicNode] = []
            nodes.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                nodes.append(try compile(item, at: pointer.appending(String(i))))
            }
            return try fold(.array(nodes), at: pointer)
        case .object(let members) where members.count == 1:
            let (name, value) = members.first!
            guard let op = JsonLogicOperator(rawValue: name) else {
                throw JsonLogicError(pointer: pointer, message: "unknown operator \"\(name)\"", code: .unknownOperator)
            }
            // `preserve` keeps its argument as data, unevaluated.
            if op == .preserve { return .literal(value) }
            return try fold(try compileCall(op, value, at: pointer.appending(name)), at: pointer.appending(name))
        default:
            // Scalars, and objects with zero or several keys, are data.
            return .literal(rule)
        }
    }

    /// Compiles the arguments of `op`. A single non-array value is shorthand for a one-item list, and is then
    /// reported at the operator's own pointer; for an operator that takes a list of values, a single operator
    /// call computes the list. The operators that decide what to evaluate, compare or iterate take only a
    /// written list.
    private static func compileCall(
        _ op: JsonLogicOperator, _ value: JSONValue, at pointer: JSONPointer
    ) throws(JsonLogicError) -> JsonLogicNode {
        guard case .array(let items) = value else {
            if op.needsWrittenList {
                throw JsonLogicError(
                    pointer: pointer, message: "operator \"\(op.rawValue)\" takes a list of arguments",
                    code: .invalidArguments)
            }
            let argument = try compile(value, at: pointer)
            if op.takesComputedList, case .object(let members) = value, members.count == 1 {
                return .computedList(op, argument)
            }
            // A computed argument of val or exists that is an array is the whole path, as one computed at
            // run time is (`{"val": {"merge": [["a"], ["b"]]}}` reads a.b).
            if op == .val || op == .exists, case .object(let members) = value, members.count == 1,
                case .literal(.array(let items)) = argument
            {
                return node(op, items.map { .literal($0) })
            }
            try checkArity(op, 1, at: pointer)
            return node(op, [argument])
        }
        try checkIteration(op, items, at: pointer)
        var arguments: [JsonLogicNode] = []
        arguments.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            arguments.append(try compile(item, at: pointer.appending(String(i))))
        }
        try checkArity(op, arguments.count, at: pointer)
        return node(op, arguments)
    }

    /// Rejects the calls that cannot work whatever the data: too few arguments for what the operator does
    /// with them (json-logic-js answers `NaN`, `false` or `undefined` to some of them; the JsonLogic
    /// community raises an error, and so does this, when the rule is loaded).
    private static func checkArity(_ op: JsonLogicOperator, _ count: Int, at pointer: JSONPointer)
        throws(JsonLogicError)
    {
        let minimum: Int
        let wording: String
        switch op {
        case .subtract, .divide, .max, .min, .try, .throw: (minimum, wording) = (1, "at least 1 argument")
        case .remainder, .equal, .strictEqual, .notEqual, .strictNotEqual, .less, .lessOrEqual, .greater,
            .greaterOrEqual:
            (minimum, wording) = (2, "at least 2 arguments")
        case .missingSome: (minimum, wording) = (2, "2 arguments: a count and a list of keys")
        default: return
        }
        guard count < minimum else { return }
        throw JsonLogicError(
            pointer: pointer, message: "operator \"\(op.rawValue)\" takes \(wording)", code: .missingArgument)
    }

    /// An iteration over a written value that is not an array (`{"map": [null, …]}`), or `map` and `filter`
    /// with `null` written for the expression applied to each item, is refused where it is written.
    private static func checkIteration(_ op: JsonLogicOperator, _ items: [JSONValue], at pointer: JSONPointer)
        throws(JsonLogicError)
    {
        switch op {
        case .map, .filter, .reduce, .all, .none, .some: break
        default: return
        }
        if let source = items.first {
            switch source {
            case .array: break
            case .object(let members) where members.count == 1: break
            default:
                throw JsonLogicError(
                    pointer: pointer.appending("0"),
                    message: "operator \"\(op.rawValue)\" iterates over an array, not \(source.typeName)",
                    code: .invalidArguments)
            }
        }
        if op == .map || op == .filter, items.count > 1, items[1] == .null {
            throw JsonLogicError(
                pointer: pointer.appending("1"),
                message: "operator \"\(op.rawValue)\" needs an expression to apply to each item, not null",
                code: .invalidArguments)
        }
    }

    private static func node(_ op: JsonLogicOperator, _ arguments: [JsonLogicNode]) -> JsonLogicNode {
        let first = arguments.first
        let second = arguments.count > 1 ? arguments[1] : nil
        switch op {
        case .variable:
            guard let first else { return .variable(.wholeData, fallback: nil) }
            guard case .literal(let path) = first else { return .operation(op, arguments) }
            return .variable(JsonLogicPath(path), fallback: second)
        case .val, .exists:
            guard let values = literals(arguments) else { return .operation(op, arguments) }
            let path = JsonLogicScopedPath(values)
            // A val that reads the data itself is a var lookup, memo included.
            if op == .val, !path.climbs { return .variable(path.path, fallback: nil) }
            return .lookup(path, exists: op == .exists)
        case .missing:
            guard let values = literals(arguments) else { return .operation(op, arguments) }
            return .missing(JsonLogicMissingCheck(arguments: values))
        case .missingSome:
            guard let values = literals(arguments) else { return .operation(op, arguments) }
            let options = values[1]
            let check = JsonLogicMissingCheck(arguments: options.arrayValue ?? [options])
            return .missingSome(needed: values[0], optionCount: options.jsLength, check)
        case .if, .ternary:
            return .condition(arguments)
        case .and, .or:
            // Of nothing, both are false, as the community suites have it (json-logic-js: undefined).
            guard !arguments.isEmpty else { return .literal(false) }
            return op == .and ? .and(arguments) : .or(arguments)
        case .coalesce:
            return .coalesce(arguments)
        case .try:
            return .attempt(arguments, scoped: arguments.dropFirst().contains(where: \.climbs))
        case .not, .truthy:
            guard let first else { return .operation(op, arguments) }
            return .truthiness(first, negated: op == .not)
        case .equal, .strictEqual, .notEqual, .strictNotEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
            // The compiler has made sure of at least two arguments.
            guard arguments.count == 2 else { return .chain(JsonLogicNode.Relation(op)!, arguments) }
            if let kind = JsonLogicNode.Equality(op) { return .equality(kind, arguments[0], arguments[1]) }
            return .comparison(JsonLogicNode.Comparison(op)!, arguments[0], arguments[1])
        case .add, .multiply, .subtract, .divide, .remainder:
            guard arguments.count == 2 else { return .operation(op, arguments) }
            return .arithmetic(JsonLogicNode.Arithmetic(op)!, arguments[0], arguments[1])
        case .map, .filter, .all, .none, .some:
            return .iteration(
                JsonLogicNode.Iteration(op)!, source: first ?? .literal(.null), body: second,
                scoped: second?.climbs ?? false)
        case .reduce:
            return .reduce(
                source: first ?? .literal(.null), body: second, initial: arguments.count > 2 ? arguments[2] : nil,
                scoped: second?.climbs ?? false)
        case .max, .min, .merge, .in, .cat, .substr, .log, .round, .format, .throw, .preserve:
            return .operation(op, arguments)
        }
    }

    private static func literals(_ nodes: [JsonLogicNode]) -> [JSONValue]? {
        var values: [JSONValue] = []
        for node in nodes {
            guard case .literal(let value) = node else { return nil }
            values.append(value)
        }
        return values
    }

    /// Replaces a node that reads no data by its value, which must stay within the evaluation limits: a
    /// constant that cannot be computed is an error in the rule, found when it is loaded.
    private static func fold(_ node: JsonLogicNode, at pointer: JSONPointer) throws(JsonLogicError) -> JsonLogicNode {
        guard !node.isLiteral, node.readsNoData else { return node }
        var budget = JsonLogicBudget(.standard)
        let value = node.evaluate(.null, memo: nil, budget: &budget)
        if let exceeded = budget.exceeded {
            throw JsonLogicError(pointer: pointer, message: "this constant expression \(exceeded)", code: .limit)
        }
        // One that raises an error raises it at each evaluation, where a `try` around it may catch it.
        if budget.raised != nil { return node }
        return .literal(value)
    }
}
