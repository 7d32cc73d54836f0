public import LiveRelayCore

/// What a timer pass does with one live activity (``RuleEngine/look(at:now:)``).
public struct TimerLook: Sendable {
    /// The rules to evaluate in full, each with the time it came due: their condition holds on the
    /// activity's times, or cannot be told from them. Their looks are recorded.
    public var evaluate: [(rule: Int, at: Int)] = []
    /// Looks recorded without evaluating: rules told from the activity's times to fire nothing that look once
    /// per due time (a `quiet` rule once per quiet spell).
    public var idle: [(rule: Int, at: Int)] = []
    /// True when a rule came due at this pass, whatever it decided.
    public var isDue = false
    /// When a rule may next come due, once these looks are recorded; `nil` when no timer rule applies.
    public var next: Int?
}

extension RuleEngine {
    /// How many due times a rule that skips idle ones looks ahead at most: an activity none of them fires at
    /// is read again at the last one.
    public static let skipHorizon = 128

    /// Which timer rules are due for a live activity now, each with the time it came due (what the activity
    /// keeps as the rule's last look), and the earliest time another may come due (for a quiet rule that
    /// already looked in this spell: `now` plus its span, the earliest a new spell could end); `nil` when no
    /// timer rule applies to it. Every due time counts here, also those a look would skip.
    public func dueTimers(for subject: TimerSubject, now: Int) -> (due: [(rule: Int, at: Int)], next: Int?) {
        var due: [(rule: Int, at: Int)] = []
        var next: Int?
        for i in timerRules.indices where applies(timerRules[i], to: subject) {
            switch decide(timerRules[i], for: subject, now: now) {
            case .due(let at): due.append((i, at))
            case .wait(let until): next = min(next ?? until, until)
            case .done:
                if case .quiet(let span, _) = timerRules[i].trigger { next = min(next ?? now + span, now + span) }
            }
        }
        return (due, next)
    }

    /// One look of a timer pass at a live activity: each rule that came due is evaluated in full, unless
    /// its key and condition read only the activity's phase and times (``Rule/decidedByTimes``) and say it
    /// fires nothing. Such a rule on `every` that reads neither `activity.sent-at` nor `entity.changed-at`
    /// (``Rule/skipsIdleTicks``) records no look: its next due time is the first one its condition holds at
    /// (at most ``skipHorizon`` ahead), because nothing it reads changes before then without the activity's
    /// record being written, which has it looked at again. `skipAhead: false` looks at every due time.
    public func look(at subject: TimerSubject, now: Int, skipAhead: Bool = true) -> TimerLook {
        var look = TimerLook()
        var looked = subject
        var probe: TimesProbe?
        for i in timerRules.indices where applies(timerRules[i], to: subject) {
            let rule = timerRules[i]
            guard case .due(let at) = decide(rule, for: subject, now: now) else { continue }
            look.isDue = true
            if rule.decidedByTimes, probe == nil { probe = TimesProbe(subject, constants: constants) }
            if rule.decidedByTimes, probe?.fires(rule, at: at) == false {
                if skipAhead, rule.skipsIdleTicks { continue }
                look.idle.append((i, at))
            } else {
                look.evaluate.append((i, at))
            }
            looked.looks[rule.id] = at
        }
        look.next = nextDue(for: looked, now: now, skipAhead: skipAhead)
        return look
    }

    /// When a timer rule may next come due for a live activity, as its looks stand (``look(at:now:skipAhead:)``):
    /// a rule that skips idle due times at the first one its condition holds at; `now` or earlier when one is
    /// due already; `nil` when no timer rule applies.
    public func nextDue(for subject: TimerSubject, now: Int, skipAhead: Bool = true) -> Int? {
        var next: Int?
        var skipping: [(rule: Rule, from: Int, period: Int)] = []
        for rule in timerRules where applies(rule, to: subject) {
            let decision = decide(rule, for: subject, now: now)
            if skipAhead, rule.skipsIdleTicks, case .every(let period) = rule.trigger {
                switch decision {
                case .due(let at): skipping.append((rule, at, period))
                case .wait(let until): skipping.append((rule, until, period))
                case .done: break
                }
                continue
            }
            switch decision {
            case .due(let at): next = min(next ?? at, at)
            case .wait(let until): next = min(next ?? until, until)
            case .done:
                if case .quiet(let span, _) = rule.trigger { next = min(next ?? now + span, now + span) }
            }
        }
        // The activity is read again at the others' next due time in any case: no need to look beyond it.
        guard !skipping.isEmpty else { return next }
        var probe = TimesProbe(subject, constants: constants)
        for (rule, from, period) in skipping {
            var at = from
            var ticks = 1
            while at < (next ?? Int.max), ticks < Self.skipHorizon, !probe.fires(rule, at: at) {
                at += period
                ticks += 1
            }
            next = min(next ?? at, at)
        }
        return next
    }

