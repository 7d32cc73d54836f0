public import LiveRelayCore

/// A push's alert as a report shows it: the title and body, or their localisation keys when the text is
/// left to the app.
public struct ReportAlert: Sendable, Hashable, Codable {
    public var title: String?
    public var body: String?

    /// An alert.
    public init(title: String?, body: String?) {
        self.title = title
        self.body = body
    }

    /// The alert a push carries; `nil` when it has no text.
    public init?(_ alert: LiveActivityAlert?) {
        guard let alert, alert.hasText else { return nil }
        self.init(title: alert.title ?? alert.titleLocKey, body: alert.body ?? alert.locKey)
    }

    /// `title: body`, or whichever is set.
    public var text: String { [title, body].compactMap { $0 }.joined(separator: ": ") }
}

/// An activity's priority-10 budget: `size` pushes per `period` seconds, each spent push returning one
/// period after it was sent (the throttle's `SendWindow`).
public struct ReportBudget: Sendable, Hashable, Codable {
    public var size: Int
    public var period: Int
    /// The app reported that the user enabled frequent updates (`size` is then the larger budget).
    public var frequentUpdates: Bool

    /// A budget.
    public init(size: Int, period: Int, frequentUpdates: Bool = false) {
        self.size = size
        self.period = period
        self.frequentUpdates = frequentUpdates
    }

    enum CodingKeys: String, CodingKey {
        case size, period
        case frequentUpdates = "frequent-updates"
    }
}

/// The facts a timeline shows for an entity: the state of a match or a price, never the whole body.
public enum ReportFacts {
    /// The fact names the report keeps (the presets' names, so every sports preset and every market
    /// preset fills them): the match state and period, the scores and shoot-out, the clock, and a price.
    public static let headline: [String] = [
        "state", "period", "clock.display", "home.abbr", "away.abbr", "home.score", "away.score", "home.shootout",
        "away.shootout", "price",
    ]

    /// The headline facts present in `facts`, and the `plotted` ones an author named.
    public static func headline(of facts: Facts?, plotted: [String] = []) -> [String: JSONValue] {
        guard let facts else { return [:] }
        var out: [String: JSONValue] = [:]
        for name in headline + plotted { if let value = facts[name], value != JSONValue.null { out[name] = value } }
        return out
    }
}

/// A rule that failed on a change: its id and the error a rule author reads.
public struct RuleFailure: Sendable, Hashable, Codable {
    public var rule: String
    public var message: String

    /// A failure.
    public init(rule: String, message: String) {
        self.rule = rule
        self.message = message
    }
}
