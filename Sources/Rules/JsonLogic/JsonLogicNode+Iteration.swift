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

        /// `body` evaluated with each item as the data. A source that is not an array is treated as empty,
        /// and `all` of nothing is false, as in json-logic-js. Stops early once `budget` is spent.
        func apply(_ body: JsonLogicNode?, over source: JSONValue, budget: inout JsonLogicBudget) -> JSONValue {
            guard case .array(let items) = source else { return apply(body, over: [], budget: &budget) }
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
    }

    /// `reduce`: folds `source` through `body`, which sees `{"current": item, "accumulator": value}`.
    static func reduce(
        _ source: JSONValue, _ body: JsonLogicNode?, initial: JSONValue, budget: inout JsonLogicBudget
    ) -> JSONValue {
        guard case .array(let items) = source else { return initial }
        var accumulator = initial
        for item in items {
            guard !budget.isSpent else { return .null }
            accumulator =
                body?.evaluate(["current": item, "accumulator": accumulator], memo: nil, budget: &budget) ?? .null
        }
        return accumulator
    }
}
