public import LiveRelayCore

/// One compiled rule: when a change of `feed` satisfies `when`, act on the activity `activityKey` names.
public struct Rule: Sendable {
    public var id: String
    public var description: String?
    /// The feeds whose changes the rule watches (`entity.feed` tells which one changed); at least one.
    public var feeds: [String]
    /// The first of ``feeds``.
    public var feed: String { feeds[0] }
    /// What makes the rule look: a change of its feeds, or the clock.
    public var trigger: RuleTrigger
    public var when: JsonLogicExpression
    /// True when an expression other than the key may read `activity`; such a rule's key is computed first,
    /// to find the activity it reads.
    public var readsActivity: Bool
    /// True when the key and the condition read only `now`, `entity` and the activity's phase and times:
    /// a timer pass then tells whether the rule fires without reading the activity's record or the facts.
    public var decidedByTimes: Bool = false
    /// True for a rule ``decidedByTimes`` on `every` that reads neither `activity.sent-at` nor
    /// `entity.changed-at`: all it reads changes only when the activity's record is written (which has the
    /// activity looked at again), so a timer pass may skip ahead to the first due time its condition holds at.
    public var skipsIdleTicks: Bool = false
    public var activityKey: JsonLogicExpression
    /// The key as written, for checks that read it without evaluating it (which keys start rules make).
    public var writtenKey: JSONValue = .null
    /// Where the key was written.
    public var keyLocation: SourceLocation?
    /// The named constants of the rule's file (`"constants"`), which its expressions read as `constants.…`.
    public var constants: [String: JSONValue] = [:]
    public var attributesType: String
    /// Static attributes for `start`, by dotted field name.
    public var attributes: [FieldExpression]
    public var event: PushEvent
    /// The content-state patch, by dotted field name.
    public var contentState: [FieldExpression]
    public var relevance: JsonLogicExpression?
    /// The priority policy, or the expression that gives it per change (`priorityExpression`, when set).
    public var priority: PriorityPolicy
    /// An expression giving `"high"`, `"low"` or `"auto"` (null is `auto`) for each change.
    public var priorityExpression: JsonLogicExpression?
    public var whenBudgetSpent: BudgetExhaustion
    public var alert: AlertTemplate?
    public var staleAfter: Int?
    public var dismissalAfter: Int?
    /// Expressions giving `stale-after` and `dismissal-after` in seconds per change, when written so.
    public var staleAfterExpression: JsonLogicExpression?
    public var dismissalAfterExpression: JsonLogicExpression?
    /// Where the rule was written, for diagnostics at evaluation time.
    public var source: RuleSource
    /// For a start rule: whether a device that subscribes to the entity while the activity runs gets a start
    /// with the current state (its file's `late-join`, `start` by default).
    public var lateJoin: Bool = true
    /// The parameters its file declares for subscriptions (`subscription`): the rule is personal, evaluated
    /// once per subscription of the changed entity, and its activities are the subscriptions' own. `nil`
    /// for a shared rule.
    public var subscription: SubscriptionParameters?
    /// For a personal rule: the crossing its condition requires (its subscriptions are narrowed by level
    /// before it is evaluated), or why it has none (each subscription of the entity is evaluated).
    public var crossing: Result<Crossing, Crossing.NoCrossing>?
    /// For a personal rule: true when it fires only for a running activity (``LiveOnly``): it is evaluated
    /// only for the subscriptions that own one, when that is known.
    public var liveOnly = false
}

/// The parameters a rule file declares for the subscriptions its rules read (its `subscription`).
public struct SubscriptionParameters: Sendable {
    /// The rule file.
    public var file: String
    /// The schema, compiled.
    public var schema: JSONSchema
    /// The schema as written.
    public var written: JSONValue

    public init(file: String, schema: JSONSchema, written: JSONValue) {
        self.file = file
        self.schema = schema
        self.written = written
    }

    /// Why `parameters` cannot be a subscription's under `declared` (the parameters of every rule file of
    /// its feed), naming the field and the file (`parameters.above: expected a number … (alerts.json)`); `nil`
    /// when they can. No file declaring any is a reason too: no rule would read the subscription.
    public static func refusal(of parameters: JSONValue, feed: String, declared: [SubscriptionParameters]?)
        -> String?
    {
        guard let declared, !declared.isEmpty else {
            return
                "feed: no rule file of feed \"\(feed)\" declares \"subscription\" parameters, so no rule would read this subscription"
        }
        guard case .object = parameters else { return "parameters: expected an object, got \(parameters.typeName)" }
        for file in declared {
            guard let violation = file.schema.validate(parameters).first else { continue }
            let at = (try? JSONPointer(violation.pointer))?.tokens ?? [violation.pointer]
            // The file's name, not the server's folders.
            let name = file.file.split(separator: "/").last.map(String.init) ?? file.file
            return
                "\((["parameters"] + at).joined(separator: ".")): \(violation.message) (the parameters \(name) declares)"
        }
        return nil
    }
}

/// What makes a rule look at an activity.
public enum RuleTrigger: Sendable, Hashable, CustomStringConvertible {
    /// A change of an entity of the rule's feeds (the default).
    case change
    /// Each live activity, every so many seconds from its start.
    case every(Int)
    /// Each live activity once per quiet spell: when its entity has gone unchanged for so many seconds, or,
    /// with `facts`, when none of those facts (dotted paths, each covering the fields beneath it) changed.
    case quiet(Int, facts: [String] = [])

    /// True for the timer triggers.
    public var isTimer: Bool { self != .change }

    public var description: String {
        switch self {
        case .change: "change"
        case .every(let n): "every \(n) s"
        case .quiet(let n, let facts) where facts.isEmpty: "quiet \(n) s"
        case .quiet(let n, let facts): "quiet \(n) s on \(facts.joined(separator: ", "))"
        }
    }
}

/// One field a rule sets: a dotted path (`score.home` sets `{"score": {"home": …}}`) and its expression.
public struct FieldExpression: Sendable {
    public var path: [String]
    public var expression: JsonLogicExpression
    /// The expression as written, for checks that read it without evaluating it (content-state contracts).
    public var written: JSONValue = .null
    /// Where the field's name was written.
    public var location: SourceLocation?

    public init(
        path: [String], expression: JsonLogicExpression, written: JSONValue = .null, location: SourceLocation? = nil
    ) {
        self.path = path
        self.expression = expression
        self.written = written
        self.location = location
    }
}

/// A rule's alert: title and body are expressions, the sound a file name.
public struct AlertTemplate: Sendable {
    public var title: JsonLogicExpression
    public var body: JsonLogicExpression
    public var sound: String?
}

/// The file and position a rule came from.
public struct RuleSource: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var location: SourceLocation
    public var description: String { "\(file):\(location)" }
}
