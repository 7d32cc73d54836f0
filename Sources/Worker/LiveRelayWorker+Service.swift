import Delivery
import Feeds
import Foundation
import HTTP
import LiveRelayCore
import Logging
import Rules
public import ServiceLifecycle
import Store
import Synchronization
import Throttling
public import UnixSignals

extension LiveRelayWorker {
    /// The service group of `run`: the poll loops, the rule reloader and the API, stopped gracefully by
    /// `signals` (none in tests, which trigger the shutdown themselves).
    public func serviceGroup(gracePeriod: Duration = .seconds(10), signals: [UnixSignal] = []) -> ServiceGroup {
        let pending = pipeline.queue
        let environment = rounds.environment
        // Made here, not in `build`: `tick`, `replay` and `send` never start the API's event loops.
        let api = APIServer.application(
            host: loaded.config.api.host, port: loaded.config.api.port, health: health,
            registry: environment.prometheus, tokens: tokens,
            limits: APIConnectionLimits(
                requestTimeout: .seconds(loaded.config.api.requestTimeout),
                maxConnections: loaded.config.api.maxConnections, maxBodyBytes: loaded.config.api.maxBodyBytes),
            idleTimeout: loaded.config.api.idleTimeout, logger: environment.logger,
            ready: { [store = pipeline.store] in
                // The config and rules are loaded (the worker runs); the store must answer.
                do {
                    _ = try await store.outboxStatus()
                    return nil
                } catch {
                    return "the state store does not answer: \(error)"
                }
            }, onRunning: environment.onAPIRunning)
        // A service that fails shuts the group down gracefully, as SIGTERM does (then `run` throws its error):
        // cancelling the group instead left the API server hanging and the process deaf to signals.
        var configuration = ServiceGroupConfiguration(
            // Stopped in reverse order: the lease last, once the loops have finished their last poll and
            // release, so no other worker polls while this one still does; the heartbeat after it, so a last
            // delivery round keeps its claims to the end.
            services: [heartbeat, pollerLease].compactMap { (service: (any Service)?) in
                service.map {
                    ServiceGroupConfiguration.ServiceConfiguration(
                        service: $0, failureTerminationBehavior: .gracefullyShutdownGroup)
                }
            }
                + [
                    .init(
                        service: WorkerService(
                            loops: feedLoops + [outboxLoop, timerLoop], logger: rounds.logger,
                            pending: { await pending.pendingCount },
                            outbox: { [store = pipeline.store] in
                                // Read even when the stop has cancelled the task: the count is what the operator needs.
                                await finishingEvenIfCancelled { try? await store.outboxStatus().depth }
                            }),
                        failureTerminationBehavior: .gracefullyShutdownGroup),
                    .init(service: reloader, failureTerminationBehavior: .gracefullyShutdownGroup),
                    .init(
                        service: StoreWatchdog(
                            // Not the timer loop: a pass with no timer rules reads nothing, so its "success" says nothing.
                            loops: feedLoops + [outboxLoop], limit: loaded.config.stateFailureLimit,
                            clock: environment.clock,
                            now: environment.now, logger: rounds.logger),
                        failureTerminationBehavior: .gracefullyShutdownGroup),
                    .init(
                        service: api, successTerminationBehavior: .gracefullyShutdownGroup,
                        failureTerminationBehavior: .gracefullyShutdownGroup),
                ],
            gracefulShutdownSignals: signals, logger: rounds.logger)
        configuration.maximumGracefulShutdownDuration = gracePeriod
        return ServiceGroup(configuration: configuration)
    }
}
