import LiveRelayCore

/// One level around the data an iteration body or a `try` fallback reads, as `{"val": [[n], …]}` climbs.
enum JsonLogicScope: Sendable {
    /// The data around the iteration or `try`.
    case data(JSONValue)
    /// The iteration itself: `index` is the item's position, `iterator` the array iterated.
    case iteration(source: JSONValue, index: Int)
    /// The level a `try` fallback has in place of an iteration: nothing to read.
    case none
}

/// The arguments of `val` and `exists`: an optional climb `[n]` out of `n` scopes, then keys, each one step
/// (`["a.b"]` is the key `a.b`, not two steps).
///
/// In an iteration body (`map`, `filter`, `reduce`, `all`, `some`, `none`), one level up is the iteration
/// (`{"val": [[1], "index"]}` is the item's index) and two levels up the data around it; in a `try`
/// fallback, whose data is the error, two levels up is the data around the `try`. A climb past the outermost
/// level finds nothing. `-n` climbs as `n` does.
struct JsonLogicScopedPath: Sendable {
    /// How many levels to climb before reading `path`; 0 reads the data itself.
    let levels: Int
    /// The keys read from that level.
    let path: JsonLogicPath

    /// From `val`'s argument list: `[]` and `[null]` are the whole data; a single non-array value is one key.
    init(_ arguments: [JSONValue]) {
        var keys = arguments[...]
        if case .array(let climb)? = keys.first, climb.count == 1 {
            let n = climb[0].jsNumber.doubleValue.magnitude
            levels = n.isFinite ? Int(min(n, Double(Int32.max))) : 0
            keys = keys.dropFirst()
        } else {
            levels = 0
        }
        // null keys are skipped, so {"val": null} is the whole data.
        path = JsonLogicPath(keys: keys.filter { $0 != .null })
    }

    /// True when the path reads a level around the data, so whatever iterates around it must keep scopes.
    var climbs: Bool { levels > 0 }

    /// The value at the path, or `nil` when it is not there (`val` answers `null`, `exists` false).
    func lookup(in data: JSONValue, scopes: [JsonLogicScope]) -> JSONValue? {
        guard levels > 0 else { return path.lookup(in: data) }
        guard levels <= scopes.count else { return nil }
        switch scopes[scopes.count - levels] {
        case .data(let value):
            return path.lookup(in: value)
        case .none:
            return path.steps.isEmpty ? .null : nil
        case .iteration(let source, let index):
            guard let first = path.steps.first else { return .object(["iterator": source, "index": .int(index)]) }
            switch first.key {
            case "index": return path.lookup(in: .int(index), from: 1)
            case "iterator": return path.lookup(in: source, from: 1)
            default: return nil
            }
        }
    }
}
