import LiveRelayCore

/// Turns a JsonLogic rule into a `JsonLogicNode` tree: operators resolved, `var` paths split, dedicated
/// nodes for the common forms, and every sub-expression that reads no data evaluated once.
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
            return try fold(try compileCall(op, value, at: pointer.appending(name)), at: pointer.appending(name))
        default:
            // Scalars, and objects with zero or several keys, are data.
            return .literal(rule)
        }
    }

    /// Compiles the arguments of `op`. A single non-array value is shorthand for a one-item list, and is then
    /// reported at the operator's own pointer.
    private static func compileCall(
        _ op: JsonLogicOperator, _ value: JSONValue, at pointer: JSONPointer
    ) throws(JsonLogicError) -> JsonLogicNode {
        var arguments: [JsonLogicNode] = []
        if case .array(let items) = value {
            arguments.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                arguments.append(try compile(item, at: pointer.appending(String(i))))
            }
        } else {
            arguments.append(try compile(value, at: pointer))
        }
        try checkArity(op, arguments.count, at: pointer)
        return node(op, arguments)
    }

    /// Rejects only the calls json-logic-js itself cannot evaluate (it throws on them); everything else it
    /// accepts, so does this.
    private static func checkArity(_ op: JsonLogicOperator, _ count: Int, at pointer: JSONPointer)
        throws(JsonLogicError)
    {
        let minimum: Int
        let wording: String
        switch op {
        case .multiply: (minimum, wording) = (1, "at least 1 argument")
        case .missingSome: (minimum, wording) = (2, "2 arguments: a count and a list of keys")
        default: return
        }
        guard count < minimum else { return }
        throw JsonLogicError(
            pointer: pointer, message: "operator \"\(op.rawValue)\" takes \(wording)", code: .missingArgument)
    }

    private static func node(_ op: JsonLogicOperator, _ arguments: [JsonLogicNode]) -> JsonLogicNode {
        let first = arguments.first
        let second = arguments.count > 1 ? arguments[1] : nil
        switch op {
        case .variable:
            guard let first else { return .variable(.wholeData, fallback: nil) }
            guard case .literal(let path) = first else { return .operation(op, arguments) }
            return .variable(JsonLogicPath(path), fallback: second)
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
        case .and:
            return .and(arguments)
        case .or:
            return .or(arguments)
        case .not, .truthy:
            guard let first else { return .operation(op, arguments) }
            return .truthiness(first, negated: op == .not)
        case .equal, .strictEqual, .notEqual, .strictNotEqual:
            guard arguments.count == 2 else { return .operation(op, arguments) }
            return .equality(JsonLogicNode.Equality(op)!, arguments[0], arguments[1])
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let kind = JsonLogicNode.Comparison(op)!
            guard arguments.count >= 2 else { return .operation(op, arguments) }
            if arguments.count >= 3, kind.hasBetweenForm {
                return .between(kind, arguments[0], arguments[1], arguments[2])
            }
            return .comparison(kind, arguments[0], arguments[1])
        case .add, .multiply:
            guard arguments.count == 2 else { return .operation(op, arguments) }
            return .arithmetic(JsonLogicNode.Arithmetic(op)!, arguments[0], arguments[1])
        case .subtract, .divide, .remainder:
            guard arguments.count >= 2 else { return .operation(op, arguments) }
            return .arithmetic(JsonLogicNode.Arithmetic(op)!, arguments[0], arguments[1])
        case .map, .filter, .all, .none, .some:
            return .iteration(JsonLogicNode.Iteration(op)!, source: first ?? .literal(.null), body: second)
        case .reduce:
            return .reduce(
                source: first ?? .literal(.null), body: second, initial: arguments.count > 2 ? arguments[2] : nil)
        case .max, .min, .merge, .in, .cat, .substr, .log, .round, .format:
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
        return .literal(value)
    }
}
