public import LiveRelayCore

/// Evaluates rules against feed changes and, for timer rules, against the clock. Pure: `now` and the
/// activities the rules read are parameters, no I/O.
public struct RuleEngine: Sendable {
    let rulesByFeed: [String: [Rule]]
    /// Every rule, in load order.
    public let rules: [Rule]
    /// The rules on the clock (`on: every` or `on: quiet`), in load order.
    public let timerRules: [Rule]
    /// The rule files' named constants, as rules read them (`constants.…`); `null` when there are none.
    public let constants: JSONValue
    /// By feed, the facts `quiet` rules name: when one changes in an entity, the store keeps the time.
    public let watchedFacts: [String: Set<String>]
    /// By feed, the parameters the rule files of its personal rules declare (one per file): a subscription
    /// to an entity of the feed must satisfy each.
    public let subscriptionParameters: [String: [SubscriptionParameters]]
    /// By feed, the crossings its personal rules require: a ``SubscriptionSet`` of the feed's entities
    /// builds their indexes.
    public let crossings: [String: [Crossing]]

    public init(rules: [Rule]) {
        self.rules = rules
        // The loader has made sure a name has one value across files.
        var constants: [String: JSONValue] = [:]
        for rule in rules {
            constants.merge(rule.constants) { first, _ in first }
        }
        self.constants = constants.isEmpty ? .null : .object(constants)
        var byFeed: [String: [Rule]] = [:]
        for rule in rules where !rule.trigger.isTimer {
            for feed in rule.feeds { byFeed[feed, default: []].append(rule) }
        }
        rulesByFeed = byFeed
        timerRules = rules.filter(\.trigger.isTimer)
        var watched: [String: Set<String>] = [:]
        for rule in timerRules {
            guard case .quiet(_, let facts) = rule.trigger, !facts.isEmpty else { continue }
            for feed in rule.feeds { watched[feed, default: []].formUnion(facts) }
        }
        watchedFacts = watched
        (subscriptionParameters, crossings) = Self.personal(rules)
    }

    /// Which of `names` (facts a quiet rule names) a change touches: a changed path that is the name, lies
    /// beneath it, or holds it.
    public static func touched(_ names: Set<String>, by change: FeedChange) -> [String] {
        names.filter { name in
            change.changedPaths.contains { path in
                path == name || path.hasPrefix(name + ".") || name.hasPrefix(path + ".")
            }
        }.sorted()
    }

    /// The data a rule's expressions see for a change: `prev`, `curr`, `changed`, `now` and `entity` (its
    /// `feed`, `id` and `changed-at`, the time its facts last changed), and `activity` when given.
    public static func data(
        for change: FeedChange, now: Int, changedAt: Int? = nil, activity: JSONValue? = nil,
        constants: JSONValue = .null, subscription: JSONValue? = nil
    ) -> JSONValue {
        var members: [String: JSONValue] = [
            "prev": change.previous?.value ?? .null,
            "curr": change.current?.value ?? .null,
            "changed": .array(change.changedPaths.map { .string($0) }),
            "now": .int(now),
            "entity": .object([
                "feed": .string(change.entity.feed), "id": .string(change.entity.id),
                "changed-at": .int(changedAt ?? now),
            ]),
        ]
        if let activity { members["activity"] = activity }
        if constants != .null { members["constants"] = constants }
        if let subscription { members["subscription"] = subscription }
        return .object(members)
    }

    /// What decides when timer rules come due (their ids, triggers, attributes types and feeds): when it
    /// changes (a reload, a new version of the rule files), every live activity is looked at again.
    public var timerFingerprint: String {
        timerRules.map { "\($0.id)|\($0.trigger)|\($0.attributesType)|\($0.feeds.joined(separator: ","))" }
            .joined(separator: "\n")
    }

    /// What `activity` is for a key the caller did not give: no activity of that key is known.
    public static let unknownActivity: JSONValue = .object([
        "phase": "none", "state": .emptyObject, "facts": .null, "started-at": .null, "pushed-at": .null,
        "changed-at": .null, "sent-at": .null, "delivered-state": .null, "budget": .null,
    ])

    /// The data and memos of one evaluation: the change's own, and one per activity a rule reads (the memo
    /// of `var` lookups is valid for one data object only).
    struct Scope {
        let data: JSONValue
        let memo: JsonLogicMemo
        let activities: [ActivityKey: JSONValue]
        /// For timers: the one activity the rules may act on.
        var only: ActivityKey?
        /// For personal rules: the subscription the data shows, which their intents carry.
        var subscription: SubscriptionOwner?
        var withActivity: [ActivityKey: (JSONValue, JsonLogicMemo)] = [:]

