import Delivery
import Feeds
import Foundation
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
    /// The rules in force; replaced atomically by a reload.
    public let rules: RuleBook
    public let ledger: ActivityLedger
    public let queue: PushQueue
    public let sender: Sender
    /// How pushes fan out to the registered tokens.
    public let delivery: DeliveryOptions
    /// Pushes the config routes to another provider than `sender`'s.
    public let router: ProviderRouter?
    private let logger: Logger
    public let metrics: LiveRelayMetrics

    public init(
        store: SQLiteStore, rules: RuleBook, ledger: ActivityLedger, queue: PushQueue, sender: Sender,
        delivery: DeliveryOptions = DeliveryOptions(), router: ProviderRouter? = nil, logger: Logger,
        metrics: LiveRelayMetrics = .none
    ) {
        self.router = router
        self.store = store
        self.rules = rules
        self.metrics = metrics
        self.ledger = ledger
        self.queue = queue
        self.sender = sender
        self.delivery = delivery
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
        let engine = rules.engine
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
                    let outcome = await queue.submit([pending], now: now)[0]
                    step.queued[pending.push.activity] = outcome
                    if case .coalesced = outcome { metrics.coalesced() }
                }
            }
            for rule in step.fired { metrics.ruleFired(rule) }
            for error in evaluation.errors { metrics.ruleError(error.rule) }
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
        for decision in decisions { metrics.throttled(decision) }
        metrics.pendingPushes(await queue.pendingCount)
        return decisions
    }

    /// Delivers one push to every token registered for it (see ``PushTargets``), a bounded number at a time.
    /// A start delivered to at least one device marks its activity active.
    public func deliver(_ push: LiveActivityPush) async throws(SQLiteStore.Failure) -> PushDelivery {
        let route = router?.route(for: push) ?? ProviderRoute(sender: sender, delivery: delivery)
        let targets = try await PushTargets(store: store, options: route.delivery).targets(for: push)
        if targets.isEmpty {
            logger.info(
                "no registered token for push",
                metadata: ["activity.key": "\(push.activity)", "push.event": "\(push.event)"])
        }
        let receipts =
            route.sender.provider is BatchPushProvider
            ? await route.sender.send(push, to: targets)
            : await sendConcurrently(push, to: targets, sender: route.sender)
        let result = PushDelivery(push: push, receipts: receipts)
        if push.event == .start, result.delivered,
            var record = try await store.activities([push.activity])[push.activity], record.phase == .pending
        {
            record.phase = .active
            try await store.save([record])
        }
        return result
    }

    private func sendConcurrently(_ push: LiveActivityPush, to targets: [PushTarget], sender: Sender) async
        -> [DeliveryReceipt]
    {
        let metrics = self.metrics
        let limit = max(1, delivery.maxConcurrentDeliveries)
        return await withTaskGroup(of: (Int, DeliveryReceipt).self) { group in
            var receipts = [DeliveryReceipt?](repeating: nil, count: targets.count)
            var inFlight = 0
            for index in targets.indices {
                if inFlight >= limit, let (done, receipt) = await group.next() {
                    receipts[done] = receipt
                    inFlight -= 1
                }
                group.addTask {
                    let started = ContinuousClock.now
                    let receipt = await sender.send(push, to: targets[index])
                    let elapsed = ContinuousClock.now - started
                    metrics.pushed(
                        provider: sender.provider.name, priority: push.priority, outcome: receipt.outcome.metricLabel,
                        seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
                    if case .dropToken = receipt.outcome { metrics.tokenDropped(provider: sender.provider.name) }
                    return (index, receipt)
                }
                inFlight += 1
            }
            for await (done, receipt) in group { receipts[done] = receipt }
            return receipts.compactMap { $0 }
        }
    }
}

/// A URL safe to log: no credentials, no query values.
func redact(_ url: String) -> String {
    guard var components = URLComponents(string: url) else { return url }
    components.user = nil
    components.password = nil
    components.queryItems = components.queryItems?.map {
        URLQueryItem(name: $0.name, value: $0.value == nil ? nil : "…")
    }
    return components.string ?? url
}
