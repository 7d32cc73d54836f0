public import Delivery
public import Feeds
public import Foundation
import HTTP
import LiveRelayCore
public import Logging
public import Rules
public import StoreCore
public import Throttling

/// The coordinator: runs the stages in their order and holds what they share. A feed's poll is the
/// ``PollStage`` (fetch, normalise, changes) then the ``PlanStage`` (rules, ledger, contracts, throttle, one
/// commit); a delivery round is the ``ReleaseStage`` (throttle to durable outbox rows) then the
/// ``DeliverStage`` (outbox rows to the providers' senders, receipts); the clock runs the ``TimerStage``.
/// Stages do not call each other: each returns here. Every decision is made in a pure module; the stages
/// wire them to the store. `queue` is the `Throttle` with its state kept in the store.
public struct Pipeline: Sendable {
    public let store: any StateStore
    /// The rules and routes in force; replaced atomically by a reload.
    public let rules: RuleBook
    public let queue: StoredThrottle
    /// Each provider's sender, by provider id.
    public let senders: [String: Sender]
    /// The personal subscriptions of the entities polls changed, with their indexes, kept between polls.
    let book = SubscriptionBook()
    /// Each feed's facts as the last poll saved them.
    let factsMemory = FactsMemory()
    let polls: PollStage
    let plans: PlanStage
    let releases: ReleaseStage
    let deliveries: DeliverStage
    let timerRules: TimerStage
    /// The broadcast channels; `nil` when no provider has channels.
    let channels: ChannelKeeper?
    /// Each stage's calls are timed here (``LiveRelayMetrics/stage(_:took:)``).
    let metrics: LiveRelayMetrics
    /// Keeps release and delivery rounds from overlapping: no row is rewritten while it is in flight, and
    /// one target never has two states in flight.
    private let gate = AsyncGate()

    /// `restartAfter`: seconds after which a device started without reporting the activity's token may be
    /// started again (`nil`: never, see ``StartGuard``). `contracts`: the content-state contracts by
    /// attributes type. `history`: keeps each activity's recent decisions for the live report (`nil`: none).
    /// `claimBatch`: outbox rows a delivery round takes at once. `random` draws in `0..<1` for the outbox's
    /// backoff jitter.
    public init(
        store: any StateStore, rules: RuleBook, queue: StoredThrottle, senders: [String: Sender], logger: Logger,
        metrics: LiveRelayMetrics = .none, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        restartAfter: Int? = nil, contracts: [String: ContentContract] = [:], history: HistoryRecorder? = nil,
        claimBatch: Int = 10_000
    ) {
        self.store = store
        self.rules = rules
        self.queue = queue
        self.senders = senders
        self.metrics = metrics
        let ledger = ActivityLedger()
        let decider = Decider(
            store: store, rules: rules, ledger: ledger, queue: queue, contracts: contracts, book: book,
            metrics: metrics, logger: logger)
        // Channels only where a provider has them: otherwise no stage has any channel work on its path.
        let channels =
            senders.values.contains { $0.provider.channels != nil }
            ? ChannelKeeper(
                store: store, rules: rules, queue: queue, senders: senders, metrics: metrics, logger: logger) : nil
        self.channels = channels
        polls = PollStage(store: store, factsMemory: factsMemory)
        plans = PlanStage(
            store: store, rules: rules, queue: queue, decider: decider, book: book, factsMemory: factsMemory,
            history: history, logger: logger)
        releases = ReleaseStage(
            store: store, rules: rules, queue: queue, senders: senders, channels: channels, metrics: metrics,
            logger: logger, history: history)
        deliveries = DeliverStage(
            store: store, rules: rules, ledger: ledger, queue: queue, senders: senders, channels: channels,
            claims: (store as? any SharedStore).map { SharedClaims(store: $0, logger: logger) }, metrics: metrics,
            logger: logger, random: random, restartAfter: restartAfter, claimBatch: claimBatch)
        timerRules = TimerStage(
            store: store, rules: rules, queue: queue, decider: decider, book: book, history: history)
    }

