public import Delivery
public import Feeds
import Foundation
import HTTP
public import LiveRelayCore
import Logging
public import Rules
public import ServiceLifecycle
public import Store
import Synchronization
import Throttling
public import UnixSignals

/// The worker a config describes, built in one place: ``build(_:rules:store:environment:)`` is the
/// composition root `run`, `tick`, `replay`, `send` and the tests all call.
///
/// It holds the pipeline, one poll loop per feed and one for the outbox (the loops `run` runs, on the
/// environment's clock), the health they report, and the services of `run`: the loops, the rule reloader
/// and the HTTP API. ``runOnce()`` is `tick`: every feed polled once, then one delivery round.
///
/// The store-failure policy is decided here, once: a state-store error in a poll or a delivery round is
/// logged, counted (`liverelay_feed_errors_total{kind="store"}`, `liverelay_store_errors_total`) and shown by
/// `/healthz`, and the loop backs off and tries again; the worker stays up.
public struct LiveRelayWorker: Sendable {
    /// The config it was built from.
    public let loaded: LoadedConfig
    /// The stages and the store.
    public let pipeline: Pipeline
    /// One poll loop per feed, in config order.
    public let feedLoops: [PollLoop]
    /// The loop that delivers what waits: held pushes whose time came, retries, a crashed run's outbox.
    public let outboxLoop: PollLoop
    /// The loop of the timer rules: a pass every `timer-interval` seconds.
    public let timerLoop: PollLoop
    /// What `/healthz` reports.
    public let health: HealthBoard
    let rounds: Rounds
    let reloader: RuleReloader
    let tokens: TokenAPI
    private let transports: TransportPool
    /// On a shared store: the lease that says whether this worker polls (``PollerLease``).
    public let pollerLease: PollerLease?
    /// On a shared store: this worker's heartbeat, and what the others' say (``HeartbeatService``).
    public let heartbeat: HeartbeatService?

