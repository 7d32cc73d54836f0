public import Delivery
public import Feeds
public import Foundation
import HTTP
import LiveRelayCore
public import Logging
public import Rules
public import Store
import StoreCore
public import Throttling

/// Moves values between the stages and the store: a feed fetched (``poll(_:fetcher:now:)``), its body through
/// normalise → detect changes → rules → ledger → throttle (``plan(feed:body:validators:now:)``), what the
/// throttle releases into the durable outbox with its targets (``release(now:)``), and what is due in the
/// outbox to the providers' senders (``deliverDue(now:)``). Every decision is made in a pure module; this
/// only wires them to SQLite. `queue` is the `Throttle` with its state kept in SQLite.
public struct Pipeline: Sendable {
    public let store: any StateStore
    /// The rules and routes in force; replaced atomically by a reload.
    public let rules: RuleBook
    public let ledger: ActivityLedger
    public let queue: PushQueue
    /// Each provider's sender, by provider id.
    public let senders: [String: Sender]
    public let metrics: LiveRelayMetrics
    let logger: Logger
    /// Draws in `0..<1`, for the outbox's backoff jitter.
    let random: @Sendable () -> Double
    /// Seconds after which a device started without reporting the activity's token may be started again;
    /// `nil`: never (see ``StartGuard``).
    let restartAfter: Int?
    /// The content-state contracts, by attributes type: every state is checked and its dates written
    /// before it is queued.
    let contracts: [String: ContentContract]
    /// Keeps delivery rounds from overlapping.
    private let gate = AsyncGate()
    /// Keeps each activity's recent decisions for the live report, in the transactions that make them;
    /// `nil` keeps none.
    let history: HistoryRecorder?
    /// Outbox rows a delivery round takes at once; a round takes batches until none is full. On a shared
    /// store each batch is claimed, so smaller batches share a fan-out between more workers.
    let claimBatch: Int
    /// The personal subscriptions of the entities polls changed, with their indexes, kept between polls.
    let book = SubscriptionBook()
    /// Each feed's facts as the last poll saved them.
    let factsMemory = FactsMemory()

    public init(
        store: any StateStore, rules: RuleBook, queue: PushQueue, senders: [String: Sender], logger: Logger,
        metrics: LiveRelayMetrics = .none, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        restartAfter: Int? = nil, contracts: [String: ContentContract] = [:], history: HistoryRecorder? = nil,
        claimBatch: Int = 10_000
    ) {
        self.claimBatch = claimBatch
        self.history = history
        self.restartAfter = restartAfter
        self.contracts = contracts
        self.store = store
        self.rules = rules
        ledger = ActivityLedger()
        self.queue = queue
        self.senders = senders
        self.logger = logger
        self.metrics = metrics
        self.random = random
    }

    /// Polls a feed once: a conditional GET with the validators saved by the last poll, then `plan`. A feed
    /// problem of any kind is in the result, never thrown: it emits no change and keeps the previous facts.
    /// A state-store failure is thrown.
    public func poll(_ feed: FeedRuntime, fetcher: FeedFetcher, now: Int) async throws(StoreFailure)
        -> FeedPollResult
    {
        let saved = try await store.validators(feed: feed.id)
        let validators =
            saved.etag == nil && saved.lastModified == nil
            ? nil : CacheValidators(etag: saved.etag, lastModified: saved.lastModified)
        let response = await fetcher.response(feed, validators: validators)
        var outcome = PollOutcome(
            .fresh, status: response.status, retryAfter: response.retryAfter, cacheControl: response.cacheControl)
        var plan = PollPlan(feed: feed.id, now: now)
        switch response.result {
        case .failure(let error):
            plan.feedError = error
            plan.steps = try await endDeletedSubscriptions(feed: feed.id, now: now) ?? []
        case .success(.notModified):
            plan.notModified = true
            outcome.result = .notModified
            plan.steps = try await endDeletedSubscriptions(feed: feed.id, now: now) ?? []
        case .success(.body(let body, let newValidators)):
            plan = try await self.plan(
                feed: feed, body: body, validators: (newValidators?.etag, newValidators?.lastModified), now: now)
        }
        if let error = plan.feedError {
            outcome.result = .failed(error.kind)
            outcome.message = error.description
        }
        outcome.changes = plan.steps.count
        outcome.pushes = plan.pushes.count
        return FeedPollResult(plan: plan, outcome: outcome)
    }

