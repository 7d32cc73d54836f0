import Delivery
import Feeds
import Foundation
import HTTP
import LiveRelayCore
import Logging
import Rules
import Store
import Throttling

/// Moves one feed body through the stages: normalise → detect changes → rules → ledger → throttle → save,
/// then releases what the throttle allows to the sender. It only wires stages together; every decision is
/// made in a pure module.
public struct Pipeline: Sendable {
    public let store: SQLiteStore
    public let engine: RuleEngine
    public let ledger: ActivityLedger
    public let queue: PushQueue
    public let sender: Sender
    private let logger: Logger

    public init(
        store: SQLiteStore, engine: RuleEngine, ledger: ActivityLedger, queue: PushQueue, sender: Sender, logger: Logger
    ) {
        self.store = store
        self.engine = engine
        self.ledger = ledger
        self.queue = queue
        self.sender = sender
        self.logger = logger
    }

    /// Decides what one body means and saves the new facts and activity states in one transaction.
    /// A body that cannot be normalised is a feed error: nothing changes and nothing is saved.
    public func plan(
        feed: FeedRuntime, body: Data, validators: (etag: String?, lastModified: String?) = (nil, nil), now: Int
    )
        async throws(SQLiteStore.Failure) -> PollPlan
    {
        var plan = PollPlan(feed: feed.id, now: now)
        let current: [String: Facts]
        do {
            current = try feed.normalizer.normalize(body)
        } catch {
            plan.feedError = FeedError(kind: error.kind, feed: feed.id, url: redact(feed.url), message: error.message)
            return plan
        }
        plan.entityCount = current.count
        let previous = try await store.facts(feed: feed.id)
        let changes = ChangeDetector.changes(feed: feed.id, previous: previous, current: current)
        let evaluations = changes.map { engine.evaluate($0, now: now) }
        var records = try await store.activities(Set(evaluations.flatMap { $0.intents.map(\.activity) }))
        let before = records
        for (change, evaluation) in zip(changes, evaluations) {
            let decisions = ledger.apply(evaluation.intents, to: &records, now: now)
            var step = ChangeStep(
                change: change, fired: evaluation.intents.map(\.ruleID), errors: evaluation.errors,
                decisions: decisions)
            for decision in decisions {
                if case .push(let pending) = decision {
                    step.queued[pending.push.activity] = await queue.submit([pending], now: now)[0]
                }
            }
            plan.steps.append(step)
            for error in evaluation.errors {
                logger.error(
                    "rule failed", metadata: ["rule": "\(error.rule)", "feed.id": "\(feed.id)", "error": "\(error)"])
            }
        }
        let changedEntities = Dictionary(
            uniqueKeysWithValues: changes.compactMap { c in c.current.map { (c.entity.id, $0) } })
        try await store.commit(
            FeedCommit(
                feed: feed.id, now: now, facts: changedEntities,
                removedEntities: changes.filter { $0.current == nil }.map(\.entity.id), etag: validators.etag,
                lastModified: validators.lastModified,
                activities: records.values.filter { before[$0.key] != $0 }.sorted { $0.key < $1.key }))
        try await queue.save()
        return plan
    }

    /// Asks the throttle what may go now; the caller delivers the `.send` decisions.
    public func release(now: Int) async throws(SQLiteStore.Failure) -> [ThrottleDecision] {
        let decisions = await queue.release(now: now)
        try await queue.save()
        return decisions
    }

    /// Delivers one push. A delivered start marks its activity active.
    public func deliver(_ push: LiveActivityPush) async throws(SQLiteStore.Failure) -> DeliveryOutcome {
        let outcome = await sender.send(push, to: PushTarget(kind: PushTarget.kind(for: push.event), token: nil))
        if push.event == .start, outcome == .delivered,
            var record = try await store.activities([push.activity])[push.activity], record.phase == .pending
        {
            record.phase = .active
            try await store.save([record])
        }
        return outcome
    }
}

/// A URL safe to log: no credentials, no query values (`?key=…`), the same text the transport's errors use.
func redact(_ url: String) -> String { HTTPError.redact(url) }
