import LiveRelayCore
import Logging
import Rules
import Store
import StoreCore

/// Personal subscriptions in the plan and timer passes: a deleted subscription's activities end
/// (``SubscriptionEnd``), and a timer rule looking at a subscription's activity sees the subscription.
extension Pipeline {
    /// One look per deleted subscription that owned running activities: their ends, each logged, with the
    /// entity's facts standing as `prev` and `curr` (nothing changed).
    func subscriptionEnds(_ deleted: [DeletedSubscription], facts: [String: Facts]) async throws(StoreFailure)
        -> [(FeedChange, RuleEvaluation)]
    {
        guard !deleted.isEmpty else { return [] }
        let activities = try await store.activities(of: Array(Set(deleted.map(\.entity))))
        var looks: [(FeedChange, RuleEvaluation)] = []
        for (deletion, ends) in SubscriptionEnd.intents(for: deleted, activities: activities) {
            logger.info(
                "subscription deleted: its activities end",
                metadata: [
                    "subscription": "\(deletion.owner.id)", "device": "\(deletion.owner.device)",
                    "entity": "\(deletion.entity.feed)/\(deletion.entity.id)",
                    "activities": "\(ends.map(\.activity.rawValue).joined(separator: ","))",
                ])
            guard !ends.isEmpty else { continue }
            let still = facts[deletion.entity.id]
            var evaluation = RuleEvaluation()
            evaluation.intents = ends
            looks.append(
                (FeedChange(entity: deletion.entity, previous: still, current: still, changedPaths: []), evaluation))
        }
        return looks
    }

    /// The subscriptions that own these activities and still exist, with how many of their alerts are
    /// behind them, by activity (read only when a personal rule is on the clock).
    func owningSubscriptions(_ records: [ActivityRecord]) async throws(StoreFailure)
        -> [ActivityKey: (Subscription, earlierAlerts: Int)]
    {
        let engine = rules.engine
        guard engine.timerRules.contains(where: { $0.subscription != nil }) else { return [:] }
        return try await book.owners(of: records, crossings: engine.crossings, store: store)
    }
}