    /// Builds the worker: providers (secrets read, transports opened), the throttle's saved state, routes,
    /// loops, health and the API. Problems are diagnostics naming the config (never a secret).
    public static func build(
        _ loaded: LoadedConfig, rules: RuleSet, store: any StateStore, environment: WorkerEnvironment
    ) async throws(Diagnostics) -> LiveRelayWorker {
        func problem(_ message: String) -> Diagnostics {
            Diagnostics([Diagnostic(file: loaded.path, location: nil, message: message)])
        }
        let logger = environment.logger
        let transports = TransportPool(http: loaded.config.http, directory: loaded.directory)
        let book = RuleBook(RuleEngine(rules: rules.rules), routes: try loaded.routes(for: rules))
        var senders: [String: Sender] = [:]
        var kinds: [String: ProviderKind] = [:]
        for entry in loaded.providerEntries {
            let provider: any PushProvider
            if let given = environment.providers[entry.id] {
                provider = given
            } else {
                do {
                    provider = try entry.settings.makeProvider(
                        ProviderContext(
                            bundleID: entry.bundleID, expiration: entry.expiration, now: environment.credentialsNow,
                            tokenCache: StoreTokenCache(store: store), output: environment.output,
                            readSecret: {
                                [variables = environment.variables, directory = loaded.directory]
                                (reference: SecretReference) throws(SecretError) -> Secret in
                                try reference.resolve(baseDirectory: directory, environment: variables)
                            },
                            openTransport: { (shape: ProviderContext.TransportShape) throws(HTTPError) in
                                try transports.open(shape)
                            }))
                } catch {
                    throw problem(error.description)
                }
            }
            kinds[entry.id] = provider.traits.kind
            senders[entry.id] = Sender(
                provider: provider, logger: logger,
                pruning: RegistryPruner(
                    store: store, registry: provider.traits.addressing.registry, now: environment.now,
                    logger: logger, metrics: environment.metrics),
                clock: environment.clock, jitter: environment.random, metrics: environment.metrics.pushes)
        }
        let queue: PushQueue
        let shared = store as? any SharedStore
        do {
            // On a shared store the worker that polls holds the throttle; this one loads it when it takes over.
            queue = try await PushQueue(
                store: store, configuration: loaded.throttleConfiguration,
                pushToStart: PushToStartPacer(
                    limit: loaded.config.throttle.pushToStartLimit, window: loaded.config.throttle.pushToStartWindow),
                loadPending: shared == nil)
        } catch {
            throw problem(error.description)
        }
        let pipeline = Pipeline(
            store: store, rules: book, queue: queue, senders: senders, logger: logger, metrics: environment.metrics,
            random: environment.random, restartAfter: loaded.config.throttle.restartAfter,
            contracts: loaded.contracts,
            history: loaded.config.api.reportWindow > 0 ? HistoryRecorder(window: loaded.config.api.reportWindow) : nil,
            claimBatch: loaded.config.postgres?.claimBatch ?? 10_000)
        let feedTransport: any HTTPTransport
        if let given = environment.feedTransport {
            feedTransport = given
        } else {
            do {
                feedTransport = try transports.openForFeeds()
            } catch {
                throw problem("cannot start the HTTP transport: \(error)")
            }
        }
        let deliveries = DeliveryHealth(providers: kinds, defaultProvider: loaded.defaultProviderID)
        let loopClock = endingOnGracefulShutdown(environment.clock)
        let lease = shared.map { shared in
            // Taking the lease, the throttle is read afresh (the last poller's budgets and held pushes), and the
            // subscriptions and facts kept from this worker's earlier polls are forgotten; losing it, the worker only
            // stops releasing (what it queued is saved for the next poller).
            PollerLease(
                store: shared, seconds: loaded.pollerLeaseSeconds, clock: loopClock, logger: logger,
                changed: { held throws(StoreFailure) in
                    if held {
                        try await queue.reset(loadPending: true)
                        pipeline.book.forget()
                        pipeline.factsMemory.forget()
                    }
                })
        }
        var polls: (@Sendable () -> Bool)?
        if let lease { polls = { lease.isHeld } }
        let rounds = Rounds(
            pipeline: pipeline, fetcher: FeedFetcher(transport: feedTransport), deliveries: deliveries,
            defaultProvider: loaded.defaultProviderID, environment: environment, polls: polls)
        let polling = lease.map { SharedPolling(lease: $0, store: store) }
        // Each feed's loop starts from what the last process learnt (failures in a row, a server's wait).
        var savedSchedules: [String: SavedFeedSchedule] = [:]
        for feed in loaded.feeds { savedSchedules[feed.id] = try? await store.feedSchedule(feed: feed.id) }
        let feedLoops = loaded.feeds.map { feed in
            // On a shared store the schedule is read when this worker takes the feeds over (the gate).
            let saved = polling == nil ? savedSchedules[feed.id] : nil
            let remembered = Mutex(saved)
            return PollLoop(
                name: feed.id, policy: feed.pollPolicy, clock: loopClock, now: environment.now,
                random: environment.random,
                schedule: PollSchedule(
                    policy: feed.pollPolicy, consecutiveFailures: saved?.failures ?? 0, notBefore: saved?.notBefore),
                firstPollAt: saved?.notBefore,
                remember: { report, schedule in
                    let next = SavedFeedSchedule(schedule, after: report.decision, now: report.at)
                    let previous = remembered.withLock { $0 }
                    do {
                        try await store.remember(next, feed: feed.id, previous: previous)
                        remembered.withLock { $0 = next }
                    } catch {
                        // Kept in memory all the same; a restart then polls the feed as if nothing had happened.
                        environment.logger.warning(
                            "feed schedule not saved", metadata: ["feed.id": "\(feed.id)", "error": "\(error)"])
                    }
                },
                gate: polling?.feedGate(feed) { saved in remembered.withLock { $0 = saved } },
                observe: { report in
                    environment.metrics.polled(report)
                    if let asked = report.decision.cappedFrom {
                        environment.logger.warning(
                            "feed wait capped",
                            metadata: [
                                "feed.id": "\(feed.id)", "asked": "\(asked) s",
                                "decision": "\(report.decision)",
                            ])
                    }
                }
            ) {
                let polled = await rounds.poll(feed)
                // What the change queued goes out now, not at the outbox loop's next look.
                _ = await rounds.deliverLogged()
                return polled.outcome
            }
        }
        let outboxLoop = PollLoop(
            name: "outbox", policy: PollSchedule.Policy(interval: .seconds(1), backoffCap: .seconds(30)),
            clock: loopClock, now: environment.now, random: environment.random
        ) {
            await rounds.deliverLogged() == nil
                ? PollOutcome(.failed(.store), message: rounds.lastStoreFailure) : PollOutcome(.fresh)
        }
        let timerLoop = PollLoop(
            name: "timers",
            policy: PollSchedule.Policy(interval: .seconds(loaded.config.timerInterval), backoffCap: .seconds(60)),
            clock: loopClock, now: environment.now, random: environment.random,
            gate: polling?.timerGate(interval: loaded.config.timerInterval)
        ) {
            await rounds.timers().outcome
        }
        let heartbeat = shared.map {
            HeartbeatService(store: $0, clock: environment.clock, logger: logger, metrics: environment.metrics)
        }
        let health = HealthBoard(
            feeds: feedLoops, outbox: outboxLoop, deliveries: deliveries, workers: { heartbeat?.workers })
        var bearer: Secret?
        if let reference = loaded.config.api.bearerToken {
            do {
                bearer = try reference.resolve(baseDirectory: loaded.directory, environment: environment.variables)
            } catch {
                throw problem("api.bearer-token: \(error)")
            }
        }
        let tokens = TokenAPI(
            store: store, queue: queue, feeds: Set(loaded.feeds.map(\.id)), bearerToken: bearer,
            maxBodyBytes: loaded.config.api.maxBodyBytes, reportWindow: loaded.config.api.reportWindow,
            environment: senders[loaded.defaultProviderID]?.provider.traits.addressing.environment ?? .production,
            attributesTypes: { Set(book.engine.rules.map(\.attributesType)) },
            subscriptionParameters: { book.engine.subscriptionParameters }, logger: logger,
            metrics: environment.metrics, now: environment.now)
        environment.metrics.prime(
            feeds: loaded.feeds.map(\.id), providers: kinds.values.map(\.rawValue), rules: rules.rules.map(\.id))
        return LiveRelayWorker(
            loaded: loaded, pipeline: pipeline, feedLoops: feedLoops, outboxLoop: outboxLoop, timerLoop: timerLoop,
            health: health,
            rounds: rounds,
            reloader: RuleReloader(loaded: loaded, book: book, logger: logger, clock: environment.clock),
            tokens: tokens, transports: transports, pollerLease: lease, heartbeat: heartbeat)
    }

    /// The rule reloader `run` runs (its ``RuleReloader/reload(reason:)`` is what a SIGHUP does).
    public var rules: RuleReloader { reloader }

    /// The sender of a provider, by id.
    public func sender(for provider: String) -> Sender? { pipeline.senders[provider] }

    /// The APNs environment the default provider sends to, when it sends to one environment only.
    public var defaultEnvironment: PushEnvironment? {
        sender(for: loaded.defaultProviderID)?.provider.traits.addressing.environment
    }

    /// Stops the libcurl transports the worker opened.
    public func shutdown() { transports.shutdown() }
}
