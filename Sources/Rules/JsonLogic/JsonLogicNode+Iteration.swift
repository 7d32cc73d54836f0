import LiveRelayCore

extension JsonLogicNode {
    /// The operators that evaluate a body once per array item.
    enum Iteration: Sendable {
        case map, filter, all, none, some

        init?(_ op: JsonLogicOperator) {
            switch op {
            case .map: self = .map
            case .filter: self = .filter
            case .all: self = .all
            case .none: self = .none
            case .some: self = .some
            default: return nil
            }
        }

        /// `body` evaluated with each item as the data. `map` and `filter` of a value that is not an array
        /// give `[]`; `all`, `some` and `none` of one raise `{"type": "Invalid Arguments"}`; `all` of nothing
        /// is false. With `scoped`, each item's body can climb to the iteration and to `data` around it.
        /// Stops early once `budget` is spent.
        func apply(
            _ body: JsonLogicNode?, over source: JSONValue, around data: JSONValue, scoped: Bool,
            budget: inout JsonLogicBudget
        ) -> JSONValue {
            guard case .array(let items) = source else {
                switch self {
                case .map, .filter: return .array([])
                case .all, .none, .some: return budget.raise(JsonLogicRaised.invalidArguments)
                }
            }
            if scoped { budget.enter(around: data, iterating: source) }
            defer { if scoped { budget.leaveScope() } }
            func evaluate(_ i: Int, _ budget: inout JsonLogicBudget) -> JSONValue {
                if scoped { budget.moveScope(to: i, of: source) }
                return body?.evaluate(items[i], memo: nil, budget: &budget) ?? .null
            }
            switch self {
            case .map:
                var mapped: [JSONValue] = []
                mapped.reserveCapacity(items.count)
                for i in items.indices {
                    guard !budget.isSpent else { return .null }
                    mapped.append(evaluate(i, &budget))
                }
                return .array(mapped)
            case .filter:
                var kept: [JSONValue] = []
                for i in items.indices {
                    guard !budget.isSpent else { return .null }
                    if evaluate(i, &budget).isTruthy { kept.append(items[i]) }
                }
                return .array(kept)
            case .all:
                for i in items.indices where !evaluate(i, &budget).isTruthy || budget.isSpent { return .bool(false) }
                return .bool(!items.isEmpty)
            case .none:
                for i in items.indices where evaluate(i, &budget).isTruthy || budget.isSpent { return .bool(false) }
                return .bool(true)
            case .some:
                for i in items.indices where evaluate(i, &budget).isTruthy || budget.isSpent {
                    return .bool(!budget.isSpent)
                }
                return .bool(false)
            }
        }
    }

    /// `reduce`: folds `source` through `body`, which sees `{"current": item, "accumulator": value}` (and,
    /// with `scoped`, the iteration and `data` around it). A source that is not an array gives `initial`.
    static func reduce(
        _ source: JSONValue, _ body: JsonLogicNode?, initial: JSONValue, around data: JSONValue, scoped: Bool,
        budget: inout JsonLogicBudget
    ) -> JSONValue {
        guard case .array(let items) = source else { return initial }
        if scoped { budget.enter(around: data, iterating: source) }
        defer { if scoped { budget.leaveScope() } }
        var accumulator = initial
        for (i, item) in items.enumerated() {
            guard !budget.isSpent else { return .null }
            if scoped { budget.moveScope(to: i, of: source) }
            accumulator =
                body?.evaluate(["current": item, "accumulator": accumulator], memo: nil, budget: &budget) ?? .null
        }
        return accumulator
    }
}
