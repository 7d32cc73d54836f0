/// The operators of json-logic-js, by their name in a rule, and LiveRelay's `round` and `format` (numbers
/// for people, computed exactly).
enum JsonLogicOperator: String, CaseIterable, Sendable {
    case variable = "var"
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
        case .variable, .missing, .missingSome: return true
        default: return false
        }
    }
}
