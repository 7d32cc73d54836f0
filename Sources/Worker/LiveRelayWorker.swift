public import Delivery
public import Feeds
import Foundation
import HTTP
public import LiveRelayCore
import Logging
public import Rules
import ServiceLifecycle
public import Store
import Synchronization
import Throttling
import UnixSignals

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
        let transports = TransportPool(http: loaded.config.http, directory: loaded.directory)
        let book = RuleBook(RuleEngine(rules: rules.rules), routes: try loaded.routes(for: rules))
        let (senders, kinds) = try Self.senders(loaded, store: store, transports: transports, environment: environment)
        let shared = store as? any SharedStore
        let queue = try await throttle(loaded, store: store, loadPending: shared == nil)
        let pipeline = Pipeline(
            loaded, store: store, rules: book, queue: queue, senders: senders, environment: environment)
        let deliveries = DeliveryHealth(providers: kinds, defaultProvider: loaded.defaultProviderID)
        let clock = endingOnGracefulShutdown(environment.clock)
        let lease = shared.map {
            pollerLease(loaded, store: $0, pipeline: pipeline, clock: clock, logger: environment.logger)
        }
        let fetcher = try Self.fetcher(loaded, transports: transports, environment: environment)
        var polls: (@Sendable () -> Bool)?
        if let lease { polls = { lease.isHeld } }
        let rounds = Rounds(
            pipeline: pipeline, fetcher: fetcher, deliveries: deliveries, defaultProvider: loaded.defaultProviderID,
            environment: environment, polls: polls, connections: transports.pushConnections)
        let polling = lease.map { SharedPolling(lease: $0, store: store) }
        let feedLoops = await Self.feedLoops(
            loaded, rounds: rounds, polling: polling, store: store, clock: clock, environment: environment)
        let outboxLoop = Self.outboxLoop(rounds: rounds, clock: clock, environment: environment)
        let timerLoop = Self.timerLoop(loaded, rounds: rounds, polling: polling, clock: clock, environment: environment)
        let heartbeat = shared.map {
            HeartbeatService(
                store: $0, clock: environment.clock, logger: environment.logger, metrics: environment.metrics)
        }
        let health = HealthBoard(
            feeds: feedLoops, outbox: outboxLoop, deliveries: deliveries, workers: { heartbeat?.workers })
        let tokens = try tokenAPI(
            loaded, store: store, queue: queue, book: book, senders: senders, environment: environment)
        environment.metrics.prime(
            feeds: loaded.feeds.map(\.id), providers: kinds.values.map(\.rawValue), rules: rules.rules.map(\.id))
        return LiveRelayWorker(
            loaded: loaded, pipeline: pipeline, feedLoops: feedLoops, outboxLoop: outboxLoop, timerLoop: timerLoop,
            health: health, rounds: rounds,
            reloader: RuleReloader(loaded: loaded, book: book, logger: environment.logger, clock: environment.clock),
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