    /// Decides what one body means and saves the new facts and activity states in one transaction.
    /// A body that cannot be normalised is a feed error: nothing changes and nothing is saved.
    public func plan(
        feed: FeedRuntime, body: Data, validators: (etag: String?, lastModified: String?) = (nil, nil), now: Int
    ) async throws(StoreFailure) -> PollPlan {
        var plan = PollPlan(feed: feed.id, now: now)
        let current: [String: Facts]
        do {
            current = try feed.normalizer.entities(body)
        } catch {
            plan.feedError = FeedError(kind: error.kind, feed: feed.id, url: redact(feed.url), message: error.message)
            return plan
        }
        plan.entityCount = current.count
        let previous: [String: Facts]
        if let known = factsMemory.facts(feed: feed.id) {
            previous = known
        } else {
            previous = try await store.facts(feed: feed.id)
        }
        let changes = ChangeDetector.changes(feed: feed.id, previous: previous, current: current)
        let engine = rules.engine
        // Personal rules run for the subscriptions of the changed entity they may fire for.
        let personal = engine.hasPersonalRules(feed: feed.id)
        // One read: the changed entities' subscription generations and the deletions still to end.
        let written =
            personal
            ? try await store.subscriptionChanges(of: changes.map(\.entity), feed: feed.id, limit: 1_000)
            : (generations: [:], deleted: [])
        let subscriptions =
            personal && !changes.isEmpty
            ? try await book.sets(
                for: changes.map(\.entity), crossings: engine.crossings, store: store,
                generations: written.generations) : [:]
        let none = SubscriptionSet([])
        // The activities rules read are looked up first, as they were when the poll began.
        var read: [ActivityKey: String] = [:]
        for change in changes {
            read.merge(
                engine.activityKeys(for: change, now: now, subscriptions: subscriptions[change.entity] ?? none)
            ) { a, _ in a }
        }
        let views = try await activityViews(read, now: now)
        var looks = changes.map {
            (
                $0,
                engine.evaluate(
                    $0, now: now, activities: views.views, subscriptions: subscriptions[$0.entity] ?? none)
            )
        }
        // Deleted subscriptions end their activities.
        let deleted = written.deleted
        looks += try await subscriptionEnds(deleted, facts: previous)
        let decided = try await decide(looks, feed: feed.id, read: views.records, now: now)
        plan.steps = decided.steps
        let changedEntities = Dictionary(
            uniqueKeysWithValues: changes.compactMap { c in c.current.map { (c.entity.id, $0) } })
        // The facts quiet rules name that changed: their quiet spells start again.
        var factChanges: [String: [String]] = [:]
        if let watched = engine.watchedFacts[feed.id] {
            for change in changes where change.current != nil {
                let names = RuleEngine.touched(watched, by: change)
                if !names.isEmpty { factChanges[change.entity.id] = names }
            }
        }
        // One transaction: the facts, the activities and the pushes they queued (a crash can never keep the
        // facts and lose the push).
        let removed = changes.filter { $0.current == nil }.map(\.entity.id)
        do {
            try await save(decided) { () async throws(StoreFailure) in
                try await store.commit(
                    FeedCommit(
                        feed: feed.id, now: now, facts: changedEntities, removedEntities: removed,
                        etag: validators.etag, lastModified: validators.lastModified, activities: decided.changed,
                        throttleStates: await queue.takeChanges(),
                        history: history?.write(steps: decided.steps, now: now), factChanges: factChanges))
            }
        } catch {
            factsMemory.forget(feed: feed.id)
            throw error
        }
        factsMemory.saved(feed: feed.id, previous: previous, changed: changedEntities, removed: removed)
        // Ended (or found with nothing to end) with the commit; a crash before this only ends them again,
        // which the ledger skips.
        if !deleted.isEmpty { try await store.finishDeletedSubscriptions(deleted) }
        return plan
    }

    /// Asks the throttle what may go now and writes each released push to the durable outbox, one row per
    /// target its provider's addressing finds in the registry, in the same transaction as the throttle's
    /// state; what still waits for the same activities is superseded there too (``Supersession``: an older
    /// state never goes out after a newer one, a start not yet delivered carries the newest state, an ended
    /// activity is never started). Nothing is sent here: ``deliverDue(now:)`` sends, so a crash between the two
    /// loses nothing. Releases and delivery rounds never overlap, so no row is rewritten while it is in flight.
    public func release(now: Int) async throws(StoreFailure) -> [ThrottleDecision] {
        try await gate.through { () async throws(StoreFailure) in try await releaseRound(now: now) }
    }

