import LiveRelayCore

extension JsonLogicNode {
    /// `==`, `===`, `!=` and `!==`.
    enum Equality: Sendable {
        case loose, strict, looseNot, strictNot

        init?(_ op: JsonLogicOperator) {
            switch op {
            case .equal: self = .loose
            case .strictEqual: self = .strict
            case .notEqual: self = .looseNot
            case .strictNotEqual: self = .strictNot
            default: return nil
            }
        }

        /// The outcome, or `nil` when a loose comparison has a side that is not a number (it raises `NaN`).
        @inline(__always)
        func test(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool? {
            switch self {
            case .loose: return lhs.jsonLogicLooselyEquals(rhs)
            case .strict: return lhs.jsStrictlyEquals(rhs)
            case .looseNot: return lhs.jsonLogicLooselyEquals(rhs).map { !$0 }
            case .strictNot: return !lhs.jsStrictlyEquals(rhs)
            }
        }
    }

    /// `<`, `<=`, `>` and `>=`.
    enum Comparison: Sendable {
        case less, lessOrEqual, greater, greaterOrEqual

        init?(_ op: JsonLogicOperator) {
            switch op {
            case .less: self = .less
            case .lessOrEqual: self = .lessOrEqual
            case .greater: self = .greater
            case .greaterOrEqual: self = .greaterOrEqual
            default: return nil
            }
        }

        /// The outcome, or `nil` when a side is not a number and the two are not texts (it raises `NaN`).
        @inline(__always)
        func test(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool? {
            switch lhs.jsonLogicOrder(rhs) {
            case .ordered(let order):
                switch self {
                case .less: return order < 0
                case .lessOrEqual: return order <= 0
                case .greater: return order > 0
                case .greaterOrEqual: return order >= 0
                }
            case .unordered: return false
            case .notANumber: return nil
            }
        }
    }

    /// Any of the eight comparison operators, for the chained form `{"<": [a, b, c, …]}`: true when every
    /// neighbouring pair compares so; evaluated left to right, stopping at the first pair that does not.
    enum Relation: Sendable {
        case equality(Equality)
        case comparison(Comparison)

        init?(_ op: JsonLogicOperator) {
            if let kind = Equality(op) {
                self = .equality(kind)
            } else if let kind = Comparison(op) {
                self = .comparison(kind)
            } else {
                return nil
            }
        }

        /// The outcome for one pair, or `nil` when it raises `NaN`.
        func test(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool? {
            switch self {
            case .equality(let kind): return kind.test(lhs, rhs)
            case .comparison(let kind): return kind.test(lhs, rhs)
            }
        }
    }

    /// A chain of three or more operands; every operand is charged as it is read.
    static func chain(
        _ relation: Relation, _ operands: [JsonLogicNode], _ data: JSONValue, _ memo: JsonLogicMemo?,
        _ budget: inout JsonLogicBudget
    ) -> JSONValue {
        var previous = operands[0].evaluate(data, memo: memo, budget: &budget)
        guard budget.read(previous) else { return .null }
        for operand in operands.dropFirst() {
            let current = operand.evaluate(data, memo: memo, budget: &budget)
            guard budget.read(current) else { return .null }
            guard let holds = relation.test(previous, current) else {
                return budget.raise(JsonLogicRaised.notANumber)
            }
            guard holds else { return .bool(false) }
            previous = current
        }
        return .bool(true)
    }
}
