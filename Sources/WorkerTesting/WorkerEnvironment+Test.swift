public import Delivery
public import LiveRelayTesting
public import Logging
public import Worker

extension WorkerEnvironment {
    /// An environment for tests: `clock` (by default one whose sleeps return at once), the wall time `now`
    /// (by default a fixed moment of the recorded match), no jitter, no logging, metrics nowhere, nothing
    /// printed, no secrets in the environment; `providers` replace the config's by id.
    public static func test(
        clock: any Clock<Duration> = ImmediateClock(), now: @escaping @Sendable () -> Int = { 1_783_101_600 },
        logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
        metrics: LiveRelayMetrics = .none, output: @escaping @Sendable (String) -> Void = { _ in },
        variables: [String: String] = [:], providers: [String: any PushProvider] = [:]
    ) -> WorkerEnvironment {
        WorkerEnvironment(
            clock: clock, now: now, random: { 0 }, logger: logger, metrics: metrics, prometheus: nil, output: output,
            variables: variables, feedTransport: nil, providers: providers, onAPIRunning: { _ in })
    }
}
