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
        /// and `all` of nothing is false, as in json-logic-js.
        func apply(_ body: JsonLogicNode?, over source: JSONValue) -> JSONValue {
            guard case .array(let items) = source else { return apply(body, over: []) }
            func passes(_ item: JSONValue) -> Bool { body?.evaluate(item).isTruthy ?? false }
            switch self {
            case .map: return .array(items.map { body?.evaluate($0) ?? .null })
            case .filter: return .array(items.filter(passes))
            case .all: return .bool(!items.isEmpty && items.allSatisfy(passes))
            case .none: return .bool(!items.contains(where: passes))
            case .some: return .bool(items.contains(where: passes))
            }
        }
    }

    /// `reduce`: folds `source` through `body`, which sees `{"current": item, "accumulator": value}`.
    static func reduce(_ source: JSONValue, _ body: JsonLogicNode?, initial: JSONValue) -> JSONValue {
        guard case .array(let items) = source else { return initial }
        var accumulator = initial
        for item in items {
            accumulator = body?.evaluate(["current": item, "accumulator": accumulator]) ?? .null
        }
        return accumulator
    }
}
