import Delivery
import Foundation
import HTTP
import LiveRelayCore
import Logging
import Rules
import Store

extension WorkerFactory {
    /// One provider of the config: `console`, `apns` (its key read now), `fcm` (its service account read
    /// now), `pushwoosh` (its API token read now) or `getui` (its master secret read now), each real one with
    /// its own libcurl transport. Problems are diagnostics that never show a secret.
    public static func provider(
        _ p: ProviderConfig, loaded: LoadedConfig, write: @escaping @Sendable (String) -> Void,
        now: @escaping @Sendable () -> Int = { Int(Date().timeIntervalSince1970) },
        tokenCache: (any ProviderTokenCache)? = nil
    ) throws(Diagnostics) -> any PushProvider {
        func problem(_ message: String) -> Diagnostics {
            Diagnostics([Diagnostic(file: loaded.path, location: nil, message: message)])
        }
        func secret(_ reference: SecretReference, _ key: String) throws(Diagnostics) -> Secret {
            do {
                return try reference.resolve(baseDirectory: loaded.directory)
            } catch {
                throw problem("provider.\(key): \(error)")
            }
        }
        func transport(connections: Int = 1, streams: Int = 100) throws(Diagnostics) -> CurlTransport {
            var http = CurlTransport.Configuration()
            http.caFile = loaded.config.http.caFile.map(loaded.resolve)
            http.threads = connections
            http.maxConnectionsPerHost = 1
            http.maxConcurrentStreams = streams
            http.coalesceWrites = loaded.config.http.coalesceWrites
            do {
                return try CurlTransport(configuration: http)
            } catch {
                throw problem("provider: cannot start the HTTP/2 transport: \(error)")
            }
        }
        switch p.type {
        case "console":
            return ConsoleProvider(
                encoder: APNsRequestEncoder(bundleID: p.bundleID, expirationSeconds: p.expiration), write: write)
        case "apns":
            guard let apns = p.apns else { throw problem("provider: apns needs key-id, team-id and key") }
            let key: APNsSigningKey
            do {
                key = try APNsSigningKey(pem: try secret(apns.key, "key"), keyID: apns.keyID, teamID: apns.teamID)
            } catch let error as Diagnostics {
                throw error
            } catch {
                throw problem("provider.key: \(error)")
            }
            let endpoint =
                apns.endpoint.map { APNsEndpoint(url: $0, environment: apns.environment) }
                ?? .apple(apns.environment)
            return APNsProvider(
                configuration: APNsProvider.Configuration(
                    endpoint: endpoint, bundleID: p.bundleID, expirationSeconds: p.expiration,
                    tokenRefreshInterval: apns.tokenRefresh, requestTimeout: .seconds(apns.timeout),
                    inputPushToken: apns.inputPushToken),
                key: key, transport: try transport(connections: apns.connections, streams: apns.maxConcurrentStreams),
                now: now, tokenCache: tokenCache)
        case "fcm":
            guard let fcm = p.fcm else { throw problem("provider: fcm needs service-account") }
            let account: FCMServiceAccount
            do {
                account = try FCMServiceAccount(json: try secret(fcm.serviceAccount, "service-account"))
            } catch let error as Diagnostics {
                throw error
            } catch {
                throw problem("provider.service-account: \(error)")
            }
            let configuration = FCMProvider.Configuration(
                endpoint: fcm.endpoint ?? "https://fcm.googleapis.com", tokenURL: fcm.tokenEndpoint,
                projectID: fcm.projectID, requestTimeout: .seconds(fcm.timeout))
            return FCMProvider(configuration: configuration, account: account, transport: try transport(), now: now)
        case "pushwoosh":
            guard let pushwoosh = p.pushwoosh else {
                throw problem("provider: pushwoosh needs application and api-token")
            }
            return PushwooshProvider(
                configuration: PushwooshProvider.Configuration(
                    endpoint: pushwoosh.endpoint ?? "https://api.pushwoosh.com", application: pushwoosh.application,
                    requestTimeout: .seconds(pushwoosh.timeout), startFilterCode: pushwoosh.filterCode),
                apiToken: try secret(pushwoosh.apiToken, "api-token"), transport: try transport())
        case "getui":
            guard let getui = p.getui else { throw problem("provider: getui needs app-id, app-key and master-secret") }
            return GetuiProvider(
                configuration: GetuiProvider.Configuration(
                    endpoint: getui.endpoint ?? "https://restapi.getui.com", appID: getui.appID, appKey: getui.appKey,
                    ttlSeconds: p.expiration, autoBadge: getui.autoBadge, requestTimeout: .seconds(getui.timeout)),
                masterSecret: try secret(getui.masterSecret, "master-secret"), transport: try transport(),
                now: { now() * 1000 })
        default:
            throw problem("provider.type: \"\(p.type)\" is not available in this build")
        }
    }

