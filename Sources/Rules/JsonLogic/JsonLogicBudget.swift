import LiveRelayCore

/// The most work one evaluation of an expression may do. A rule is code an author (or a hostile edit) wrote:
/// a `reduce` that doubles a string forty times would otherwise ask for terabytes.
public struct JsonLogicLimits: Sendable, Hashable {
    /// Evaluation steps: one per operator or value visited, plus the size of every text, array or object an
    /// operator reads or builds.
    public var steps: Int
    /// The size of any value an operator builds: one per scalar, the UTF-8 bytes of strings and keys (about
    /// the bytes of its JSON text).
    public var valueSize: Int
    /// How deeply a built value may nest; the JSON parser's own limit.
    public var depth: Int

    public init(steps: Int, valueSize: Int, depth: Int) {
        self.steps = steps
        self.valueSize = valueSize
        self.depth = depth
    }

    /// Ten million steps (a fraction of a second), values up to about 1 MB, 512 levels.
    public static let standard = JsonLogicLimits(steps: 10_000_000, valueSize: 1_000_000, depth: 512)
}

/// An evaluation that went past one of its `JsonLogicLimits`; it produced no value.
public struct JsonLogicLimitError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        case steps, valueSize = "value-size", depth
    }

    public let kind: Kind
    public let limit: Int

    public init(kind: Kind, limit: Int) {
        self.kind = kind
        self.limit = limit
    }

    public var description: String {
        switch kind {
        case .steps: return "takes more than \(limit) evaluation steps"
        case .valueSize: return "builds a value larger than \(limit) bytes"
        case .depth: return "builds a value nested deeper than \(limit) levels"
        }
    }
}

/// What one evaluation has left to spend. Once spent, every node answers `null` at once, so the evaluation
/// unwinds in steps bounded by the expression's size, and the caller reports `exceeded`.
///
/// An error an operator raises (`throw`, arithmetic without a number) unwinds the same way: the budget is
/// held spent until a `try` takes the error back with `catchRaised()`, or the caller reports `raised`. The
/// budget also carries what unwinds with the evaluation: the data around the iteration bodies and `try`
/// fallbacks being evaluated, which `{"val": [[n], …]}` climbs to.
struct JsonLogicBudget {
    let limits: JsonLogicLimits
    private var remaining: Int
    private(set) var exceeded: JsonLogicLimitError?
    /// What only some evaluations need, made when one first does: an ordinary evaluation's budget stays a
    /// few integers, made and dropped at no cost. Never shared: a budget is not copied once in use.
    private var unwinding: Unwinding?

    /// The error raised and its scopes, kept apart from the counters.
    private final class Unwinding {
        /// The error raised and not (yet) caught.
        var raised: JSONValue?
        /// `remaining` when `raised` was raised, given back when a `try` catches it.
        var remainingBeforeRaise = 0
        /// The enclosing scopes, innermost last.
        var scopes: [JsonLogicScope] = []
    }

    /// The error raised and not (yet) caught.
    var raised: JSONValue? { unwinding?.raised }

    /// The enclosing scopes, innermost last; empty outside iteration bodies and `try` fallbacks, and for
    /// those whose body never climbs (see `JsonLogicScopedPath`).
    var scopes: [JsonLogicScope] { unwinding?.scopes ?? [] }

    init(_ limits: JsonLogicLimits) {
        self.limits = limits
        remaining = limits.steps
    }

    /// True once a limit was passed (`fail` leaves `remaining` far below zero, so one comparison says it).
    var isSpent: Bool { remaining < 0 }

    /// One step; false once the budget is spent.
    @inline(__always)
    mutating func step() -> Bool {
        remaining -= 1
        return remaining >= 0 || fail(.steps, limits.steps)
    }

    /// Charges reading `value` (texts, arrays and objects cost their size); false once the budget is spent.
    @inline(__always)
    mutating func read(_ value: JSONValue) -> Bool {
        switch value {
        case .string(let text):
            remaining -= text.utf8.count
            return remaining >= 0 || fail(.steps, limits.steps)
        case .array, .object:
            return measure(value) != nil
        default:
            return remaining >= 0
        }
    }

    /// Charges reading every value of `values`.
    mutating func read(_ values: [JSONValue]) -> Bool {
        for value in values where !read(value) { return false }
        return remaining >= 0
    }

    /// Charges a value an operator built, and checks it against the size and depth limits. The value is
    /// measured only as far as the smaller of the size limit and the steps left, so a value that shares one
    /// large part many times is caught without walking all of it.
    mutating func admit(_ value: JSONValue) -> Bool {
        switch value {
        case .string(let text):
            let size = text.utf8.count
            if size > limits.valueSize { return fail(.valueSize, limits.valueSize) }
            remaining -= size
            return remaining >= 0 || fail(.steps, limits.steps)
        case .array, .object:
            return measure(value, sizeLimit: limits.valueSize) != nil
        default:
            return remaining >= 0
        }
    }

