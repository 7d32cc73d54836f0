import Delivery
import Foundation
import HTTP
import LiveRelayCore
import Logging
import Rules
import Store
import Throttling

/// Builds the pipeline a config describes. The one place that knows every concrete type.
public enum WorkerFactory {
    /// The rules a config names, loaded with diagnostics (feeds checked against the config).
    public static func rules(for loaded: LoadedConfig) -> RuleSet {
        RuleLoader(knownFeeds: Set(loaded.config.feeds.map(\.id))).load(paths: loaded.config.rules.map(loaded.resolve))
    }

    /// The configured default provider (`provider`, or the first of `providers`); see
    /// ``provider(_:loaded:write:now:)``.
    /// - Parameter now: the wall clock in UNIX seconds, for provider tokens; tests simulate it.
    public static func provider(
        for loaded: LoadedConfig, write: @escaping @Sendable (String) -> Void,
        now: @escaping @Sendable () -> Int = { Int(Date().timeIntervalSince1970) },
        tokenCache: (any ProviderTokenCache)? = nil
    ) throws(Diagnostics) -> any PushProvider {
        try provider(loaded.config.provider, loaded: loaded, write: write, now: now, tokenCache: tokenCache)
    }

    /// The throttle settings of a config.
    public static func throttle(for loaded: LoadedConfig) -> ThrottleConfiguration {
        let t = loaded.config.throttle
        return ThrottleConfiguration(
            defaultBudget: t.budget, budgets: t.budgets, minimumInterval: t.minimumInterval,
            autoRelevanceThreshold: loaded.config.priority.autoRelevanceThreshold)
    }

    /// The pipeline over an open store (the throttle's saved state is loaded from it). Pushes go to the
    /// tokens registered in the store; tokens the provider declares dead are dropped from it.
    /// - Parameter clock: what the sender's retry backoff waits on.
    public static func pipeline(
        for loaded: LoadedConfig, rules: RuleSet, store: SQLiteStore, provider: any PushProvider, logger: Logger,
        metrics: LiveRelayMetrics = .none, clock: any Clock<Duration> = ContinuousClock(), router: ProviderRouter? = nil
    ) async throws(SQLiteStore.Failure) -> Pipeline {
        let config = loaded.config
        let pacer = PushToStartPacer(limit: config.throttle.pushToStartLimit, window: config.throttle.pushToStartWindow)
        let queue: PushQueue
        if let router {
            // Each provider draws from its own rate: the default one for unrouted pushes, and each entry of
            // `providers` for the pushes routed to it.
            let defaultID = config.provider.id
            var rates = [defaultID: PushQueue.ProviderRate(rate: config.provider.rate, burst: config.provider.burst)]
            for p in config.providers where rates[p.id] == nil {
                rates[p.id] = PushQueue.ProviderRate(rate: p.rate, burst: p.burst)
            }
            queue = try await PushQueue(
                store: store, configuration: throttle(for: loaded), providerRates: rates,
                providerOf: { router.route(for: $0)?.id ?? defaultID }, pushToStart: pacer)
        } else {
            queue = try await PushQueue(
                store: store, configuration: throttle(for: loaded), providerRate: config.provider.rate,
                providerBurst: config.provider.burst, pushToStart: pacer)
        }
        let options = deliveryOptions(for: provider)
        // Without `provider`, the router's first entry is the default provider: share its sender too, so a
        // configuration error stops it for both.
        let shared = config.defaultIsFirstOfProviders ? router?.byProvider[config.provider.id]?.sender : nil
        let sender =
            shared
            ?? Sender(
                provider: provider, logger: logger,
                pruning: RegistryPruner(
                    store: store, addresses: options.addresses, now: { Int(Date().timeIntervalSince1970) }),
                clock: clock)
        return Pipeline(
            store: store, rules: RuleBook(RuleEngine(rules: rules.rules)), ledger: ActivityLedger(), queue: queue,
            sender: sender, delivery: options, router: router, logger: logger, metrics: metrics)
    }

    /// The HTTP transport for feeds and providers.
    public static func transport(for loaded: LoadedConfig) throws -> CurlTransport {
        var configuration = CurlTransport.Configuration()
        configuration.caFile = loaded.config.http.caFile.map(loaded.resolve)
        return try CurlTransport(configuration: configuration)
    }
}
