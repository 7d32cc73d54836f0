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

        /// `+` and `*` read their operands with `parseFloat` (so `"3 apples"` is 3), the others with
        /// `Number()` (so `""` and `null` are 0), exactly as json-logic-js does.
        func apply(_ lhs: JSONValue, _ rhs: JSONValue) -> JSONValue {
            switch self {
            case .add: return (lhs.jsParsedFloat + rhs.jsParsedFloat).json
            case .multiply: return (lhs.jsParsedFloat * rhs.jsParsedFloat).json
            case .subtract: return (lhs.jsNumber - rhs.jsNumber).json
            case .divide: return (lhs.jsNumber / rhs.jsNumber).json
            case .remainder: return (lhs.jsNumber % rhs.jsNumber).json
            }
        }
    }

    /// The arithmetic operators with any number of arguments.
    static func arithmetic(_ op: JsonLogicOperator, _ arguments: [JSONValue]) -> JSONValue {
        switch op {
        case .add:
            var sum = JsonLogicNumber.int(0)
            for value in arguments { sum = sum + value.jsParsedFloat }
            return sum.json
        case .multiply:
            // A reduce without an initial value: one argument comes back untouched, as in json-logic-js.
            guard let first = arguments.first else { return .null }
            if arguments.count == 1 { return first }
            var product = first.jsParsedFloat
            for value in arguments.dropFirst() { product = product * value.jsParsedFloat }
            return product.json
        case .subtract:
            switch arguments.count {
            case 0: return JsonLogicNumber.nan.json
            case 1: return (-arguments[0].jsNumber).json
            default: return Arithmetic.subtract.apply(arguments[0], arguments[1])
            }
        case .divide, .remainder:
            guard arguments.count >= 2 else { return JsonLogicNumber.nan.json }
            return Arithmetic(op)!.apply(arguments[0], arguments[1])
        case .max, .min:
            return extreme(arguments, wantsLarger: op == .max)
        default:
            return .null
        }
    }

    /// `Math.max` / `Math.min`: every argument as a number, `NaN` if any is not one, ∓Infinity with none.
    private static func extreme(_ arguments: [JSONValue], wantsLarger: Bool) -> JSONValue {
        var best = JsonLogicNumber.double(wantsLarger ? -.infinity : .infinity)
        for value in arguments {
            let number = value.jsNumber
            guard let order = JsonLogicNumber.compare(number, best) else { return JsonLogicNumber.nan.json }
            if wantsLarger ? order > 0 : order < 0 { best = number }
        }
        return best.json
    }
}
