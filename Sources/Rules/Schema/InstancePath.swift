import LiveRelayCore

/// Where in the instance a value sits, and how a message names it.
struct InstancePath: Hashable, Comparable {
    /// One step from a value into a member or an element.
    enum Token: Hashable, Comparable {
        case index(Int)
        case key(String)
    }

    var tokens: [Token] = []
    /// Set while checking a member's key itself against `propertyNames`.
    var isKeyName = false

    func appending(_ token: Token) -> InstancePath { InstancePath(tokens: tokens + [token]) }

    /// RFC 6901 text.
    var pointer: String {
        tokens.map { token in
            switch token {
            case .index(let i): return "/\(i)"
            case .key(let k): return "/" + JSONPointer.escape(k)
            }
        }.joined()
    }

    /// How messages refer to the value: `"priority"`, `element 2`, `key "Foo"`, or `value` at the root.
    var subject: String {
        switch tokens.last {
        case .key(let k): return isKeyName ? "key \(quoted(k))" : quoted(k)
        case .index(let i): return "element \(i)"
        case nil: return "value"
        }
    }

    /// Orders parents before children, elements by index and keys alphabetically.
    static func < (a: InstancePath, b: InstancePath) -> Bool { a.tokens.lexicographicallyPrecedes(b.tokens) }
}

/// A string as JSON writes it, quotes and escapes included.
func quoted(_ s: String) -> String { JSONValue.string(s).jsonString() }