    /// Polls a feed once: the poll stage's conditional GET, then, for a body, its changes planned. A feed
    /// problem of any kind is in the result, never thrown: it emits no change and keeps the previous facts.
    /// A state-store failure is thrown.
    public func poll(_ feed: FeedRuntime, fetcher: FeedFetcher, now: Int) async throws(StoreFailure)
        -> FeedPollResult
    {
        let response = try await polls.fetch(feed, fetcher: fetcher)
        var outcome = PollOutcome(
            .fresh, status: response.status, retryAfter: response.retryAfter, cacheControl: response.cacheControl)
        var plan = PollPlan(feed: feed.id, now: now)
        switch response.result {
        case .failure(let error):
            plan.feedError = error
            plan.steps = try await plans.endDeletedSubscriptions(feed: feed.id, now: now) ?? []
        case .success(.notModified):
            plan.notModified = true
            outcome.result = .notModified
            plan.steps = try await plans.endDeletedSubscriptions(feed: feed.id, now: now) ?? []
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

    /// Decides what one body means (the poll stage's changes, the plan stage's decisions) and saves the new
    /// facts and activity states in one transaction. A body that cannot be normalised is a feed error:
    /// nothing changes and nothing is saved.
    public func plan(
        feed: FeedRuntime, body: Data, validators: (etag: String?, lastModified: String?) = (nil, nil), now: Int
    ) async throws(StoreFailure) -> PollPlan {
        try await timed(.plan) { () async throws(StoreFailure) in
            var plan = PollPlan(feed: feed.id, now: now)
            switch try await polls.read(feed, body: body) {
            case .failure(let error):
                plan.feedError = error
            case .success(let reading):
                plan.entityCount = reading.current.count
                plan.steps = try await plans.plan(reading, validators: validators, now: now)
            }
            return plan
        }
    }

    /// One release round (``ReleaseStage``): what the throttle lets go now, written to the durable outbox
    /// with its targets. Nothing is sent here: ``deliverDue(now:)`` sends, so a crash between the two loses
    /// nothing.
    public func release(now: Int) async throws(StoreFailure) -> [ThrottleDecision] {
        try await gate.through { () async throws(StoreFailure) in
            try await timed(.release) { () async throws(StoreFailure) in try await releases.run(now: now) }
        }
    }

    /// Sends every outbox row that is due (including rows left by a crash) through its provider's sender
    /// (``DeliverStage``), a batch at a time until a batch is not full.
    public func deliverDue(now: Int) async throws(StoreFailure) -> [PushDelivery] {
        try await gate.through { () async throws(StoreFailure) in
            let result = try await timed(.deliver) { () async throws(StoreFailure) in
                try await deliveries.runDue(now: now).deliveries
            }
            for sender in senders.values { sender.flushRepeatedLogs() }
            return result
        }
    }

    /// One pass of the timer rules at `now` (``TimerStage``); `run` makes one every `timer-interval` seconds,
    /// `tick` one per tick, `replay` one at each time a timer comes due on its simulated clock.
    /// `skipAhead: false` looks at every due time of every rule (the reference the skipping is tested against).
    public func timers(now: Int, batch: Int = 2_000, skipAhead: Bool = true) async throws(StoreFailure)
        -> TimerPass
    {
        try await timed(.timers) { () async throws(StoreFailure) in
            try await timerRules.timers(now: now, batch: batch, skipAhead: skipAhead)
        }
    }

    /// Runs one call of a stage and records how long it took, whether it succeeded or not. (Not with a
    /// `defer`: an `async throws(E)` function with one crashes the 6.3 compiler in release builds.)
    private func timed<T>(_ stage: LiveRelayMetrics.Stage, _ body: () async throws(StoreFailure) -> T)
        async throws(StoreFailure) -> T
    {
        let began = ContinuousClock.now
        let result: Result<T, StoreFailure>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        metrics.stage(stage, took: .now - began)
        return try result.get()
    }

    /// Deletes the broadcast channels whose time has come; the ids deleted.
    @discardableResult
    public func deleteDueChannels(now: Int) async throws(StoreFailure) -> [String] {
        try await channels?.deleteDue(now: now) ?? []
    }

    /// Finds the stale channels of every provider with channels (``ChannelCollector``) and, unless
    /// `dryRun`, deletes them at APNs and forgets them.
    public func collectChannels(dryRun: Bool, now: Int) async throws(StoreFailure) -> [ChannelSweep] {
        try await channels?.collect(dryRun: dryRun, now: now) ?? []
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
