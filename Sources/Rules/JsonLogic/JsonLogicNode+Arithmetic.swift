import LiveRelayCore

extension JsonLogicNode {
    /// The two-argument arithmetic operators.
    enum Arithmetic: Sendable {
        case add, subtract, multiply, divide, remainder

        init?(_ op: JsonLogicOperator) {
            switch op {
            case .add: self = .add
            case .subtract: self = .subtract
            case .multiply: self = .multiply
            case .divide: self = .divide
            case .remainder: self = .remainder
            default: return nil
            }
        }

        /// Operands are read as `Number()` reads them (`""`, `null` and `false` are 0, `"1e2"` is 100);
        /// arrays and objects are not numbers. A result that is not a finite number is `NaN` here, which the
        /// caller raises.
        @inline(__always)
        func apply(_ lhs: JSONValue, _ rhs: JSONValue) -> JsonLogicNumber {
            combine(lhs.jsonLogicOperand, rhs.jsonLogicOperand)
        }

        @inline(__always)
        func combine(_ x: JsonLogicNumber, _ y: JsonLogicNumber) -> JsonLogicNumber {
            switch self {
            case .add: return x + y
            case .multiply: return x * y
            case .subtract: return x - y
            case .divide: return x / y
            case .remainder: return x % y
            }
        }
    }

    /// The value of an arithmetic result: the number, or `{"type": "NaN"}` raised when it is not finite
    /// (`0/0`, `1/0`, `"apple" + 1`).
    @inline(__always)
    static func number(_ result: JsonLogicNumber, _ budget: inout JsonLogicBudget) -> JSONValue {
        result.isFinite ? result.json : budget.raise(JsonLogicRaised.notANumber)
    }

    /// The arithmetic operators and `max`/`min` with any number of arguments:
    /// - `+` of nothing is 0 and `*` of nothing is 1;
    /// - `-` of one value negates it, `/` of one value is its inverse; of nothing, both raise
    ///   `{"type": "Invalid Arguments"}`, as `%` does with fewer than two;
    /// - with more, each folds left to right: `{"-": [10, 2, 3]}` is 5;
    /// - `max` and `min` of nothing raise `{"type": "Invalid Arguments"}`.
    static func arithmetic(
        _ op: JsonLogicOperator, _ arguments: [JSONValue], _ budget: inout JsonLogicBudget
    ) -> JSONValue {
        switch op {
        case .add:
            var sum = JsonLogicNumber.int(0)
            for value in arguments { sum = sum + value.jsonLogicOperand }
            return number(sum, &budget)
        case .multiply:
            var product = JsonLogicNumber.int(1)
            for value in arguments { product = product * value.jsonLogicOperand }
            return number(product, &budget)
        case .subtract, .divide, .remainder:
            let kind = Arithmetic(op)!
            guard let first = arguments.first, op != .remainder || arguments.count >= 2 else {
                return budget.raise(JsonLogicRaised.invalidArguments)
            }
            if arguments.count == 1 {
                let x = first.jsonLogicOperand
                return number(op == .subtract ? -x : .int(1) / x, &budget)
            }
            var result = first.jsonLogicOperand
            for value in arguments.dropFirst() { result = kind.combine(result, value.jsonLogicOperand) }
            return number(result, &budget)
        case .max, .min:
            guard !arguments.isEmpty else { return budget.raise(JsonLogicRaised.invalidArguments) }
            return number(extreme(arguments, wantsLarger: op == .max), &budget)
        default:
            return .null
        }
    }

    /// `Math.max` / `Math.min` over operands read as arithmetic reads them; `NaN` if any is not a number.
    private static func extreme(_ arguments: [JSONValue], wantsLarger: Bool) -> JsonLogicNumber {
        var best = arguments[0].jsonLogicOperand
        for value in arguments.dropFirst() {
            let number = value.jsonLogicOperand
            guard let order = JsonLogicNumber.compare(number, best) else { return .nan }
            if wantsLarger ? order > 0 : order < 0 { best = number }
        }
        return best
    }
}
