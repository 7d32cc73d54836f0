import LiveRelayCore

/// Personal rules: which subscriptions of a change each one is evaluated for.
extension RuleEngine {
    /// True when the feed has personal rules: its changes are evaluated once per subscription of the entity.
    public func hasPersonalRules(feed: String) -> Bool { subscriptionParameters[feed] != nil }

    /// `base` (a change's data) with `subscription` set: one subscription's data, without building the
    /// change's part again.
    static func data(_ base: JSONValue, subscription: JSONValue) -> JSONValue {
        guard case .object(var members) = base else { return base }
        members["subscription"] = subscription
        return .object(members)
    }

    /// By feed, the parameters its personal rules' files declare (one per file) and the crossings they
    /// require (one per fact and parameter).
    static func personal(_ rules: [Rule]) -> ([String: [SubscriptionParameters]], [String: [Crossing]]) {
        var parameters: [String: [SubscriptionParameters]] = [:]
        var crossings: [String: [Crossing]] = [:]
        for rule in rules {
            guard let declared = rule.subscription else { continue }
            for feed in rule.feeds where !(parameters[feed] ?? []).contains(where: { $0.file == declared.file }) {
                parameters[feed, default: []].append(declared)
            }
            guard case .success(let crossing)? = rule.crossing else { continue }
            for feed in rule.feeds where !(crossings[feed] ?? []).contains(where: { $0.key == crossing.key }) {
                crossings[feed, default: []].append(crossing)
            }
        }
        return (parameters, crossings)
    }

    /// Which of a change's subscriptions each personal rule looks at: those its crossing may hold for (one
    /// index per crossing, built once per change), or all of them.
    struct Narrowing {
        let change: FeedChange
        let set: SubscriptionSet
        private var indexes: [String: CrossingIndex]

        init(change: FeedChange, set: SubscriptionSet) {
            self.change = change
            self.set = set
            indexes = set.indexes
        }

        /// Positions in the set's subscriptions, in order.
        mutating func candidates(_ rule: Rule) -> [Int] {
            let all = set.subscriptions.indices
            guard rule.subscription != nil, !all.isEmpty else { return Array(all) }
            if case .success(let crossing)? = rule.crossing {
                let index = indexes[crossing.key] ?? CrossingIndex(crossing, subscriptions: set.subscriptions)
                indexes[crossing.key] = index
                if let found = index.candidates(previous: change.previous, current: change.current) { return found }
            }
            if rule.liveOnly, let live = set.live { return live }
            return Array(all)
        }
    }
}
