/// What a push does to a Live Activity. An open set: Apple may add events.
public struct PushEvent: Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// Push-to-start: creates the activity on the device.
    public static let start = PushEvent(rawValue: "start")
    /// Replaces the activity's content-state.
    public static let update = PushEvent(rawValue: "update")
    /// Ends the activity (it stays on the lock screen until its dismissal date).
    public static let end = PushEvent(rawValue: "end")

    /// The events LiveRelay knows how to send.
    public static let known: [PushEvent] = [.start, .update, .end]

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }

    public var description: String { rawValue }
}

/// The APNs priority a push goes out with. Priority 10 is delivered at once and counts against the
/// activity's budget; priority 5 is delivered opportunistically and does not.
public enum PushPriority: Int, Sendable, Hashable, Codable, CustomStringConvertible {
    case low = 5
    case high = 10

    public var description: String { String(rawValue) }
}

/// Orders a device's Live Activities and a sender's queue: higher is more important. Apple reads it as a
/// relative number; LiveRelay keeps it as given.
public struct RelevanceScore: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    public var value: Double

    public init(_ value: Double) { self.value = value }

    public init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Double.self) }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(value)
    }

    public static func < (a: RelevanceScore, b: RelevanceScore) -> Bool { a.value < b.value }
    public var description: String { JSONValue.double(value).jsonString() }
}
