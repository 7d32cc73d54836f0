public import LiveRelayCore

/// A change through the rules: the activities they read (``RuleEngine/Reading``), then each rule run over the
/// change and the activity it reads (``RuleEngine/evaluate(_:activities:)``).
extension RuleEngine {
    /// The activities the change's rules read (`activity`), with each one's attributes type: the caller
    /// looks them up and hands them to ``evaluate(_:now:activities:)``. A key that cannot be computed is
    /// left out (evaluating reports it).
    /// A personal rule's key is computed once per subscription of the changed entity in `subscriptions`.
    public func activityKeys(for change: FeedChange, now: Int, subscriptions: [Subscription] = [])
        -> [ActivityKey: String]
    {
        reading(change, now: now, subscriptions: SubscriptionSet(subscriptions)).keys
    }

    /// The activities the change's rules read, a personal rule's for the subscriptions of `subscriptions` it
    /// may fire for.
    public func activityKeys(for change: FeedChange, now: Int, subscriptions: SubscriptionSet)
        -> [ActivityKey: String]
    {
        reading(change, now: now, subscriptions: subscriptions).keys
    }

    /// What a change's rules read, found once for the two steps of a poll: the activity keys they compute
    /// (``keys``, for the caller to look the activities up), and for each personal rule the subscriptions
    /// it may fire for, with their data and keys, which ``evaluate(_:activities:)`` goes on from.
    public struct Reading {
        let change: FeedChange
        let subscriptions: SubscriptionSet
        /// The change's data and its memo.
        let base: JSONValue
        let memo = JsonLogicMemo()
        /// The activities the rules read, with each one's attributes type (a key that cannot be computed is
        /// left out: evaluating reports it).
        public internal(set) var keys: [ActivityKey: String] = [:]
        /// By position in the feed's rules, the key of a rule that reads its activity and is not personal.
        var shared: [Int: Result<ActivityKey, RuleError>] = [:]
        /// By position in the feed's rules, a personal rule's candidates (positions in `subscriptions`), with
        /// their keys when the rule reads its activity.
        var personal: [Int: [(subscription: Int, key: Result<ActivityKey, RuleError>?)]] = [:]
        /// By position in `subscriptions`, the data of each subscription a rule looked at, with its memo.
        var data: [Int: (JSONValue, JsonLogicMemo)] = [:]
        var narrowing: Narrowing
    }

    /// The change's ``Reading``: each rule that reads its activity computes its key (a personal rule, once
    /// per subscription of `subscriptions` it may fire for).
    public func reading(_ change: FeedChange, now: Int, subscriptions: SubscriptionSet) -> Reading {
        var reading = Reading(
            change: change, subscriptions: subscriptions,
            base: RuleEngine.data(for: change, now: now, constants: constants),
            narrowing: Narrowing(change: change, set: subscriptions))
        guard let rules = rulesByFeed[change.entity.feed] else { return reading }
        for i in rules.indices where rules[i].readsActivity {
            if rules[i].subscription == nil {
                let key = RuleEngine.key(rules[i], data: reading.base, memo: reading.memo, entity: change.entity)
                reading.shared[i] = key
                if case .success(let k) = key { reading.keys[k] = rules[i].attributesType }
                continue
            }
            var found: [(subscription: Int, key: Result<ActivityKey, RuleError>?)] = []
            for j in reading.narrowing.candidates(rules[i]) {
                let (data, memo) = reading.subscriptionData(j)
                let key = RuleEngine.key(rules[i], data: data, memo: memo, entity: change.entity)
                if case .success(let k) = key { reading.keys[k] = rules[i].attributesType }
                found.append((j, key))
            }
            reading.personal[i] = found
        }
        return reading
    }

    /// Runs every rule of the change's feed, in load order. A rule that reads `activity` sees
    /// `activities[key]` for the key it computes (``unknownActivity`` when absent). A personal rule runs once
    /// for each of `subscriptions` (the changed entity's), in their order, reading it as `subscription`; its
    /// intents carry the subscription.
    public func evaluate(
        _ change: FeedChange, now: Int, activities: [ActivityKey: JSONValue] = [:], subscriptions: [Subscription] = []
    ) -> RuleEvaluation {
        evaluate(change, now: now, activities: activities, subscriptions: SubscriptionSet(subscriptions))
    }

    /// As ``evaluate(_:now:activities:subscriptions:)-(_,_,_,[Subscription])``, each personal rule evaluated
    /// only for the subscriptions of `subscriptions` it may fire for: those its crossing's index finds, or
    /// those that own a running activity for a rule that needs one (``Rule/liveOnly``), or all.
    public func evaluate(
        _ change: FeedChange, now: Int, activities: [ActivityKey: JSONValue] = [:], subscriptions: SubscriptionSet
    ) -> RuleEvaluation {
        var reading = reading(change, now: now, subscriptions: subscriptions)
        return evaluate(&reading, activities: activities)
    }

    /// Evaluates the rules of a change from its ``Reading`` (its keys, candidates and data are not computed
    /// again), with the activities looked up for its keys.
    public func evaluate(_ reading: inout Reading, activities: [ActivityKey: JSONValue]) -> RuleEvaluation {
        var result = RuleEvaluation()
        let change = reading.change
        guard let rules = rulesByFeed[change.entity.feed] else { return result }
        var scope = Scope(data: reading.base, memo: reading.memo, activities: activities)
        // Each subscription's scope, made when a rule first needs it.
        var personal: [Int: Scope] = [:]
        // By index: a condition is read in place, and only a rule that fires is copied out.
        for i in rules.indices {
            guard rules[i].subscription != nil else {
                RuleEngine.run(
                    rules[i], in: &scope, entity: change.entity, facts: change.current?.value, key: reading.shared[i],
                    into: &result)
                continue
            }
            let candidates =
                reading.personal[i] ?? reading.narrowing.candidates(rules[i]).map { (subscription: $0, key: nil) }
            for (j, key) in candidates {
                var scope: Scope
                if let made = personal[j] {
                    scope = made
                } else {
                    let (data, memo) = reading.subscriptionData(j)
                    scope = Scope(data: data, memo: memo, activities: activities)
                    scope.subscription = reading.subscriptions.subscriptions[j].owner
                }
                RuleEngine.run(
                    rules[i], in: &scope, entity: change.entity, facts: change.current?.value, key: key, into: &result)
                personal[j] = scope
            }
        }
        return result
    }
}

extension RuleEngine.Reading {
    /// The data of the subscription at `position` (the change's with `subscription` set) and its memo, made
    /// once.
    mutating func subscriptionData(_ position: Int) -> (JSONValue, JsonLogicMemo) {
        if let made = data[position] { return made }
        let made = (RuleEngine.data(base, subscription: subscriptions.view(position)), JsonLogicMemo())
        data[position] = made
        return made
    }
}
