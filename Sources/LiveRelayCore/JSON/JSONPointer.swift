/// A JSON Pointer (RFC 6901), parsed once and evaluated many times.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    /// The unescaped reference tokens.
    public let tokens: [String]

    /// An invalid JSON Pointer text.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public let text: String
        public let reason: String
        public var description: String { "invalid JSON Pointer \"\(text)\": \(reason)" }
    }

    /// The pointer to the whole document.
    public static let root = JSONPointer(tokens: [])

    public init(tokens: [String]) { self.tokens = tokens }

    /// Parses `""` or `/a/b~1c/0`.
    public init(_ text: String) throws(ParseError) {
        if text.isEmpty {
            tokens = []
            return
        }
        guard text.hasPrefix("/") else { throw ParseError(text: text, reason: "must be empty or start with '/'") }
        var out: [String] = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = ""
            var it = raw.makeIterator()
            while let c = it.next() {
                if c == "~" {
                    switch it.next() {
                    case "0": token.append("~")
                    case "1": token.append("/")
                    default: throw ParseError(text: text, reason: "'~' must be followed by 0 or 1")
                    }
                } else {
                    token.append(c)
                }
            }
            out.append(token)
        }
        tokens = out
    }

    /// The pointer text.
    public var description: String {
        tokens.isEmpty ? "" : "/" + tokens.map(JSONPointer.escape).joined(separator: "/")
    }

    /// Escapes one reference token (`~` → `~0`, `/` → `~1`).
    public static func escape(_ token: String) -> String {
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return token }
        return token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    /// A pointer one level deeper.
    public func appending(_ token: String) -> JSONPointer { JSONPointer(tokens: tokens + [token]) }

    /// The value this pointer designates in `document`, or `nil` when a step is missing.
    public func resolve(in document: JSONValue) -> JSONValue? {
        var current = document
        for token in tokens {
            switch current {
            case .object(let o):
                guard let next = o[token] else { return nil }
                current = next
            case .array(let a):
                guard let i = Int(token), i >= 0, i < a.count, token == String(i) else { return nil }
                current = a[i]
            default:
                return nil
            }
        }
        return current
    }
}

extension String {
    /// Small helper so Core does not need Foundation for pointer escaping.
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        var out = ""
        var rest = Substring(self)
        while let r = rest.firstRange(of: target) {
            out += rest[..<r.lowerBound]
            out += replacement
            rest = rest[r.upperBound...]
        }
        out += rest
        return out
    }
}
