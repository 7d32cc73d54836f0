import LiveRelayCore
import Rules
import StoreCore
public import Throttling

/// The timer stage: the clock's own path into the same decisions. The live activities whose stored due
/// time came are looked at by their timer rules; what they decide goes through the ``Decider`` to the
/// throttle, and each rule's look is remembered with the activity.
struct TimerStage: Sendable {
    let store: any FeedStore & TimerStore & ActivityStore & SubscriptionStore
    let rules: RuleBook
    let queue: StoredThrottle
    let decider: Decider
    /// A timer rule looking at a subscription's activity sees the subscription.
    let book: SubscriptionBook
    let history: HistoryRecorder?

    /// One pass of the timer rules at `now`: each live activity whose timer rules came due is looked at by
    /// them (its entity's last facts as `prev` and `curr`), what they decide goes to the throttle, and each
    /// rule's look is remembered with the activity. The activities are taken `batch` at a time, the
    /// earliest due first, each batch in one transaction, so a pass over many never holds the state file
    /// for long (a poll's commit goes in between). `run` makes a pass every `timer-interval` seconds, `tick`
    /// one per tick, `replay` one at each time a timer comes due on its simulated clock.
    /// `skipAhead: false` looks at every due time of every rule (the reference the skipping is tested against).
    func timers(now: Int, batch: Int = 2_000, skipAhead: Bool = true) async throws(StoreFailure)
        -> TimerPass
    {
        var pass = TimerPass(now: now)
        guard !rules.engine.timerRules.isEmpty else { return pass }
        var batches = 0
        repeat {
            batches += 1
            let part = try await timerBatch(now: now, limit: max(batch, 1), skipAhead: skipAhead)
            pass.read += part.read
            pass.due += part.due
            pass.steps += part.steps
            pass.nextDue = part.nextDue
            // A batch moves every activity it read past `now` (a look, or its next due time), so the next
            // batch reads others; the bound only guards against a store that would not.
            guard part.read == max(batch, 1), batches < 10_000 else { break }
        } while true
        return pass
    }