    /// How a provider's pushes find their targets: APNs' environment filter, the console's placeholder, the
    /// registry addresses of FCM, Pushwoosh and Getui.
    public static func deliveryOptions(for provider: any PushProvider) -> DeliveryOptions {
        let apns = provider as? APNsProvider
        let addresses = ["fcm", "pushwoosh", "getui"].contains(provider.name) ? provider.name : nil
        let console = provider is ConsoleProvider
        // The console prints each request: one at a time, so its output follows the release order.
        var options = DeliveryOptions(
            environment: apns?.configuration.endpoint.environment,
            placeholderWhenNoTokens: apns == nil && addresses == nil, maxConcurrentDeliveries: console ? 1 : 64)
        options.addresses = addresses
        options.startsToSegment = (provider as? PushwooshProvider)?.configuration.startFilterCode != nil
        return options
    }

    /// The routes of a config (`providers` and `routes`), each provider with its own sender; `nil` when the
    /// config has no routes. Rule-file routes match the rules loaded from that file.
    /// - Parameter defaultProvider: the default provider, built by ``provider(for:write:now:tokenCache:)``.
    ///   When the config has no `provider`, the first of `providers` is that same provider: it is used, not
    ///   built again (one transport, one provider token, one health).
    public static func router(
        for loaded: LoadedConfig, rules: RuleSet, store: SQLiteStore, logger: Logger,
        defaultProvider: any PushProvider, clock: any Clock<Duration> = ContinuousClock(),
        write: @escaping @Sendable (String) -> Void = { print($0) },
        now: @escaping @Sendable () -> Int = { Int(Date().timeIntervalSince1970) }
    ) throws(Diagnostics) -> ProviderRouter? {
        let config = loaded.config
        guard !config.routes.isEmpty else { return nil }
        var routes: [String: ProviderRoute] = [:]
        for (i, p) in config.providers.enumerated() {
            let provider =
                i == 0 && config.defaultIsFirstOfProviders
                ? defaultProvider : try provider(p, loaded: loaded, write: write, now: now)
            let options = deliveryOptions(for: provider)
            routes[p.id] = ProviderRoute(
                id: p.id,
                sender: Sender(
                    provider: provider, logger: logger,
                    pruning: RegistryPruner(store: store, addresses: options.addresses, now: now), clock: clock),
                delivery: options)
        }
        var router = ProviderRouter()
        router.byProvider = routes
        for (i, route) in config.routes.enumerated() {
            guard let target = routes[route.provider] else {
                throw Diagnostics([
                    Diagnostic(
                        file: loaded.path, location: nil,
                        message: "routes[\(i)].provider: no entry of providers has the id \"\(route.provider)\"")
                ])
            }
            if let type = route.attributesType {
                router.byAttributesType[type] = router.byAttributesType[type] ?? target
            }
            if let file = route.ruleFile {
                let path = URL(fileURLWithPath: loaded.resolve(file)).standardizedFileURL.path
                for rule in rules.rules
                where URL(fileURLWithPath: rule.source.file).standardizedFileURL.path == path {
                    router.byRule[rule.id] = router.byRule[rule.id] ?? target
                }
            }
        }
        return router
    }
}
