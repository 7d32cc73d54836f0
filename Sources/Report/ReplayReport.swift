public import LiveRelayCore

/// What a replay (or an activity's recent history in `run`) decided, as one value: the data of the HTML
/// report and exactly what `--report FILE.json` writes (documented in `docs/report.md`, checked by
/// `docs/report.schema.json`).
///
/// Built by ``build(_:)``, a pure function of a ``ReportTrace``; the HTML renders from it and reads nothing
/// else. Times are UNIX seconds on the simulated clock; activities are in key order, everything within an
/// activity in time order.
public struct ReplayReport: Sendable, Hashable, Codable {
    /// The version of this format; a change that breaks a reader raises it.
    public static let formatVersion = 1

    public var version: Int
    public var title: String
    /// `replay` or `live`.
    public var source: String
    /// The first and last moment anything happened.
    public var from: Int
    public var until: Int
    /// The feed bodies read, in order (empty for `live`).
    public var steps: [ReportTrace.Step]
    public var activities: [ActivityReport]
    public var summary: ReportSummary
    /// The facts the author asked to see plotted (`replay --plot`), besides the headline ones.
    public var plotted: [String]? = nil
}

/// One activity: its timeline of changes, pushes and holds, and its priority-10 budget over time.
public struct ActivityReport: Sendable, Hashable, Codable {
    public var key: String
    public var attributesType: String
    public var phase: String?
    /// The entities whose changes reached the activity.
    public var entities: [String]
    public var budget: ReportBudget
    /// The first and last moment on the activity's timeline.
    public var from: Int
    public var until: Int
    /// Every change of its entities, and every timer look at it, with what it led to.
    public var changes: [ReportChange]
    /// Every push the throttle released for it.
    public var pushes: [ReportPush]
    /// Every wait for the budget.
    public var holds: [ReportHold]
    /// Priority-10 pushes counting against the budget after each send and each refill.
    public var budgetPoints: [BudgetPoint]
    public var counts: ActivityCounts

    enum CodingKeys: String, CodingKey {
        case key, phase, entities, budget, from, until, changes, pushes, holds, counts
        case attributesType = "attributes-type"
        case budgetPoints = "budget-points"
    }
}

/// A change of one of the activity's entities (or a timer look), and what came of it for this activity.
public struct ReportChange: Sendable, Hashable, Codable {
    public var at: Int
    public var entity: String
    /// The fact paths that changed; empty for a timer look.
    public var changed: [String]
    /// The headline facts after the change (``ReportFacts/headline``).
    public var facts: [String: JSONValue]
    /// The rules that fired for this activity (all that fired for the entity when none reached it).
    public var rules: [String]
    /// For a timer look, the timer rules that came due.
    public var timers: [String]
    public var errors: [RuleFailure]
    /// `none` (no rule acted on the activity), `queued`, `merged` (into the pending push: latest state
    /// wins) or `skipped`.
    public var outcome: String
    /// Why nothing was queued, for `skipped`.
    public var reason: String?
    /// The rules of the pending push it merged into, for `merged`.
    public var into: [String]?
    /// `new` (the entity came into the feed), `back` (it came back after leaving), `gone` (it left the feed);
    /// `nil` for an entity that was there before and after.
    public var presence: String? = nil
}

/// A push as the provider got it.
public struct ReportPush: Sendable, Hashable, Codable {
    /// When the throttle released it.
    public var at: Int
    public var event: String
    /// 10 or 5, as sent.
    public var priority: Int
    /// It wanted 10 and went out at 5 without its alert: the budget was spent.
    public var downgraded: Bool
    public var relevance: Double?
    public var alert: ReportAlert?
    public var rules: [String]
    /// The push's timestamp (strictly increasing per activity).
    public var timestamp: Int?
    /// How many later changes merged into it while it waited.
    public var merged: Int
    /// When it started waiting for the budget, if it was held.
    public var heldSince: Int?
    /// The whole content-state it carried (what the app shows).
    public var contentState: JSONValue?
    /// What differs from the activity's previous push: each member (dotted path) that changed, was added or
    /// removed (`null`), with its new value; every member for the first push.
    public var change: [String: JSONValue]?

    enum CodingKeys: String, CodingKey {
        case at, event, priority, downgraded, relevance, alert, rules, timestamp, merged, change
        case heldSince = "held-since"
        case contentState = "content-state"
    }
}

/// A push that waited for the priority-10 budget.
public struct ReportHold: Sendable, Hashable, Codable {
    /// When it started waiting.
    public var at: Int
    /// When the budget returns.
    public var until: Int
    /// When it went out; `nil` if it still waits.
    public var releasedAt: Int?
    public var rules: [String]

    /// A hold.
    public init(at: Int, until: Int, releasedAt: Int? = nil, rules: [String]) {
        self.at = at
        self.until = until
        self.releasedAt = releasedAt
        self.rules = rules
    }

    enum CodingKeys: String, CodingKey {
        case at, until, rules
        case releasedAt = "released-at"
    }
}

/// The priority-10 budget in use at a moment: after a send spent one (`send`) or after a spent one
/// returned (`refill`).
public struct BudgetPoint: Sendable, Hashable, Codable {
    public var at: Int
    /// Priority-10 pushes counting against the budget from this moment.
    public var used: Int
    /// `send` or `refill`.
    public var change: String
}

/// An activity's totals.
public struct ActivityCounts: Sendable, Hashable, Codable {
    public var pushes = 0
    /// Sent at priority 10 (starts included: they are always 10, outside the budget).
    public var high = 0
    public var low = 0
    public var alerts = 0
    public var downgraded = 0
    public var held = 0
    public var merged = 0
    public var skipped = 0
    /// Fewest priority-10 pushes left in the budget at any moment.
    public var budgetLow: Int

    enum CodingKeys: String, CodingKey {
        case pushes, high, low, alerts, downgraded, held, merged, skipped
        case budgetLow = "budget-low"
    }
}
