public import Feeds
public import Logging
public import ServiceLifecycle

/// `liverelay run`'s polling: one ``PollLoop`` per feed and one for the outbox, each on the worker's clock,
/// until a graceful shutdown (SIGTERM/SIGINT). Then only the waits are cut short (the loops' clock throws):
/// a poll or a delivery under way finishes (the service group's grace period bounds it), and every pending
/// push stays saved for the next run.
public struct WorkerService: Service {
    /// The loops it runs.
    public let loops: [PollLoop]
    private let pending: @Sendable () async -> Int
    private let logger: Logger

    /// - Parameter pending: how many pushes wait, for the log line at the end.
    public init(loops: [PollLoop], logger: Logger, pending: @escaping @Sendable () async -> Int) {
        self.loops = loops
        self.logger = logger
        self.pending = pending
    }

    public func run() async {
        await withDiscardingTaskGroup { group in
            for loop in loops { group.addTask { await loop.run() } }
        }
        let waiting = await pending()
        logger.info("worker stopped; pending pushes stay saved", metadata: ["pending": "\(waiting)"])
    }
}