    /// One batch of a timer pass: at most `limit` live activities whose timer rules may be due, in one
    /// transaction.
    private func timerBatch(now: Int, limit: Int, skipAhead: Bool) async throws(StoreFailure) -> TimerPass {
        let engine = rules.engine
        var pass = TimerPass(now: now)
        // Only the activities whose stored due time has come (all of them after the timer rules changed).
        let subjects = try await store.timerSubjects(
            attributesTypes: Set(engine.timerRules.map(\.attributesType)), now: now, rules: engine.timerFingerprint,
            limit: limit)
        var due: [(subject: TimerSubject, look: TimerLook)] = []
        var nextOf: [ActivityKey: Int?] = [:]
        // Looks recorded without an evaluation (rules told from the activity's times to fire nothing).
        var idle: [(key: ActivityKey, looks: [String: Int], due: Int?)] = []
        for subject in subjects {
            let look = engine.look(at: subject, now: now, skipAhead: skipAhead)
            if look.isDue { pass.due += 1 }
            guard look.evaluate.isEmpty else {
                due.append((subject, look))
                continue
            }
            guard !look.idle.isEmpty else {
                nextOf[subject.activity] = look.next
                continue
            }
            var looks = subject.looks
            for (rule, at) in look.idle { looks[engine.timerRules[rule].id] = at }
            idle.append((subject.activity, looks, look.next))
        }
        pass.read = subjects.count
        guard !due.isEmpty else {
            try await store.saveTimerPass(
                activities: [], looks: idle, due: nextOf.map { ($0.key, $0.value) }, throttleStates: [])
            pass.nextDue = try await store.nextTimerDue()
            return pass
        }
        let keys = Dictionary(due.map { ($0.subject.activity, $0.subject.attributesType) }) { a, _ in a }
        let (views, found) = try await decider.activityViews(keys, now: now)
        var records = found
        let facts = try await store.facts(of: Set(due.map(\.subject.entity)))
        let owners = try await owningSubscriptions(Array(found.values))
        var evaluated: [(change: FeedChange, evaluation: RuleEvaluation, feed: String)] = []
        var timersOf: [[String]] = []
        var looked: [TimerSubject] = []
        for (subject, look) in due.sorted(by: { $0.subject.activity < $1.subject.activity }) {
            guard records[subject.activity] != nil, let view = views[subject.activity] else {
                nextOf[subject.activity] = .some(nil)  // gone since it was read: nothing to look at
                continue
            }
            let still = facts[subject.entity]
            evaluated.append(
                (
                    FeedChange(entity: subject.entity, previous: still, current: still, changedPaths: []),
                    engine.evaluateTimers(
                        look.evaluate, for: subject, facts: still, activity: view,
                        subscription: owners[subject.activity]?.0,
                        earlierAlerts: owners[subject.activity]?.earlierAlerts ?? 0),
                    subject.entity.feed
                ))
            // Each look is kept, fired or not, so the rule looks again only when it comes due again.
            var subject = subject
            for (rule, at) in look.evaluate + look.idle {
                records[subject.activity]?.timers[engine.timerRules[rule].id] = at
                subject.looks[engine.timerRules[rule].id] = at
            }
            looked.append(subject)
            timersOf.append(
                look.evaluate.map { "\(engine.timerRules[$0.rule].id) (\(engine.timerRules[$0.rule].trigger))" })
        }
        // An end (or update) on an entity's channel is every running alert's there.
        let sharing = try await decider.channelShareCopies(evaluated.map(\.evaluation.intents))
        let sharedKeys = Set(sharing.copies.joined().map(\.activity)).subtracting(records.keys)
        for key in sharedKeys { records[key] = sharing.records[key] }
        try await queue.load(sharedKeys)
        pass.steps = try await decider.decide(evaluated, shared: sharing.copies, records: &records, now: now)
        for i in pass.steps.indices { pass.steps[i].timers = timersOf[i] }
        // When each comes due next, from what its record says now (a push moves `pushed-at` and maybe
        // `changed-at`, an end ends it).
        for subject in looked {
            guard let record = records[subject.activity], record.phase == .pending || record.phase == .active
            else {
                nextOf[subject.activity] = .some(nil)
                continue
            }
            var after = subject
            after.phase = record.phase.rawValue
            after.pushedAt = record.lastTimestamp
            after.activityChangedAt = record.changedAt
            nextOf[subject.activity] = engine.nextDue(for: after, now: now, skipAhead: skipAhead)
        }
        // A record whose only change is its looks gets only those written (most looks fire nothing).
        var changed: [ActivityRecord] = []
        var looks = idle
        let read = found.merging(sharing.records.filter { sharedKeys.contains($0.key) }) { a, _ in a }
        for record in records.values where read[record.key] != record {
            var before = record
            before.timers = read[record.key]?.timers ?? [:]
            if before == read[record.key], let next = nextOf.removeValue(forKey: record.key) {
                looks.append((record.key, record.timers, next))
            } else {
                changed.append(record)
            }
        }
        do {
            try await store.saveTimerPass(
                activities: changed.sorted { $0.key < $1.key }, looks: looks, due: nextOf.map { ($0.key, $0.value) },
                throttleStates: await queue.takeChanges(), history: history?.write(steps: pass.steps, now: now))
        } catch {
            await queue.revert(Set(keys.keys).union(sharedKeys))
            throw error
        }
        book.note(changed, before: read)
        pass.nextDue = try await store.nextTimerDue()
        return pass
    }
    /// The subscriptions that own these activities and still exist, with how many of their alerts are
    /// behind them, by activity (read only when a personal rule is on the clock).
    private func owningSubscriptions(_ records: [ActivityRecord]) async throws(StoreFailure)
        -> [ActivityKey: (Subscription, earlierAlerts: Int)]
    {
        let engine = rules.engine
        guard engine.timerRules.contains(where: { $0.subscription != nil }) else { return [:] }
        return try await book.owners(of: records, crossings: engine.crossings, store: store)
    }
}

/// What one timer pass looked at and decided.
public struct TimerPass: Sendable {
    public var now: Int
    /// Live activities read because their stored due time came (every live one after the timer rules
    /// changed); `steps` holds those a rule was due for.
    public var read = 0
    /// Live activities a timer rule came due for.
    public var due = 0
    /// One step per activity a timer rule came due for (`timers` names the rules), but for those whose
    /// rules were told to fire nothing from the activity's phase and times alone.
    public var steps: [ChangeStep] = []
    /// The earliest time a timer rule may come due after this pass, from the stored due times (0: an activity
    /// written since its last look is due at once); `nil` when none is live.
    public var nextDue: Int?

    /// The pushes handed to the throttle, in decision order.
    public var pushes: [PendingPush] {
        steps.flatMap(\.decisions).compactMap { if case .push(let p) = $0 { return p } else { return nil } }
    }
}
