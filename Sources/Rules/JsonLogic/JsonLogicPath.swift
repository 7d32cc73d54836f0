import LiveRelayCore

/// A `var` path (`"curr.home.score"`, `"items.0"`, `1`), split into steps once so that a lookup
/// only hashes keys.
struct JsonLogicPath: Sendable {
    /// One step: an object key, which on an array is also an index when it is a canonical one (`"1"`, not `"01"`).
    struct Step: Sendable {
        let key: String
        let index: Int?

        init(_ key: String) {
            self.key = key
            if let i = Int(key), i >= 0, String(i) == key {
                index = i
            } else {
                index = nil
            }
        }
    }

    /// Empty for the whole data.
    let steps: [Step]
    /// The path's place in ``JsonLogicMemo``: equal paths share it, across every compiled expression; `-1`
    /// for the whole data.
    let slot: Int

    /// The path that designates the whole data.
    static let wholeData = JsonLogicPath(steps: [])

    init(steps: [Step]) {
        self.steps = steps
        // Each key with its length, so that `{"val": ["a.b"]}` and `{"var": "a.b"}` (two steps) differ.
        slot = steps.isEmpty ? -1 : JsonLogicMemo.slot(for: steps.map { "\($0.key.utf8.count):\($0.key)" }.joined())
    }

    /// The path of `val`'s keys: each one step, never split at dots; a number names an array index.
    init(keys: some Sequence<JSONValue>) {
        self.init(steps: keys.map { Step($0.jsString) })
    }

    /// The path a `var` argument names: `null` and `""` are the whole data, anything else is converted to
    /// text as JavaScript does and split at dots.
    init(_ argument: JSONValue) {
        switch argument {
        case .null, .string(""):
            self.init(steps: [])
        default:
            self.init(
                steps: argument.jsString.split(separator: ".", omittingEmptySubsequences: false).map {
                    Step(String($0))
                })
        }
    }

    /// The value at this path in `data`, or `nil` when it is not there, as json-logic-js decides it:
    /// descending through `null` is "not there", but a `null` at the end is found.
    ///
    /// Arrays and strings answer numeric indexes and `length`, as JavaScript property access does.
    func lookup(in data: JSONValue) -> JSONValue? {
        var current = data
        for step in steps {
            guard let next = JsonLogicPath.descend(current, step) else { return nil }
            current = next
        }
        return current
    }

    /// The value at the steps from `first` on (`val` reading past a scope's own name).
    func lookup(in data: JSONValue, from first: Int) -> JSONValue? {
        var current = data
        var i = first
        while i < steps.count {
            guard let next = JsonLogicPath.descend(current, steps[i]) else { return nil }
            current = next
            i += 1
        }
        return current
    }

    /// One step down from `current`, or `nil` when there is nothing there.
    @inline(__always)
    private static func descend(_ current: JSONValue, _ step: Step) -> JSONValue? {
        switch current {
        case .object(let members):
            return members[step.key]
        case .array(let items):
            if let i = step.index { return i < items.count ? items[i] : nil }
            return step.key == "length" ? .int(items.count) : nil
        case .string(let text):
            let units = text.utf16
            if let i = step.index {
                guard i < units.count else { return nil }
                return .string(String(decoding: [units[units.index(units.startIndex, offsetBy: i)]], as: UTF16.self))
            }
            return step.key == "length" ? .int(units.count) : nil
        case .null, .bool, .int, .double, .decimal:
            return nil
        }
    }
}
