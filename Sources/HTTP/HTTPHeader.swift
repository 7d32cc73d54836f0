/// One header field of a request or a response, in the order it was written or received.
public struct HTTPHeader: Sendable, Hashable {
    /// The field name, as written; compare it case-insensitively.
    public var name: String
    /// The field value, without surrounding whitespace.
    public var value: String

    /// Creates a header field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Creates a header field: `HTTPHeader("Content-Type", "application/json")`.
    public init(_ name: String, _ value: String) {
        self.init(name: name, value: value)
    }
}

extension Array where Element == HTTPHeader {
    /// The value of the first field called `name` (compared case-insensitively), or `nil`.
    public func first(named name: String) -> String? {
        first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Whether a field called `name` (compared case-insensitively) is present.
    public func contains(named name: String) -> Bool {
        contains { $0.name.caseInsensitiveEquals(name) }
    }
}

extension String {
    /// ASCII case-insensitive comparison, enough for header names (which are tokens).
    func caseInsensitiveEquals(_ other: String) -> Bool {
        let lhs = utf8
        let rhs = other.utf8
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).allSatisfy { asciiLowercase($0) == asciiLowercase($1) }
    }
}

private func asciiLowercase(_ byte: UInt8) -> UInt8 {
    (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
}
