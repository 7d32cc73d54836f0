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

    /// The configured provider: `console`, or `apns` (its key read now; its own libcurl transport with the
    /// configured connections and streams). Problems are diagnostics that never show the key.
    /// - Parameter now: the wall clock in UNIX seconds, for APNs provider tokens; tests simulate it.
    public static func provider(
        for loaded: LoadedConfig, write: @escaping @Sendable (String) -> Void,
        now: @escaping @Sendable () -> Int = { Int(Date().timeIntervalSince1970) },
        tokenCache: (any ProviderTokenCache)? = nil
    ) throws(Diagnostics) -> any PushProvider {
        let p = loaded.config.provider
        func problem(_ message: String) -> Diagnostics {
            Diagnostics([Diagnostic(file: loaded.path, location: nil, message: message)])
        }
        switch p.type {
        case "console":
            return ConsoleProvider(
                encoder: APNsRequestEncoder(bundleID: p.bundleID, expirationSeconds: p.expiration), write: write)
        case "apns":
            guard let apns = p.apns else { throw problem("provider: apns needs key-id, team-id and key") }
            let key: APNsSigningKey
            do {
                let pem = try apns.key.resolve(baseDirectory: loaded.directory)
                key = try APNsSigningKey(pem: pem, keyID: apns.keyID, teamID: apns.teamID)
            } catch let error as SecretError {
                throw problem("provider.key: \(error)")
            } catch {
                throw problem("provider.key: \(error)")
            }
            var http = CurlTransport.Configuration()
            http.caFile = loaded.config.http.caFile.map(loaded.resolve)
            http.threads = apns.connections
            http.maxConnectionsPerHost = 1
            http.maxConcurrentStreams = apns.maxConcurrentStreams
            let transport: CurlTransport
            do {
                transport = try CurlTransport(configuration: http)
            } catch {
                throw problem("provider: cannot start the HTTP/2 transport: \(error)")
            }
            let endpoint =
                apns.endpoint.map { APNsEndpoint(url: $0, environment: apns.environment) }
                ?? .apple(apns.environment)
            return APNsProvider(
                configuration: APNsProvider.Configuration(
                    endpoint: endpoint, bundleID: p.bundleID, expirationSeconds: p.expiration,
                    tokenRefreshInterval: apns.tokenRefresh, requestTimeout: .seconds(apns.timeout),
                    inputPushToken: apns.inputPushToken),
                key: key, transport: transport, now: now, tokenCache: tokenCache)
        default:
            throw problem("provider.type: \"\(p.type)\" is not available in this build")
        }
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
        metrics: LiveRelayMetrics = .none, clock: any Clock<Duration> = ContinuousClock()
    ) async throws(SQLiteStore.Failure) -> Pipeline {
        let queue = try await PushQueue(
            store: store, configuration: throttle(for: loaded), providerRate: loaded.config.provider.rate,
            providerBurst: loaded.config.provider.burst)
        let apns = provider as? APNsProvider
        let sender = Sender(
            provider: provider, logger: logger,
            pruning: RegistryPruner(store: store, now: { Int(Date().timeIntervalSince1970) }), clock: clock)
        return Pipeline(
            store: store, rules: RuleBook(RuleEngine(rules: rules.rules)), ledger: ActivityLedger(), queue: queue,
            sender: sender,
            // The console prints each request: one at a time, so its output follows the release order.
            delivery: DeliveryOptions(
                environment: apns?.configuration.endpoint.environment, placeholderWhenNoTokens: apns == nil,
                maxConcurrentDeliveries: apns == nil ? 1 : 64),
            logger: logger, metrics: metrics)
    }

    /// The HTTP transport for feeds and providers.
    public static func transport(for loaded: LoadedConfig) throws -> CurlTransport {
        var configuration = CurlTransport.Configuration()
        configuration.caFile = loaded.config.http.caFile.map(loaded.resolve)
        return try CurlTransport(configuration: configuration)
    }
}
