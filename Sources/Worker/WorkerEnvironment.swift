public import Delivery
import Foundation
public import HTTP
public import Logging
public import Prometheus

/// What the composition root takes from outside the config: time, randomness, logging, metrics, where the
/// console prints, and, for tests, stand-ins for the network. `run`, `tick`, `replay` and `send` start from
/// ``live(logger:output:)``; tests replace what they drive (a test clock, a recording provider).
public struct WorkerEnvironment: Sendable {
    /// What the poll loops and the rule reloader sleep on, and the senders' backoff waits on.
    public var clock: any Clock<Duration>
    /// The wall clock in UNIX seconds, as feeds, rules, timers and timestamps see it (`tick --now` and
    /// `replay` pretend another time).
    public var now: @Sendable () -> Int
    /// The real time in UNIX seconds, for credentials only (a provider token's `iat`, an OAuth token's
    /// expiry): a provider checks them against its own clock, whatever time the worker pretends.
    public var credentialsNow: @Sendable () -> Int
    /// Draws in `0..<1` (poll and backoff jitter).
    public var random: @Sendable () -> Double
    /// Where the worker logs.
    public var logger: Logger
    /// Where the worker counts.
    public var metrics: LiveRelayMetrics
    /// What `/metrics` serves; `nil` serves nothing.
    public var prometheus: PrometheusCollectorRegistry?
    /// Where the console provider prints each request.
    public var output: @Sendable (String) -> Void
    /// The environment variables secret references (`{"env": …}`) read.
    public var variables: [String: String]
    /// Fetches feeds; `nil` opens a libcurl transport with the config's CA file.
    public var feedTransport: (any HTTPTransport)?
    /// Providers to use instead of building the config's, by provider id (tests record pushes this way).
    public var providers: [String: any PushProvider]
    /// Called with the API's port once it listens.
    public var onAPIRunning: @Sendable (Int) async -> Void

    /// An environment of the given parts.
    public init(
        clock: any Clock<Duration>, now: @escaping @Sendable () -> Int, random: @escaping @Sendable () -> Double,
        logger: Logger, metrics: LiveRelayMetrics, prometheus: PrometheusCollectorRegistry?,
        output: @escaping @Sendable (String) -> Void, variables: [String: String], feedTransport: (any HTTPTransport)?,
        providers: [String: any PushProvider], onAPIRunning: @escaping @Sendable (Int) async -> Void,
        credentialsNow: (@Sendable () -> Int)? = nil
    ) {
        self.clock = clock
        self.now = now
        self.credentialsNow = credentialsNow ?? now
        self.random = random
        self.logger = logger
        self.metrics = metrics
        self.prometheus = prometheus
        self.output = output
        self.variables = variables
        self.feedTransport = feedTransport
        self.providers = providers
        self.onAPIRunning = onAPIRunning
    }

    /// The real world: the continuous clock, the system's time and randomness, Prometheus metrics.
    public static func live(logger: Logger, output: @escaping @Sendable (String) -> Void) -> WorkerEnvironment {
        let registry = PrometheusCollectorRegistry()
        return WorkerEnvironment(
            clock: ContinuousClock(), now: { Int(Date().timeIntervalSince1970) },
            random: { Double.random(in: 0..<1) }, logger: logger,
            metrics: LiveRelayMetrics(factory: DescribedMetricsFactory(registry: registry)), prometheus: registry,
            output: output, variables: ProcessInfo.processInfo.environment, feedTransport: nil, providers: [:],
            onAPIRunning: { _ in }, credentialsNow: { Int(Date().timeIntervalSince1970) })
    }
}