    /// Walks `value`, charging its size; nil (and the budget spent) past the steps left, `sizeLimit` or the
    /// depth limit. The walk stops at the first of them, so it never costs more than the budget left.
    private mutating func measure(_ value: JSONValue, sizeLimit: Int? = nil) -> Int? {
        guard remaining >= 0 else { return nil }
        let sizeBinds = sizeLimit.map { $0 < remaining } ?? false
        let cap = sizeBinds ? sizeLimit! : remaining
        let maxDepth = limits.depth
        var size = 0
        var tooDeep = false
        func walk(_ value: JSONValue, _ depth: Int) -> Bool {
            switch value {
            case .string(let text):
                size += 1 + text.utf8.count
            case .array(let items):
                guard depth < maxDepth else {
                    tooDeep = true
                    return false
                }
                size += 1
                for item in items where size <= cap {
                    if !walk(item, depth + 1) { return false }
                }
            case .object(let members):
                guard depth < maxDepth else {
                    tooDeep = true
                    return false
                }
                size += 1
                for (key, item) in members where size <= cap {
                    size += key.utf8.count
                    if !walk(item, depth + 1) { return false }
                }
            default:
                size += 1
            }
            return size <= cap
        }
        let within = walk(value, 0)
        remaining -= size
        if tooDeep {
            _ = fail(.depth, maxDepth)
        } else if !within {
            _ = sizeBinds ? fail(.valueSize, sizeLimit!) : fail(.steps, limits.steps)
        }
        return exceeded == nil ? size : nil
    }

    /// Marks the budget spent with its first cause; always false. `remaining` goes so far below zero that
    /// no later charge brings it back. While a raised error unwinds, the charges that find the budget spent
    /// are not a limit passed.
    private mutating func fail(_ kind: JsonLogicLimitError.Kind, _ limit: Int) -> Bool {
        if exceeded == nil, unwinding?.raised == nil { exceeded = JsonLogicLimitError(kind: kind, limit: limit) }
        remaining = Int.min / 2
        return false
    }

    /// The state apart from the counters, made on first use.
    private mutating func unwindingState() -> Unwinding {
        if let unwinding { return unwinding }
        let made = Unwinding()
        unwinding = made
        return made
    }

    /// Pushes the two levels an iteration body climbs to: the data around the iteration, then the iteration
    /// at its first item. `moveScope` moves it on, `leaveScope` pops both.
    mutating func enter(around data: JSONValue, iterating source: JSONValue) {
        let state = unwindingState()
        state.scopes.append(.data(data))
        state.scopes.append(.iteration(source: source, index: 0))
    }

    /// Pushes the two levels a `try` fallback climbs to: nothing, then the data around the `try`.
    mutating func enterFallback(around data: JSONValue) {
        let state = unwindingState()
        state.scopes.append(.data(data))
        state.scopes.append(.none)
    }

    /// The innermost iteration at its item `index`.
    mutating func moveScope(to index: Int, of source: JSONValue) {
        guard let state = unwinding, !state.scopes.isEmpty else { return }
        state.scopes[state.scopes.count - 1] = .iteration(source: source, index: index)
    }

    /// Pops the two levels of the innermost `enter` or `enterFallback`.
    mutating func leaveScope() {
        unwinding?.scopes.removeLast(2)
    }

    /// Raises `error` (an error object such as `{"type": "NaN"}`): the evaluation unwinds as if spent, to the
    /// nearest `try`. Nothing is raised once the budget is spent. Always `null`, the value of the node that
    /// raised.
    mutating func raise(_ error: JSONValue) -> JSONValue {
        guard remaining >= 0 else { return .null }
        let state = unwindingState()
        state.raised = error
        state.remainingBeforeRaise = remaining
        remaining = Int.min / 2
        return .null
    }

    /// The raised error, taken back so that the evaluation goes on with the budget it had when the error was
    /// raised; `nil` when none was raised, or when a limit was passed (a limit is never caught).
    mutating func catchRaised() -> JSONValue? {
        guard let state = unwinding, let error = state.raised, exceeded == nil else { return nil }
        state.raised = nil
        remaining = state.remainingBeforeRaise
        return error
    }
}

/// The error objects JsonLogic operators raise themselves, as the community suites name them.
enum JsonLogicRaised {
    /// Arithmetic or a numeric comparison on a value that is not a number, or with no finite result.
    static let notANumber: JSONValue = ["type": "NaN"]
    /// Arguments an operator cannot work with, found only when evaluating (a computed argument list).
    static let invalidArguments: JSONValue = ["type": "Invalid Arguments"]
}
