import Foundation
public import Logging
public import ServiceLifecycle
public import Store
import Synchronization

/// On a shared store, writes this worker's heartbeat every ``SharedStore/heartbeatInterval`` and reads
/// what the others' say: the workers seen, and the rows still claimed by gone ones (for `/healthz` and
/// `/metrics`). It runs until the rest of the worker has stopped (it is the first service of the group, so
/// the last to hear the graceful shutdown): a last delivery round keeps its claims while it finishes.
///
/// A heartbeat that finds this worker stalled past the timeout (its claims may have been taken over) gives
/// them up and rejoins under a new incarnation, and says so.
public final class HeartbeatService: Service, Sendable {
    let store: any SharedStore
    private let clock: any Clock<Duration>
    private let logger: Logger
    private let metrics: LiveRelayMetrics
    private let seen = Mutex<WorkersStatus?>(nil)

    public init(store: any SharedStore, clock: any Clock<Duration>, logger: Logger, metrics: LiveRelayMetrics) {
        self.store = store
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
    }

    /// The workers as the last heartbeat read them.
    public var workers: WorkersStatus? { seen.withLock { $0 } }

    /// Writes one heartbeat and reads the others'.
    public func beat() async {
        do {
            if case .rejoined(let stalled, let released) = try await store.heartbeat() {
                logger.warning(
                    "this worker stalled past its heartbeat timeout: its claims were given up and it rejoined",
                    metadata: [
                        "worker": "\(store.worker)", "stalled": "\(stalled)", "rows-released": "\(released)",
                    ])
            }
        } catch {
            logger.error("heartbeat not written", metadata: ["worker": "\(store.worker)", "error": "\(error)"])
            return
        }
        do {
            let status = try await store.workersStatus()
            seen.withLock { $0 = status }
            metrics.workers(status)
        } catch {
            logger.warning("the workers' heartbeats not read", metadata: ["error": "\(error)"])
        }
    }

    /// Beats until the graceful shutdown reaches this service.
    public func run() async throws {
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            await beat()
            try? await clock.sleep(for: store.heartbeatInterval)
        }
    }
}
