import ArgumentParser
import Foundation
import LiveRelayCore
import Logging
import Metrics
import Prometheus
import ServiceLifecycle
import Worker

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run as a service: poll every feed on its interval, send pushes, serve /healthz and /metrics.",
        discussion: """
            Polls each feed every `interval` seconds, delivers what the throttle releases (held pushes go out \
            when their budget returns), reloads the rule files on SIGHUP or when one changes (a broken edit is \
            refused and logged; the running rules stay), and serves the HTTP API configured under "api". \
            SIGTERM or SIGINT stops polling, lets deliveries under way finish, keeps every pending push saved, \
            and exits 0.

            Example:  liverelay run --config Samples/demo/liverelay.json
            """)

    @Option(name: .shortAndLong, help: "The config file.")
    var config: String

    @Option(help: "Seconds deliveries under way may take to finish after SIGTERM/SIGINT.")
    var gracePeriod: Int = 10

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        logging.bootstrap()
        let registry = PrometheusCollectorRegistry()
        let metrics = LiveRelayMetrics(factory: PrometheusMetricsFactory(registry: registry))
        let (loaded, rules) = try loadForRun(configPath: config)
        let logger = Logger(label: "liverelay.run")
        let store = try openStore(loaded.resolve(loaded.config.state))
        let provider = try WorkerFactory.provider(
            for: loaded, write: standardOutput, tokenCache: StoreTokenCache(store: store))
        let transport = try WorkerFactory.transport(for: loaded)
        defer { transport.shutdown() }
        let pipeline = try await WorkerFactory.pipeline(
            for: loaded, rules: rules, store: store, provider: provider, logger: logger, metrics: metrics,
            router: try WorkerFactory.router(
                for: loaded, rules: rules, store: store, logger: logger, defaultProvider: provider,
                write: standardOutput))
        let health = HealthBoard(feeds: loaded.feeds.map(\.id), provider: provider.name)
        let worker = WorkerService(
            tick: Tick(pipeline: pipeline, fetcher: FeedFetcher(transport: transport)), feeds: loaded.feeds,
            health: health, logger: logger)
        let reloader = RuleReloader(loaded: loaded, book: pipeline.rules, logger: logger)
        var bearer: Secret?
        if let reference = loaded.config.api.bearerToken {
            do {
                bearer = try reference.resolve(baseDirectory: loaded.directory)
            } catch {
                standardError("\(config): api.bearer-token: \(error)")
                throw ExitCode(1)
            }
        }
        let tokens = TokenAPI(
            store: store, queue: pipeline.queue, feeds: Set(loaded.feeds.map(\.id)), bearerToken: bearer,
            maxBodyBytes: loaded.config.api.maxBodyBytes)
        let api = APIServer.application(
            host: loaded.config.api.host, port: loaded.config.api.port, health: health, registry: registry,
            tokens: tokens,
            logger: Logger(label: "liverelay.api"),
            onRunning: { port in standardError("liverelay: API listening on http://\(loaded.config.api.host):\(port)") }
        )
        var configuration = ServiceGroupConfiguration(
            services: [
                .init(service: worker), .init(service: reloader),
                .init(service: api, successTerminationBehavior: .gracefullyShutdownGroup),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(gracePeriod)
        try await ServiceGroup(configuration: configuration).run()
    }
}