    private func releaseRound(now: Int) async throws(StoreFailure) -> [ThrottleDecision] {
        let routes = rules.routes
        let decisions = await queue.release(now: now) { routes.provider(for: $0) }
        var staged = StagedRelease()
        var released: [ActivityKey: LiveActivityPush] = [:]
        var pushes: [LiveActivityPush] = []
        for case .send(let push, _) in decisions {
            released[push.activity] = push
            pushes.append(push)
        }
        try await stage(pushes, routes: routes, into: &staged, now: now)
        // Devices that began to follow an entity whose activity runs get its start; a start of the same
        // activity the throttle released for the same device this round goes instead.
        let joins = try await store.lateJoins(limit: Self.lateJoinsPerRound)
        let releasedTargets = Set(staged.entries.map(\.key))
        for push in try await lateJoinStarts(joins) {
            var late = StagedRelease()
            try await stage([push], routes: routes, into: &late, now: now)
            staged.entries += late.entries.filter { !releasedTargets.contains($0.key) }
            metrics.lateJoin(late.entries.isEmpty ? "no-token" : "started")
            if late.entries.isEmpty {
                logger.info(
                    "late joiner not started: no push-to-start token",
                    metadata: ["activity.key": "\(push.activity)", "device": "\(push.device ?? "")"])
            }
        }
        let (rewrites, drops) = try await superseded(by: released)
        // A start rewritten to carry an update stands in for the update on its target.
        let rewritten = Set(rewrites.map(\.row.key))
        staged.entries.removeAll { rewritten.contains($0.key) }
        do {
            try await store.commitRelease(
                throttleStates: await queue.takeChanges(), outbox: staged.entries, fanOuts: staged.fanOuts,
                rewrites: rewrites, drops: drops,
                history: history?.write(decisions: decisions, now: now), paces: await queue.takeStartPaces(now: now))
        } catch {
            // What was released is pending again, as the state file says: it goes with a later round.
            await queue.revert(decisions.map(\.activity))
            throw error
        }
        // Looked at: a crash before this looks again, and the delivery's start guard keeps a device from a
        // second start.
        try await store.finishLateJoins(joins)
        for decision in decisions { metrics.throttled(decision) }
        metrics.pendingPushes(await queue.pendingCount)
        return decisions
    }

    /// Sends every outbox row that is due (including rows left by a crash) through its provider's sender.
    /// A row leaves the outbox on a final receipt (delivered, token dropped, rejected, or the provider's
    /// configuration error recorded); a temporary failure puts it off as ``RetryPolicy/outbox`` says. Rounds
    /// never overlap, so one target never has two states in flight. A start delivered to a device makes its
    /// activity active. The broadcast channels whose activity has left the lock screen are deleted.
    public func deliverDue(now: Int) async throws(StoreFailure) -> [PushDelivery] {
        try await gate.through { () async throws(StoreFailure) in
            var result: [PushDelivery] = []
            // Batches until one is not full; bounded, so rows that stay due (a retry due at once) never
            // keep the round going.
            var full = true
            var batches = 0
            while full && batches < 100 {
                let round = try await deliverRound(now: now)
                // A goal to a million devices is a hundred rounds: what each delivered is counted, not kept.
                result += round.deliveries.map { $0.compacted() }
                full = round.full
                batches += 1
            }
            for sender in senders.values { sender.flushRepeatedLogs() }
            return result
        }
    }

    private func deliverRound(now: Int) async throws(StoreFailure) -> (deliveries: [PushDelivery], full: Bool) {
        // A worker whose heartbeat lapsed claims nothing until its next heartbeat has rejoined it; the rows
        // it claims are sent only while they are its incarnation's.
        let shared = store as? any SharedStore
        if let shared, !shared.holdsClaims { return ([], false) }
        let owner = shared?.claimOwner
        var due = try await store.dueOutbox(now: now, limit: claimBatch)
        let full = due.count == claimBatch
        // A start waiting for an activity that has ended since (its end decided, perhaps still held by the
        // throttle) never goes out.
        let start = PushTarget.TokenKind.pushToStart.rawValue
        let startingActivities = Set(due.filter { $0.kind == start }.map(\.key.activity))
        if !startingActivities.isEmpty {
            let ended = Set(
                try await store.activities(startingActivities).values.filter { $0.phase == .ended }.map(\.key))
            let stale = due.filter { $0.kind == start && ended.contains($0.key.activity) }
            if !stale.isEmpty {
                for row in stale {
                    logger.info(
                        "start dropped: the activity has ended", metadata: ["activity.key": "\(row.key.activity)"])
                }
                try await store.completeOutbox(stale)
                due.removeAll { $0.kind == start && ended.contains($0.key.activity) }
            }
        }
        try await admitStarts(&due, now: now)
        guard !due.isEmpty else {
            try await deleteDueChannels(now: now)
            return ([], full)
        }
        // The claims are renewed while the batch goes out.
        let delivered = await renewingClaims(due.map(\.key)) { [due] () async -> Result<[PushDelivery], StoreFailure> in
            do throws(StoreFailure) {
                return .success(try await deliverBatch(due, owner: owner, now: now))
            } catch {
                return .failure(error)
            }
        }
        return (try delivered.get(), full)
    }
}

/// One poll of one feed: what its body meant, and what the poll came to for the loop's schedule.
public struct FeedPollResult: Sendable {
    /// What the body meant (or the feed error, or 304).
    public var plan: PollPlan
    /// What the poll came to, for the schedule and the counters.
    public var outcome: PollOutcome
}

/// A URL safe to log: no credentials, no query values (`?key=…`), the same text the transport's errors use.
func redact(_ url: String) -> String { HTTPError.redact(url) }