        init(
            data: JSONValue, memo: JsonLogicMemo = JsonLogicMemo(), activities: [ActivityKey: JSONValue],
            only: ActivityKey? = nil
        ) {
            self.data = data
            self.memo = memo
            self.activities = activities
            self.only = only
        }

        /// The data with `activity` set to the activity of `key`.
        mutating func data(for key: ActivityKey) -> (JSONValue, JsonLogicMemo) {
            if let made = withActivity[key] { return made }
            var data = self.data
            if case .object(var members) = data {
                members["activity"] = activities[key] ?? RuleEngine.unknownActivity
                data = .object(members)
            }
            let made = (data, JsonLogicMemo())
            withActivity[key] = made
            return made
        }
    }

    /// Evaluates one rule in `scope`, adding its intent or its error to `result`.
    /// `computed` is the rule's key in `scope` when it was computed already (``Reading``).
    static func run(
        _ rule: Rule, in scope: inout Scope, entity: EntityKey, facts: JSONValue?,
        key computed: Result<ActivityKey, RuleError>? = nil, into result: inout RuleEvaluation
    ) {
        var data = scope.data
        var memo = scope.memo
        // Computed first only when it decides what the rule sees (or, for a timer, whether it applies).
        var known: ActivityKey?
        if rule.readsActivity || scope.only != nil {
            switch computed ?? key(rule, data: data, memo: memo, entity: entity) {
            case .failure(let error):
                result.errors.append(error)
                return
            case .success(let key):
                if let only = scope.only, key != only { return }
                if rule.readsActivity { (data, memo) = scope.data(for: key) }
                known = key
            }
        }
        do {
            guard try rule.when.evaluate(data, memo: memo).isTruthy else { return }
        } catch {
            result.errors.append(
                RuleError(rule: rule.id, source: rule.source, entity: entity, message: "when \(error)"))
            return
        }
        switch intent(rule, data: data, memo: memo, entity: entity, key: known) {
        case .success(var intent):
            intent.facts = facts
            if rule.subscription != nil { intent.subscription = scope.subscription }
            result.intents.append(intent)
        case .failure(let error): result.errors.append(error)
        }
    }

    /// The activity key a rule computes for `data`.
    static func key(_ rule: Rule, data: JSONValue, memo: JsonLogicMemo, entity: EntityKey) -> Result<
        ActivityKey, RuleError
    > {
        func fail(_ message: String) -> Result<ActivityKey, RuleError> {
            .failure(RuleError(rule: rule.id, source: rule.source, entity: entity, message: message))
        }
        do {
            switch try rule.activityKey.evaluate(data, memo: memo) {
            case .string(let s) where !s.isEmpty: return .success(ActivityKey(s))
            case let v where v.isNumber: return .success(ActivityKey(v.jsonString()))
            case let v:
                return fail(
                    "activity key evaluated to \(v.typeName) \(v.jsonString().prefix(40)), expected a non-empty string")
            }
        } catch {
            return fail("activity \(error)")
        }
    }

