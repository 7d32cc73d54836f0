public import LiveRelayCore

/// What the pipeline decided during a replay (or, for the live worker, what the store kept of an activity's
/// recent history), in the order it happened: the input of ``ReplayReport/build(_:)``.
///
/// Values only: the worker turns its poll plans, timer passes and throttle decisions into these as they
/// happen; nothing here reads a clock or a file. Times are UNIX seconds on the simulated clock.
public struct ReportTrace: Sendable, Hashable, Codable {
    /// What the report is about: the sequence's description, or the activity for the live report.
    public var title: String
    /// `replay` or `live`.
    public var source: String
    /// The feed bodies read, in order (empty for the live report).
    public var steps: [Step] = []
    /// Every change and timer look, with what the ledger and the throttle's queue made of it.
    public var looks: [Look] = []
    /// Every push the throttle released and every push it held, in order.
    public var releases: [Release] = []
    /// The activities, with their budgets, as they were at the end.
    public var activities: [Activity] = []
    /// Facts the author asked to see plotted (`replay --plot`), besides the headline ones.
    public var plotted: [String] = []

    /// An empty trace.
    public init(title: String, source: String = "replay") {
        self.title = title
        self.source = source
    }

    /// One feed body of the sequence.
    public struct Step: Sendable, Hashable, Codable {
        /// From 0, in sequence order.
        public var index: Int
        public var at: Int
        /// The step's note in the sequence file.
        public var note: String?
        /// How many entities the body held.
        public var entities: Int
        /// Set when the body could not be used (no change came of it).
        public var feedError: String?

        /// A step.
        public init(index: Int, at: Int, note: String? = nil, entities: Int = 0, feedError: String? = nil) {
            self.index = index
            self.at = at
            self.note = note
            self.entities = entities
            self.feedError = feedError
        }

        enum CodingKeys: String, CodingKey {
            case index, at, note, entities
            case feedError = "feed-error"
        }
    }

    /// One entity's change (or one timer look at an activity) and its consequences.
    public struct Look: Sendable, Hashable, Codable {
        public var at: Int
        /// The entity (`feed/id`).
        public var entity: String
        /// The fact paths that changed (empty for a timer look).
        public var changed: [String]
        /// The entity's facts after the change that a timeline shows (``ReportFacts/headline``).
        public var facts: [String: JSONValue]
        /// The rules whose `when` held.
        public var fired: [String]
        /// For a timer look, the timer rules that came due; empty for a change.
        public var timers: [String]
        /// The rules that failed, and why.
        public var errors: [RuleFailure]
        /// What became of the rules' intents, one per activity.
        public var outcomes: [Outcome]
        /// `new` when the entity came into the feed with this change, `gone` when it left it; `nil` otherwise.
        public var presence: String?

        /// A look.
        public init(
            at: Int, entity: String, changed: [String] = [], facts: [String: JSONValue] = [:], fired: [String] = [],
            timers: [String] = [], errors: [RuleFailure] = [], outcomes: [Outcome] = []
        ) {
            self.at = at
            self.entity = entity
            self.changed = changed
            self.facts = facts
            self.fired = fired
            self.timers = timers
            self.errors = errors
            self.outcomes = outcomes
        }
    }

    /// What one activity got from a look: a push queued, merged into the pending one, or nothing and why.
    public struct Outcome: Sendable, Hashable, Codable {
        public var activity: String
        public var rules: [String]
        /// `queued`, `merged` or `skipped`.
        public var kind: String
        /// Why nothing was queued (`skipped`).
        public var reason: String?
        /// The rules of the pending push it merged into (`merged`).
        public var into: [String]?
        /// The event the push would carry (`queued`, `merged`).
        public var event: String?

        /// An outcome.
        public init(
            activity: String, rules: [String], kind: String, reason: String? = nil, into: [String]? = nil,
            event: String? = nil
        ) {
            self.activity = activity
            self.rules = rules
            self.kind = kind
            self.reason = reason
            self.into = into
            self.event = event
        }
    }

    /// A push the throttle released (`sent`), or held for the budget (`held`).
    public struct Release: Sendable, Hashable, Codable {
        public var at: Int
        public var activity: String
        /// `sent` or `held`.
        public var kind: String
        public var rules: [String]
        /// Sent: the event, its final priority, its relevance, its alert and timestamp.
        public var event: String?
        public var priority: Int?
        /// Sent: it wanted priority 10 and went out at 5 without its alert (the budget was spent).
        public var downgraded: Bool
        public var relevance: Double?
        public var alert: ReportAlert?
        public var timestamp: Int?
        /// Held: when the budget returns.
        public var until: Int?
        /// Sent: the content-state it carried.
        public var contentState: JSONValue?

        /// A release.
        public init(
            at: Int, activity: String, kind: String, rules: [String], event: String? = nil, priority: Int? = nil,
            downgraded: Bool = false, relevance: Double? = nil, alert: ReportAlert? = nil, timestamp: Int? = nil,
            until: Int? = nil, contentState: JSONValue? = nil
        ) {
            self.contentState = contentState
            self.at = at
            self.activity = activity
            self.kind = kind
            self.rules = rules
            self.event = event
            self.priority = priority
            self.downgraded = downgraded
            self.relevance = relevance
            self.alert = alert
            self.timestamp = timestamp
            self.until = until
        }
    }

    /// An activity as it ended up, with its priority-10 budget.
    public struct Activity: Sendable, Hashable, Codable {
        public var key: String
        public var attributesType: String
        /// `pending`, `active`, `ended`.
        public var phase: String?
        public var budget: ReportBudget

        /// An activity.
        public init(key: String, attributesType: String, phase: String? = nil, budget: ReportBudget) {
            self.key = key
            self.attributesType = attributesType
            self.phase = phase
            self.budget = budget
        }

        enum CodingKeys: String, CodingKey {
            case key, phase, budget
            case attributesType = "attributes-type"
        }
    }
}
