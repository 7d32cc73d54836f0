import Delivery
import Feeds
import HTTP
import LiveRelayCore
import Logging
import Rules
import Store
import Synchronization
import Throttling

/// The parts ``LiveRelayWorker/build(_:rules:store:environment:)`` assembles, each made by itself from the
/// config. A problem is a diagnostic naming the config (never a secret).
extension LiveRelayWorker {
    /// Each provider of the config (secrets read, transports opened, or the environment's own), with its
    /// sender; and each provider's kind, by id.
    static func senders(
        _ loaded: LoadedConfig, store: any StateStore, transports: TransportPool, environment: WorkerEnvironment
    ) throws(Diagnostics) -> (senders: [String: Sender], kinds: [String: ProviderKind]) {
        let logger = environment.logger
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
                                try transports.open(shape, provider: entry.id)
                            }))
                } catch {
                    throw loaded.problem(error.description)
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
        return (senders, kinds)
    }

    /// The throttle with its saved state. On a shared store the worker that polls holds the held pushes;
    /// another loads them when it takes the polls over (`loadPending: false`).
    static func throttle(_ loaded: LoadedConfig, store: any StateStore, loadPending: Bool) async throws(Diagnostics)
        -> StoredThrottle
    {
        do {
            return try await StoredThrottle(
                store: store, configuration: loaded.throttleConfiguration,
                pushToStart: PushToStartPacer(
                    limit: loaded.config.throttle.pushToStartLimit, window: loaded.config.throttle.pushToStartWindow),
                loadPending: loadPending)
        } catch {
            throw loaded.problem(error.description)
        }
    }

    /// The feeds' fetcher: libcurl, or the environment's transport (tests, replay).
    static func fetcher(_ loaded: LoadedConfig, transports: TransportPool, environment: WorkerEnvironment)
        throws(Diagnostics) -> FeedFetcher
    {
        if let given = environment.feedTransport { return FeedFetcher(transport: given) }
        do {
            return FeedFetcher(transport: try transports.openForFeeds())
        } catch {
            throw loaded.problem("cannot start the HTTP transport: \(error)")
        }
    }

    /// On a shared store: the lease that says whether this worker polls. Taking it, the throttle is read afresh
    /// (the last poller's budgets and held pushes), and the subscriptions and facts kept from this worker's
    /// earlier polls are forgotten; losing it, the worker only stops releasing (what it queued is saved for
    /// the next poller).
    static func pollerLease(
        _ loaded: LoadedConfig, store: any SharedStore, pipeline: Pipeline, clock: any Clock<Duration>,
        logger: Logger
    ) -> PollerLease {
        PollerLease(
            store: store, seconds: loaded.pollerLeaseSeconds, clock: clock, logger: logger,
            changed: { held throws(StoreFailure) in
                if held {
                    try await pipeline.queue.reset(loadPending: true)
                    pipeline.book.forget()
                    pipeline.factsMemory.forget()
                }
            })
    }

    /// The token API's handlers: registrations, subscriptions, reports, behind the configured bearer token.
    static func tokenAPI(
        _ loaded: LoadedConfig, store: any StateStore, queue: StoredThrottle, book: RuleBook,
        senders: [String: Sender], environment: WorkerEnvironment
    ) throws(Diagnostics) -> TokenAPI {
        var bearer: Secret?
        if let reference = loaded.config.api.bearerToken {
            do {
                bearer = try reference.resolve(baseDirectory: loaded.directory, environment: environment.variables)
            } catch {
                throw loaded.problem("api.bearer-token: \(error)")
            }
        }
        return TokenAPI(
            store: store, queue: queue, feeds: Set(loaded.feeds.map(\.id)), bearerToken: bearer,
            maxBodyBytes: loaded.config.api.maxBodyBytes, reportWindow: loaded.config.api.reportWindow,
            environment: senders[loaded.defaultProviderID]?.provider.traits.addressing.environment ?? .production,
            attributesTypes: { Set(book.engine.rules.map(\.attributesType)) },
            subscriptionParameters: { book.engine.subscriptionParameters }, logger: environment.logger,
            metrics: environment.metrics, now: environment.now)
    }
}

extension Pipeline {
    /// The pipeline of a config: its throttle settings, contracts, report window and claim batch.
    init(
        _ loaded: LoadedConfig, store: any StateStore, rules: RuleBook, queue: StoredThrottle,
        senders: [String: Sender],
        environment: WorkerEnvironment
    ) {
        self.init(
            store: store, rules: rules, queue: queue, senders: senders, logger: environment.logger,
            metrics: environment.metrics, random: environment.random,
            restartAfter: loaded.config.throttle.restartAfter, contracts: loaded.contracts,
            history: loaded.config.api.reportWindow > 0 ? HistoryRecorder(window: loaded.config.api.reportWindow) : nil,
            claimBatch: loaded.config.postgres?.claimBatch ?? 10_000)
    }
}

extension LoadedConfig {
    /// A problem in building the worker, said of this config's file.
    func problem(_ message: String) -> Diagnostics {
        Diagnostics([Diagnostic(file: path, location: nil, message: message)])
    }
}
