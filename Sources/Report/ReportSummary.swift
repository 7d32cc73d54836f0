/// The totals of a report: pushes by event and priority, and per rule how often it fired and what it
/// produced.
public struct ReportSummary: Sendable, Hashable, Codable {
    public var pushes = 0
    public var alerts = 0
    public var downgraded = 0
    public var held = 0
    public var merged = 0
    public var skipped = 0
    public var feedErrors = 0
    public var ruleErrors = 0
    /// Pushes by event and priority: starts, then updates, then ends, then any other event; 10 before 5.
    public var byEvent: [EventCount] = []
    /// Every rule that fired, failed or appears on a push, by id.
    public var rules: [RuleCount] = []

    enum CodingKeys: String, CodingKey {
        case pushes, alerts, downgraded, held, merged, skipped, rules
        case feedErrors = "feed-errors"
        case ruleErrors = "rule-errors"
        case byEvent = "by-event"
    }
}

/// How many pushes went out with one event at one priority.
public struct EventCount: Sendable, Hashable, Codable {
    public var event: String
    public var priority: Int
    public var count: Int

    /// A count.
    public init(event: String, priority: Int, count: Int) {
        self.event = event
        self.priority = priority
        self.count = count
    }
}

/// What one rule did over the whole report.
public struct RuleCount: Sendable, Hashable, Codable {
    public var rule: String
    /// Changes and timer looks on which its `when` held.
    public var fired = 0
    /// Pushes sent that carry it (alone or merged with other rules).
    public var pushes = 0
    /// Times its push merged into one already waiting.
    public var merged = 0
    /// Times it fired and nothing was queued; the reasons, each once, are in `reasons`.
    public var skipped = 0
    public var errors = 0
    /// The pushes it produced, by event and priority.
    public var produced: [EventCount] = []
    public var reasons: [String] = []

    /// A rule that has done nothing yet.
    public init(rule: String) { self.rule = rule }
}
