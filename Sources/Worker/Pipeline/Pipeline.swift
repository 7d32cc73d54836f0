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
    /// Keeps delivery rounds from overlapping.
    private let gate = AsyncGate()

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
        let touched = Set(evaluations.flatMap { $0.intents.map(\.activity) })
        var records = try await store.activities(touched)
        let before = records
        // One read for the throttle states of every activity this poll may push to.
        try await queue.load(touched)
        for (change, evaluation) in zip(changes, evaluations) {
            let decisions = ledger.apply(evaluation.intents, to: &records, now: now)
            var step = ChangeStep(
                change: change, fired: evaluation.intents.map(\.ruleID), errors: evaluation.errors,
                decisions: decisions)
            for decision in decisions {
                if case .push(let pending) = decision {
                    let outcome = try await queue.submit([pending], now: now)[0]
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

    /// Asks the throttle what may go now and writes each released push to the durable outbox, one row per
    /// target, in the same transaction as the throttle's state. Nothing is sent here: ``deliverDue(now:)``
    /// sends, so a crash between the two loses nothing.
    public func release(now: Int) async throws(SQLiteStore.Failure) -> [ThrottleDecision] {
        let decisions = await queue.release(now: now)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var entries: [OutboxEntry] = []
        for case .send(let push, _) in decisions {
            let targets = try await PushTargets(store: store, options: route(for: push).delivery).targets(for: push)
            if targets.isEmpty {
                logger.info(
                    "no registered token for push",
                    metadata: ["activity.key": "\(push.activity)", "push.event": "\(push.event)"])
            }
            guard let json = try? encoder.encode(push) else { continue }
            for target in targets {
                // Push-to-start is paced per device and attributes type; a start over the limit waits in the
                // outbox until the device's window allows it.
                var due = now
                if target.kind == .pushToStart, !target.outboxKey.isEmpty {
                    due = await queue.admitStart(token: target.outboxKey, attributesType: push.attributesType, now: now)
                }
                entries.append(
                    OutboxEntry(
                        activity: push.activity, token: target.outboxKey, kind: target.kind.rawValue,
                        device: target.device, environment: target.environment?.rawValue, push: json,
                        timestamp: push.timestamp, nextAttempt: due, address: target.address))
            }
        }
        try await store.commitRelease(throttleStates: await queue.takeChanges(), outbox: entries)
        for decision in decisions { metrics.throttled(decision) }
        metrics.pendingPushes(await queue.pendingCount)
        return decisions
    }

    /// Sends every outbox row that is due (including rows left by a crash), a bounded number at a time.
    /// A row leaves the outbox on a final receipt (delivered, token dropped, rejected, or the provider's
    /// configuration error recorded); a temporary failure puts it off with backoff. Rounds never overlap, so
    /// one target never has two states in flight. A start delivered to a device marks its activity active.
    public func deliverDue(now: Int) async throws(SQLiteStore.Failure) -> [PushDelivery] {
        await gate.enter()
        do {
            let result = try await deliverRound(now: now)
            await gate.leave()
            return result
        } catch {
            await gate.leave()
            throw error
        }
    }

    private func deliverRound(now: Int) async throws(SQLiteStore.Failure) -> [PushDelivery] {
        let due = try await store.dueOutbox(now: now)
        guard !due.isEmpty else { return [] }
        let decoder = JSONDecoder()
        var pushes: [String: LiveActivityPush] = [:]
        var work: [(entry: OutboxEntry, push: LiveActivityPush, target: PushTarget)] = []
        for entry in due {
            let key = "\(entry.activity.rawValue) \(entry.timestamp)"
            guard let push = pushes[key] ?? (try? decoder.decode(LiveActivityPush.self, from: entry.push)) else {
                continue
            }
            pushes[key] = push
            var target = PushTarget(
                kind: PushTarget.TokenKind(rawValue: entry.kind) ?? PushTarget.kind(for: push.event),
                token: entry.hasToken ? entry.token : nil,
                environment: entry.environment.map(PushEnvironment.init(rawValue:)), device: entry.device)
            target.address = entry.address
            work.append((entry, push, target))
        }
        let receipts = await send(work.map { ($0.push, $0.target) })
        var done: [(activity: ActivityKey, token: String, timestamp: Int)] = []
        var later: [(activity: ActivityKey, token: String, timestamp: Int, attempts: Int, nextAttempt: Int)] = []
        var byPush: [String: PushDelivery] = [:]
        var order: [String] = []
        for (item, receipt) in zip(work, receipts) {
            let e = item.entry
            if case .retry(let after, _) = receipt.outcome, e.attempts + 1 < delivery.maxOutboxAttempts {
                let backoff = after ?? min(300, 5 << min(e.attempts, 6))
                later.append((e.activity, e.token, e.timestamp, e.attempts + 1, now + max(1, backoff)))
            } else {
                if case .retry = receipt.outcome {
                    logger.error(
                        "push given up after retries",
                        metadata: ["activity.key": "\(e.activity)", "attempts": "\(e.attempts + 1)"])
                }
                done.append((e.activity, e.token, e.timestamp))
            }
            let key = "\(e.activity.rawValue) \(e.timestamp)"
            if byPush[key] == nil {
                order.append(key)
                byPush[key] = PushDelivery(push: item.push, receipts: [])
            }
            byPush[key]!.receipts.append(receipt)
        }
        try await store.completeOutbox(done)
        try await store.postponeOutbox(later)
        let deliveries = order.map { byPush[$0]! }
        for d in deliveries where d.push.event == .start && d.delivered {
            if var record = try await store.activities([d.push.activity])[d.push.activity], record.phase == .pending {
                record.phase = .active
                try await store.save([record])
            }
        }
        metrics.outboxDepth(try await store.outboxStatus().depth)
        return deliveries
    }

    /// The provider route of a push: the config's `routes`, else the default provider.
    func route(for push: LiveActivityPush) -> ProviderRoute {
        router?.route(for: push) ?? ProviderRoute(sender: sender, delivery: delivery)
    }

    /// Sends each item through its push's route: batch providers (Pushwoosh) get one call per push with all
    /// its targets; the others one send per target, a bounded number at a time. Receipts come back in order.
    private func send(_ items: [(LiveActivityPush, PushTarget)]) async -> [DeliveryReceipt] {
        var receipts = [DeliveryReceipt?](repeating: nil, count: items.count)
        var single: [Int] = []
        var batches: [String: [Int]] = [:]
        var batchOrder: [String] = []
        for (i, (push, _)) in items.enumerated() {
            if route(for: push).sender.provider is BatchPushProvider {
                let key = "\(push.activity.rawValue) \(push.timestamp)"
                if batches[key] == nil { batchOrder.append(key) }
                batches[key, default: []].append(i)
            } else {
                single.append(i)
            }
        }
        for key in batchOrder {
            let indices = batches[key]!
            let push = items[indices[0]].0
            let sender = route(for: push).sender
            let started = ContinuousClock.now
            let got = await sender.send(push, to: indices.map { items[$0].1 })
            let elapsed = ContinuousClock.now - started
            for (i, receipt) in zip(indices, got) {
                receipts[i] = receipt
                Self.record(receipt, of: push, by: sender, seconds: elapsed, metrics: metrics)
            }
        }
        let sent = await sendConcurrently(single.map { items[$0] })
        for (i, receipt) in zip(single, sent) { receipts[i] = receipt }
        return receipts.compactMap { $0 }
    }

    /// The metrics of one delivery, whichever way it was sent (a batch's time counts for each of its targets).
    private static func record(
        _ receipt: DeliveryReceipt, of push: LiveActivityPush, by sender: Sender, seconds: Duration,
        metrics: LiveRelayMetrics
    ) {
        metrics.pushed(
            provider: sender.provider.name, priority: push.priority, outcome: receipt.outcome.metricLabel,
            seconds: Double(seconds.components.seconds) + Double(seconds.components.attoseconds) / 1e18)
        if case .dropToken = receipt.outcome { metrics.tokenDropped(provider: sender.provider.name) }
    }

    private func sendConcurrently(_ items: [(LiveActivityPush, PushTarget)]) async -> [DeliveryReceipt] {
        let metrics = self.metrics
        let limit = max(1, delivery.maxConcurrentDeliveries)
        return await withTaskGroup(of: (Int, DeliveryReceipt).self) { group in
            var receipts = [DeliveryReceipt?](repeating: nil, count: items.count)
            var inFlight = 0
            for index in items.indices {
                if inFlight >= limit, let (done, receipt) = await group.next() {
                    receipts[done] = receipt
                    inFlight -= 1
                }
                let (push, target) = items[index]
                let sender = route(for: push).sender
                group.addTask {
                    let started = ContinuousClock.now
                    let receipt = await sender.send(push, to: target)
                    Self.record(receipt, of: push, by: sender, seconds: ContinuousClock.now - started, metrics: metrics)
                    return (index, receipt)
                }
                inFlight += 1
            }
            for await (done, receipt) in group { receipts[done] = receipt }
            return receipts.compactMap { $0 }
        }
    }
}

/// A URL safe to log: no credentials, no query values (`?key=…`), the same text the transport's errors use.
func redact(_ url: String) -> String { HTTPError.redact(url) }
