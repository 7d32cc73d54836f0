import Feeds
import LiveRelayCore
import Logging
import Rules
import StoreCore
import Throttling

/// The plan stage: a body's changes through the rules (personal rules for the subscriptions of the changed
/// entities they may fire for), then the ``Decider``'s ledger, contracts and throttle; the new facts, the
/// activities and the throttle state saved in one transaction, so a crash never keeps the facts and loses
/// the push.
struct PlanStage: Sendable {
    let store: any FeedStore & ActivityStore & SubscriptionStore & TimerStore
    let rules: RuleBook
    let queue: StoredThrottle
    let decider: Decider
    /// The personal subscriptions of the entities polls changed, with their indexes, kept between polls.
    let book: SubscriptionBook
    /// Each feed's facts as the last poll saved them: set here once the save is written.
    let factsMemory: FactsMemory
    let history: HistoryRecorder?
    let logger: Logger

    /// Decides what the changes of one body mean and saves the new facts and activity states in one
    /// transaction.
    func plan(_ reading: FeedReading, validators: (etag: String?, lastModified: String?), now: Int)
        async throws(StoreFailure) -> [ChangeStep]
    {
        let (feed, previous, changes) = (reading.feed, reading.previous, reading.changes)
        let engine = rules.engine
        // Personal rules run for the subscriptions of the changed entity they may fire for.
        let personal = engine.hasPersonalRules(feed: feed)
        // One read: the changed entities' subscription generations and the deletions still to end.
        let written =
            personal
            ? try await store.subscriptionChanges(of: changes.map(\.entity), feed: feed, limit: 1_000)
            : (generations: [:], deleted: [])
        let subscriptions =
            personal && !changes.isEmpty
            ? try await book.sets(
                for: changes.map(\.entity), crossings: engine.crossings, store: store,
                generations: written.generations) : [:]
        let none = SubscriptionSet([])
        // The activities rules read are looked up first, as they were when the poll began; what the rules
        // found to read them (their keys, a personal rule's subscriptions) is not found again to evaluate them.
        var readings = changes.map {
            engine.reading($0, now: now, subscriptions: subscriptions[$0.entity] ?? none)
        }
        var read: [ActivityKey: String] = [:]
        for reading in readings { read.merge(reading.keys) { a, _ in a } }
        let views = try await decider.activityViews(read, now: now)
        var looks = changes.indices.map { i in
            (changes[i], engine.evaluate(&readings[i], activities: views.views))
        }
        // Deleted subscriptions end their activities.
        let deleted = written.deleted
        looks += try await subscriptionEnds(deleted, facts: previous)
        let decided = try await decider.decide(
            looks, feed: feed, read: views.records, looked: Set(read.keys), now: now)
        let changedEntities = Dictionary(
            uniqueKeysWithValues: changes.compactMap { c in c.current.map { (c.entity.id, $0) } })
        // The facts quiet rules name that changed: their quiet spells start again.
        var factChanges: [String: [String]] = [:]
        if let watched = engine.watchedFacts[feed] {
            for change in changes where change.current != nil {
                let names = RuleEngine.touched(watched, by: change)
                if !names.isEmpty { factChanges[change.entity.id] = names }
            }
        }
        // One transaction: the facts, the activities and the pushes they queued.
        let removed = changes.filter { $0.current == nil }.map(\.entity.id)
        do {
            try await decider.save(decided) { () async throws(StoreFailure) in
                try await store.commit(
                    FeedCommit(
                        feed: feed, now: now, facts: changedEntities, removedEntities: removed,
                        etag: validators.etag, lastModified: validators.lastModified, activities: decided.changed,
                        throttleStates: await queue.takeChanges(),
                        history: history?.write(steps: decided.steps, now: now), factChanges: factChanges))
            }
        } catch {
            factsMemory.forget(feed: feed)
            throw error
        }
        factsMemory.saved(feed: feed, previous: previous, changed: changedEntities, removed: removed)
        // Ended (or found with nothing to end) with the commit; a crash before this only ends them again,
        // which the ledger skips.
        if !deleted.isEmpty { try await store.finishDeletedSubscriptions(deleted) }
        return decided.steps
    }
}