    /// Runs the timer rules `due` (indices into ``timerRules``, each with the time it came due) for one live
    /// activity, its entity's facts standing as both `prev` and `curr` (`changed` is empty). Each rule sees
    /// `now` as the time it came due, so what it decides does not hang on when the pass ran. A rule whose key
    /// names another activity does nothing here. The activity of a subscription (`subscription`, when it
    /// still exists) shows it to the rules, with how many of its alerts are behind it (`earlierAlerts`).
    public func evaluateTimers(
        _ due: [(rule: Int, at: Int)], for subject: TimerSubject, facts: Facts?, activity: JSONValue,
        subscription: Subscription? = nil, earlierAlerts: Int = 0
    ) -> RuleEvaluation {
        var result = RuleEvaluation()
        let still = FeedChange(entity: subject.entity, previous: facts, current: facts, changedPaths: [])
        var scopes: [Int: Scope] = [:]
        for (i, at) in due {
            var scope =
                scopes[at]
                ?? Scope(
                    data: RuleEngine.data(
                        for: still, now: at, changedAt: subject.changedAt ?? subject.startedAt, constants: constants,
                        subscription: subscription?.view(earlierAlerts: earlierAlerts)),
                    activities: [subject.activity: activity], only: subject.activity)
            scope.subscription = subscription?.owner
            RuleEngine.run(timerRules[i], in: &scope, entity: subject.entity, facts: facts?.value, into: &result)
            scopes[at] = scope
        }
        for i in result.intents.indices { result.intents[i].timer = true }
        return result
    }

    /// Whether the timer rule `rule` (an index into ``timerRules``), ``Rule/decidedByTimes``, fires for the
    /// activity at `at`, told from the activity's phase and times: false when its key names another activity
    /// or its condition is false; true when it holds, or when evaluating fails (the full evaluation reports
    /// it).
    public func firesOnTimes(_ rule: Int, for subject: TimerSubject, at: Int) -> Bool {
        var probe = TimesProbe(subject, constants: constants)
        return probe.fires(timerRules[rule], at: at)
    }

    private func applies(_ rule: Rule, to subject: TimerSubject) -> Bool {
        rule.attributesType == subject.attributesType && rule.feeds.contains(subject.entity.feed)
    }

    /// When the quiet spell of a `quiet` rule began for the activity, as far as the store knows: the last change
    /// of the facts the rule names (of any fact when it names none); `nil` when the feed no longer has the
    /// entity or none of the named facts changed since LiveRelay began watching them (the spell then counts
    /// from the activity's start).
    static func quietSince(_ trigger: RuleTrigger, _ subject: TimerSubject) -> Int? {
        guard case .quiet(_, let facts) = trigger, !facts.isEmpty, subject.changedAt != nil else {
            return subject.changedAt
        }
        return facts.compactMap { subject.factsChangedAt[$0] }.max()
    }

    private func decide(_ rule: Rule, for subject: TimerSubject, now: Int) -> TimerClock.Decision {
        TimerClock.decide(
            rule.trigger, startedAt: subject.startedAt, lastLook: subject.looks[rule.id],
            changedAt: Self.quietSince(rule.trigger, subject), now: now)
    }
}

/// The light view of one live activity (`now`, `entity`, the activity's phase and times), built once and
/// evaluated at one due time after another.
struct TimesProbe {
    let subject: TimerSubject
    private var members: [String: JSONValue]

    init(_ subject: TimerSubject, constants: JSONValue = .null) {
        self.subject = subject
        func time(_ t: Int?) -> JSONValue { t.map { .int($0) } ?? .null }
        let still = FeedChange(entity: subject.entity, previous: nil, current: nil, changedPaths: [])
        guard
            case .object(let members) = RuleEngine.data(
                for: still, now: 0, changedAt: subject.changedAt ?? subject.startedAt,
                activity: .object([
                    "phase": .string(subject.phase), "started-at": .int(subject.startedAt),
                    "pushed-at": time(subject.pushedAt), "sent-at": time(subject.sentAt),
                    "changed-at": time(subject.activityChangedAt ?? subject.startedAt),
                ]), constants: constants)
        else { preconditionFailure("the data of a rule is an object") }
        self.members = members
    }

    /// Whether `rule` fires for the activity at `at` (see ``RuleEngine/firesOnTimes(_:for:at:)``).
    mutating func fires(_ rule: Rule, at: Int) -> Bool {
        members["now"] = .int(at)
        let data = JSONValue.object(members)
        switch try? rule.activityKey.evaluate(data) {
        case .string(let key)? where !key.isEmpty:
            guard ActivityKey(key) == subject.activity else { return false }
        case let value? where value.isNumber:
            guard ActivityKey(value.jsonString()) == subject.activity else { return false }
        default:
            return true  // no key: the full evaluation reports it
        }
        return (try? rule.when.evaluate(data).isTruthy) ?? true
    }
}