    /// The intent of a rule that fired; `key` when it was computed already.
    static func intent(
        _ rule: Rule, data: JSONValue, memo: JsonLogicMemo, entity: EntityKey, key known: ActivityKey? = nil
    ) -> Result<ActivityIntent, RuleError> {
        func fail(_ message: String) -> Result<ActivityIntent, RuleError> {
            .failure(RuleError(rule: rule.id, source: rule.source, entity: entity, message: message))
        }
        /// An expression's value, or which of the rule's fields went past the evaluation limits.
        func value(_ expression: JsonLogicExpression, _ field: String) throws(FieldError) -> JSONValue {
            do { return try expression.evaluate(data, memo: memo) } catch {
                throw FieldError(message: "\(field) \(error)")
            }
        }
        do {
            let key: ActivityKey
            if let known {
                key = known
            } else {
                switch RuleEngine.key(rule, data: data, memo: memo, entity: entity) {
                case .success(let k): key = k
                case .failure(let error): return .failure(error)
                }
            }
            var relevance: RelevanceScore?
            if let expression = rule.relevance {
                let score = try value(expression, "relevance-score")
                guard let d = score.doubleValue, d.isFinite, d >= 0 else {
                    return fail("relevance-score evaluated to \(score.jsonString().prefix(40)), expected a number ≥ 0")
                }
                relevance = RelevanceScore(d)
            }
            var priority = rule.priority
            if let expression = rule.priorityExpression {
                switch try value(expression, "priority") {
                case .null: priority = .auto
                case .string(let text) where PriorityPolicy(rawValue: text) != nil:
                    priority = PriorityPolicy(rawValue: text)!
                case let v:
                    return fail(
                        "priority evaluated to \(v.typeName) \(v.jsonString().prefix(40)), expected \"high\", \"low\" or \"auto\""
                    )
                }
            }
            /// Seconds from `expression` when the rule computes them (null: none), else as written.
            func seconds(_ written: Int?, _ expression: JsonLogicExpression?, _ field: String) throws(FieldError)
                -> Int?
            {
                guard let expression else { return written }
                let v = try value(expression, field)
                guard v == .null || RuleEngine.seconds(v) != nil else {
                    throw FieldError(
                        message:
                            "\(field) evaluated to \(v.typeName) \(v.jsonString().prefix(40)), expected seconds ≥ 0")
                }
                return RuleEngine.seconds(v)
            }
            let staleAfter = try seconds(rule.staleAfter, rule.staleAfterExpression, "stale-after")
            let dismissalAfter = try seconds(rule.dismissalAfter, rule.dismissalAfterExpression, "dismissal-after")
            var alert: LiveActivityAlert?
            if let template = rule.alert {
                // A title that evaluates to null means no alert on this push: never an empty one.
                if let title = RuleEngine.text(try value(template.title, "alert.title")) {
                    alert = LiveActivityAlert(
                        title: title, body: RuleEngine.text(try value(template.body, "alert.body")),
                        sound: template.sound)
                } else if rule.event == .start {
                    return fail("alert title evaluated to null: a start needs an alert (Apple requires one)")
                }
            }
            return .success(
                ActivityIntent(
                    activity: key, attributesType: rule.attributesType, event: rule.event,
                    patch: try RuleEngine.object(rule.contentState, "content-state", data: data, memo: memo),
                    attributes: rule.event == .start
                        ? .object(try RuleEngine.object(rule.attributes, "attributes", data: data, memo: memo)) : nil,
                    alert: alert, relevance: relevance, priority: priority,
                    whenBudgetSpent: rule.whenBudgetSpent, staleAfter: staleAfter,
                    dismissalAfter: dismissalAfter, ruleID: rule.id, entity: entity, lateJoin: rule.lateJoin))
        } catch {
            return fail(error.message)
        }
    }

    /// Evaluates dotted fields into one nested object; a field past the evaluation limits is named
    /// `section.dotted.name` (the name is made only then).
    static func object(_ fields: [FieldExpression], _ section: String, data: JSONValue, memo: JsonLogicMemo)
        throws(FieldError) -> [String: JSONValue]
    {
        // Sized for every field at the top level (most are): a state or attributes object is made per alert.
        var facts = Facts([String: JSONValue](minimumCapacity: fields.count))
        for field in fields {
            do {
                facts.set(path: field.path, try field.expression.evaluate(data, memo: memo))
            } catch {
                throw FieldError(message: section + "." + field.path.joined(separator: ".") + " \(error)")
            }
        }
        return facts.value.objectValue ?? [:]
    }

    /// A field of a rule that could not be computed (past the evaluation limits, or a value of the wrong
    /// kind), said with the field's name.
    struct FieldError: Error {
        var message: String
    }

    /// Whole seconds from a number ≥ 0 (a fraction is cut), or nil.
    static func seconds(_ value: JSONValue) -> Int? {
        guard let d = value.doubleValue, d.isFinite, d >= 0, d < 1e15 else { return nil }
        return Int(d)
    }

    /// Alert text: strings as they are, numbers as JavaScript prints them, null as absent.
    static func text(_ value: JSONValue) -> String? {
        switch value {
        case .null: return nil
        case .string(let s): return s
        default: return value.jsonString()
        }
    }
}

/// What the rules made of one change.
public struct RuleEvaluation: Sendable {
    public var intents: [ActivityIntent] = []
    public var errors: [RuleError] = []
    public init() {}
}

/// A rule that fired but could not produce an intent (its key expression gave no string, say).
public struct RuleError: Error, Sendable, Hashable, CustomStringConvertible {
    public var rule: String
    public var source: RuleSource
    public var entity: EntityKey
    public var message: String
    public var description: String { "\(source): rule \(rule): \(entity): \(message)" }
}
