/// One thing a feed reports on: a match, a symbol. Unique across feeds.
public struct EntityKey: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The feed id from the config.
    public var feed: String
    /// The entity's id inside that feed (a match id, a symbol).
    public var id: String

    public init(feed: String, id: String) {
        self.feed = feed
        self.id = id
    }

    public var description: String { "\(feed)/\(id)" }

    public static func < (a: EntityKey, b: EntityKey) -> Bool { (a.feed, a.id) < (b.feed, b.id) }
}

/// Identifies one Live Activity, as a rule's key expression produces it (for example `match-760499`).
public struct ActivityKey: Sendable, Hashable, Codable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public var rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }

    public var description: String { rawValue }
    public static func < (a: ActivityKey, b: ActivityKey) -> Bool { a.rawValue < b.rawValue }
}
