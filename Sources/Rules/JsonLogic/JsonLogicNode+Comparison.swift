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

        func test(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
            switch self {
            case .loose: return lhs.jsLooselyEquals(rhs)
            case .strict: return lhs.jsStrictlyEquals(rhs)
            case .looseNot: return !lhs.jsLooselyEquals(rhs)
            case .strictNot: return !lhs.jsStrictlyEquals(rhs)
            }
        }

        /// With fewer than two arguments, the missing ones are `undefined`: equal to each other, loosely equal
        /// to `null`, strictly equal to nothing else.
        func test(_ arguments: [JSONValue]) -> Bool {
            if arguments.count >= 2 { return test(arguments[0], arguments[1]) }
            let equal: Bool
            switch (self, arguments.first) {
            case (_, nil): equal = true
            case (.loose, .null?), (.looseNot, .null?): equal = true
            default: equal = false
            }
            return self == .loose || self == .strict ? equal : !equal
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

        /// Only `<` and `<=` have the three-argument "between" form; `>` and `>=` ignore a third argument.
        var hasBetweenForm: Bool { self == .less || self == .lessOrEqual }

        @inline(__always)
        func test(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
            guard let order = lhs.jsCompare(rhs) else { return false }
            switch self {
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            case .greaterOrEqual: return order >= 0
            }
        }

        /// A missing argument is `undefined`, which is `NaN` as a number, so any comparison with it is false.
        func test(_ arguments: [JSONValue]) -> Bool {
            guard arguments.count >= 2 else { return false }
            if arguments.count >= 3, hasBetweenForm {
                return test(arguments[0], arguments[1]) && test(arguments[1], arguments[2])
            }
            return test(arguments[0], arguments[1])
        }
    }
}
