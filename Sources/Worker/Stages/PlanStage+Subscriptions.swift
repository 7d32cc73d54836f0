import LiveRelayCore
import Logging
import Rules
import StoreCore

/// Deleted personal subscriptions in the plan: their activities end (``SubscriptionEnd``), at a poll with a
/// body to plan or, so a deletion is not held up by a feed that does not change, at one without.
extension PlanStage {
    /// One look per deleted subscription that owned running activities: their ends, each logged, with the
    /// entity's facts standing as `prev` and `curr` (nothing changed).
    func subscriptionEnds(_ deleted: [DeletedSubscription], facts: [String: Facts]) async throws(StoreFailure)
        -> [(FeedChange, RuleEvaluation)]
    {
        guard !deleted.isEmpty else { return [] }
        let activities = try await store.runningActivities(of: Array(Set(deleted.map(\.entity))))
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

    /// Ends the deleted subscriptions' activities at a poll that brought no body to plan (a 304, a feed
    /// error), so a deletion is not held up by a feed that does not change; `nil` when there was none to end.
    func endDeletedSubscriptions(feed: String, now: Int) async throws(StoreFailure) -> [ChangeStep]? {
        guard rules.engine.hasPersonalRules(feed: feed) else { return nil }
        let deleted = try await store.deletedSubscriptions(feed: feed, limit: 1_000)
        guard !deleted.isEmpty else { return nil }
        let looks = try await subscriptionEnds(deleted, facts: try await store.facts(feed: feed))
        let decided = try await decider.decide(looks, feed: feed, now: now)
        // No feed to commit: the records and the pushes they queued are written as a timer pass writes them.
        try await decider.save(decided) { () async throws(StoreFailure) in
            try await store.saveTimerPass(
                activities: decided.changed, looks: [], due: [], throttleStates: await queue.takeChanges(),
                history: history?.write(steps: decided.steps, now: now))
        }
        try await store.finishDeletedSubscriptions(deleted)
        return decided.steps
    }
}
