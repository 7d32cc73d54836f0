/// Where a Live Activity is in its life, as LiveRelay knows it.
public enum ActivityPhase: String, Sendable, Hashable, Codable {
    /// A start was decided and handed to the sender, not yet delivered.
    case pending
    /// Started; updates go to it.
    case active
    /// Ended; further updates are dropped until a new start.
    case ended
}

/// What LiveRelay remembers of one Live Activity between changes (and between cron ticks): the last full
/// content-state it sent and the last timestamp it used.
public struct ActivityRecord: Sendable, Hashable, Codable {
    public var key: ActivityKey
    public var attributesType: String
    public var phase: ActivityPhase
    /// The full content-state last handed to the sender.
    public var state: JSONValue
    /// The `timestamp` of the last push; the next one must be greater.
    public var lastTimestamp: Int

    public init(key: ActivityKey, attributesType: String, phase: ActivityPhase, state: JSONValue, lastTimestamp: Int) {
        self.key = key
        self.attributesType = attributesType
        self.phase = phase
        self.state = state
        self.lastTimestamp = lastTimestamp
    }
}
