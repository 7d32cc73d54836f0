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
            if scoped {
                budget.enter(around: data, iterating: source)
                defer { budget.leaveScope() }
                return applyClimbing(body, items, source, &budget)
            }
            func passes(_ item: JSONValue, _ budget: inout JsonLogicBudget) -> Bool {
                body?.evaluate(item, memo: nil, budget: &budget).isTruthy ?? false
            }
            switch self {
            case .map:
                var mapped: [JSONValue] = []
                mapped.reserveCapacity(items.count)
                for item in items {
                    guard !budget.isSpent else { return .null }
                    mapped.append(body?.evaluate(item, memo: nil, budget: &budget) ?? .null)
                }
                return .array(mapped)
            case .filter:
                var kept: [JSONValue] = []
                for item in items {
                    guard !budget.isSpent else { return .null }
                    if passes(item, &budget) { kept.append(item) }
                }
                return .array(kept)
            case .all:
                for item in items where !passes(item, &budget) || budget.isSpent { return .bool(false) }
                return .bool(!items.isEmpty)
            case .none:
                for item in items where passes(item, &budget) || budget.isSpent { return .bool(false) }
                return .bool(true)
            case .some:
                for item in items where passes(item, &budget) || budget.isSpent { return .bool(!budget.isSpent) }
                return .bool(false)
            }
        }

        /// `apply` for a body that climbs out of its item: the innermost scope moves on before each item.
        private func applyClimbing(
            _ body: JsonLogicNode?, _ items: [JSONValue], _ source: JSONValue, _ budget: inout JsonLogicBudget
        ) -> JSONValue {
            var kept: [JSONValue] = []
            for (i, item) in items.enumerated() {
                guard !budget.isSpent else { return .null }
                budget.moveScope(to: i, of: source)
                let value = body?.evaluate(item, memo: nil, budget: &budget) ?? .null
                guard !budget.isSpent else { return .null }
                switch self {
                case .map: kept.append(value)
                case .filter: if value.isTruthy { kept.append(item) }
                case .all: if !value.isTruthy { return .bool(false) }
                case .none: if value.isTruthy { return .bool(false) }
                case .some: if value.isTruthy { return .bool(true) }
                }
            }
            switch self {
            case .map, .filter: return .array(kept)
            case .all: return .bool(!items.isEmpty)
            case .none: return .bool(true)
            case .some: return .bool(false)
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
