/// The operators of json-logic-js and of the JsonLogic community (`val`, `exists`, `??`, `throw`, `try`,
/// `preserve`), by their name in a rule, and LiveRelay's `round` and `format` (numbers for people, computed
/// exactly).
enum JsonLogicOperator: String, CaseIterable, Sendable {
    case variable = "var"
    case val
    case exists
    case missing
    case missingSome = "missing_some"
    case `if`
    case ternary = "?:"
    case equal = "=="
    case strictEqual = "==="
    case notEqual = "!="
    case strictNotEqual = "!=="
    case not = "!"
    case truthy = "!!"
    case or
    case and
    case coalesce = "??"
    case `throw`
    case `try`
    case preserve
    case greater = ">"
    case greaterOrEqual = ">="
    case less = "<"
    case lessOrEqual = "<="
    case max
    case min
    case add = "+"
    case subtract = "-"
    case multiply = "*"
    case divide = "/"
    case remainder = "%"
    case map
    case reduce
    case filter
    case all
    case none
    case some
    case merge
    case `in`
    case cat
    case substr
    case log
    case round
    case format

    /// True for the operators that read the data directly rather than only through their arguments.
    var readsData: Bool {
        switch self {
        case .variable, .val, .exists, .missing, .missingSome: return true
        default: return false
        }
    }

    /// True for the operators whose arguments are a list of values of one kind, which one expression may
    /// also compute: `{"+": {"var": "prices"}}` adds the items of `prices`.
    var takesComputedList: Bool {
        switch self {
        case .add, .subtract, .multiply, .divide, .remainder, .max, .min, .cat: return true
        default: return false
        }
    }

    /// True for the operators that decide which of their arguments to evaluate, or that compare or iterate:
    /// they take their arguments written as a list, never one value or a computed list.
    var needsWrittenList: Bool {
        switch self {
        case .if, .ternary, .and, .or, .coalesce, .map, .filter, .reduce, .all, .none, .some, .equal,
            .strictEqual, .notEqual, .strictNotEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
            return true
        default:
            return false
        }
    }
}
