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

    /// The configured provider. Only `console` exists so far; others are refused with a clear message.
    public static func provider(for loaded: LoadedConfig, write: @escaping @Sendable (String) -> Void)
        throws(Diagnostics) -> any PushProvider
    {
        let p = loaded.config.provider
        switch p.type {
        case "console":
            return ConsoleProvider(
                encoder: APNsRequestEncoder(bundleID: p.bundleID, expirationSeconds: p.expiration), write: write)
        default:
            throw Diagnostics([
                Diagnostic(
                    file: loaded.path, location: nil,
                    message: "provider.type: \"\(p.type)\" is not available in this build")
            ])
        }
    }

    /// The throttle settings of a config.
    public static func throttle(for loaded: LoadedConfig) -> ThrottleConfiguration {
        let t = loaded.config.throttle
        return ThrottleConfiguration(
            defaultBudget: t.budget, budgets: t.budgets, minimumInterval: t.minimumInterval,
            autoRelevanceThreshold: loaded.config.priority.autoRelevanceThreshold)
    }

    /// The pipeline over an open store (the throttle's saved state is loaded from it).
    public static func pipeline(
        for loaded: LoadedConfig, rules: RuleSet, store: SQLiteStore, provider: any PushProvider, logger: Logger,
        metrics: LiveRelayMetrics = .none
    ) async throws(SQLiteStore.Failure) -> Pipeline {
        let queue = try await PushQueue(
            store: store, configuration: throttle(for: loaded), providerRate: loaded.config.provider.rate,
            providerBurst: loaded.config.provider.burst)
        return Pipeline(
            store: store, rules: RuleBook(RuleEngine(rules: rules.rules)), ledger: ActivityLedger(), queue: queue,
            sender: Sender(provider: provider, logger: logger), logger: logger, metrics: metrics)
    }

    /// The HTTP transport for feeds and providers.
    public static func transport(for loaded: LoadedConfig) throws -> CurlTransport {
        var configuration = CurlTransport.Configuration()
        configuration.caFile = loaded.config.http.caFile.map(loaded.resolve)
        return try CurlTransport(configuration: configuration)
    }
}
