import Delivery
import Foundation
import HTTP
import LiveRelayCore
import LiveRelayTesting
import Logging
import Prometheus
import ServiceLifecycle
import ServiceLifecycleTestKit
import Store
import Worker
import WorkerTesting

/// `liverelay run` in process: the worker the composition root builds from a config, its service group
/// (poll loops, rule reloader, API on a free port) running on a test clock, and a graceful shutdown at the
/// end, as SIGTERM would trigger it.
struct InProcessRun {
    static let bearer = "in-process-bearer-4b2e"
    let worker: LiveRelayWorker
    let store: SQLiteStore
    let clock: TestClock
    let registry: PrometheusCollectorRegistry
    let port: Int
    let transport: CurlTransport
    let logs: CapturingLogHandler.Store
    /// Tasks asleep on the clock when every loop waits: one per feed, the outbox's, the rule reloader's, the store watchdog's.
    let sleepers: Int

    /// Builds the worker from `configPath` (its API on a free port with ``bearer``), runs its service group
    /// until `body` returns, then shuts it down gracefully; throws what the group throws.
    static func run(
        configPath: String, start: Int = Int(Date().timeIntervalSince1970), busyTimeout: Duration = .milliseconds(200),
        providers: [String: any PushProvider] = [:], _ body: (InProcessRun) async throws -> Void
    ) async throws {
        let loaded = try ConfigLoader.load(path: configPath, environment: ["LIVERELAY_TEST_BEARER": bearer])
        let store = try SQLiteStore(path: loaded.resolve(loaded.config.state), busyTimeout: busyTimeout)
        let clock = TestClock()
        let registry = PrometheusCollectorRegistry()
        let logs = CapturingLogHandler.Store()
        let (ports, port) = AsyncStream.makeStream(of: Int.self)
        var environment = WorkerEnvironment.test(
            clock: clock, now: clock.wallTime(from: start), logger: CapturingLogHandler.logger(logs),
            metrics: LiveRelayMetrics(factory: DescribedMetricsFactory(registry: registry)),
            variables: ["LIVERELAY_TEST_BEARER": bearer], providers: providers)
        environment.prometheus = registry
        environment.onAPIRunning = { port.yield($0) }
        let worker = try await LiveRelayWorker.build(
            loaded, rules: loaded.loadRules(), store: store, environment: environment)
        defer { worker.shutdown() }
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        try await testGracefulShutdown { trigger in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await worker.serviceGroup().run() }
                var listening = ports.makeAsyncIterator()
                guard let port = await listening.next() else { throw CancellationError() }
                let run = InProcessRun(
                    worker: worker, store: store, clock: clock, registry: registry, port: port, transport: transport,
                    logs: logs, sleepers: loaded.feeds.count + 4)
                await clock.sleeping(run.sleepers)
                try await body(run)
                trigger.triggerGracefulShutdown()
                try await group.waitForAll()
            }
        }
    }

    /// Moves the clock on and waits until every loop has done what came due and sleeps again.
    func advance(by duration: Duration) async {
        clock.advance(by: duration)
        await clock.sleeping(sleepers)
    }

    /// A request to the API, with the bearer token unless told otherwise.
    /// The API's client, with ``bearer``.
    var api: APIClient { APIClient(port: port, bearer: Self.bearer, transport: transport) }

    /// What `/metrics` shows now.
    var metrics: String {
        var exposition: [UInt8] = []
        registry.emit(into: &exposition)
        return String(decoding: exposition, as: UTF8.self)
    }
}
