public import LiveRelayCore

/// Evaluates rules against feed changes. Pure: `now` is a parameter, no I/O.
public struct RuleEngine: Sendable {
    private let rulesByFeed: [String: [Rule]]
    /// Every rule, in load order.
    public let rules: [Rule]

    public init(rules: [Rule]) {
        self.rules = rules
        var byFeed: [String: [Rule]] = [:]
        for rule in rules {
            for feed in rule.feeds { byFeed[feed, default: []].append(rule) }
        }
        rulesByFeed = byFeed
    }

    /// The data a rule's expressions see for a change: `prev`, `curr`, `changed`, `now` and `entity`.
    public static func data(for change: FeedChange, now: Int) -> JSONValue {
        .object([
            "prev": change.previous?.value ?? .null,
            "curr": change.current?.value ?? .null,
            "changed": .array(change.changedPaths.map { .string($0) }),
            "now": .int(now),
            "entity": .object(["feed": .string(change.entity.feed), "id": .string(change.entity.id)]),
        ])
    }

    /// Runs every rule of the change's feed, in load order.
    public func evaluate(_ change: FeedChange, now: Int) -> RuleEvaluation {
        var result = RuleEvaluation()
        guard let rules = rulesByFeed[change.entity.feed] else { return result }
        let data = RuleEngine.data(for: change, now: now)
        let memo = JsonLogicMemo()
        // By index: a condition is read in place, and only a rule that fires is copied out.
        for i in rules.indices {
            do {
                guard try rules[i].when.evaluate(data, memo: memo).isTruthy else { continue }
            } catch {
                result.errors.append(
                    RuleError(
                        rule: rules[i].id, source: rules[i].source, entity: change.entity, message: "when \(error)"))
                continue
            }
            switch RuleEngine.intent(rules[i], data: data, memo: memo, entity: change.entity) {
            case .success(let intent): result.intents.append(intent)
            case .failure(let error): result.errors.append(error)
            }
        }
        return result
    }

    static func intent(_ rule: Rule, data: JSONValue, memo: JsonLogicMemo, entity: EntityKey) -> Result<
        ActivityIntent, RuleError
    > {
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
            let key: String
            switch try value(rule.activityKey, "activity") {
            case .string(let s) where !s.isEmpty: key = s
            case let v where v.isNumber: key = v.jsonString()
            case let v:
                return fail(
                    "activity key evaluated to \(v.typeName) \(v.jsonString().prefix(40)), expected a non-empty string")
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
                    activity: ActivityKey(key), attributesType: rule.attributesType, event: rule.event,
                    patch: try RuleEngine.object(rule.contentState, "content-state", data: data, memo: memo),
                    attributes: rule.event == .start
                        ? .object(try RuleEngine.object(rule.attributes, "attributes", data: data, memo: memo)) : nil,
                    alert: alert, relevance: relevance, priority: priority,
                    whenBudgetSpent: rule.whenBudgetSpent, staleAfter: staleAfter,
                    dismissalAfter: dismissalAfter, ruleID: rule.id, entity: entity))
        } catch {
            return fail(error.message)
        }
    }

    /// Evaluates dotted fields into one nested object; a field past the evaluation limits is named
    /// `section.dotted.name` (the name is made only then).
    static func object(_ fields: [FieldExpression], _ section: String, data: JSONValue, memo: JsonLogicMemo)
        throws(FieldError) -> [String: JSONValue]
    {
        var facts = Facts()
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
