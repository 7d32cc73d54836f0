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
    private let outbox: @Sendable () async -> Int?
    private let logger: Logger

    /// - Parameters:
    ///   - pending: how many pushes the throttle holds, for the line said at the end;
    ///   - outbox: how many wait in the outbox (`nil` when the state file cannot say).
    public init(
        loops: [PollLoop], logger: Logger, pending: @escaping @Sendable () async -> Int,
        outbox: @escaping @Sendable () async -> Int? = { nil }
    ) {
        self.loops = loops
        self.logger = logger
        self.pending = pending
        self.outbox = outbox
    }

    public func run() async {
        await withTaskGroup(of: Bool.self) { group in
            for loop in loops {
                group.addTask {
                    await loop.run()
                    return true
                }
            }
            group.addTask { [loops, logger] in
                await Self.sayWhatTheStopWaitsFor(loops, logger: logger)
                return false
            }
            var running = loops.count
            while running > 0, let loopEnded = await group.next() {
                if loopEnded { running -= 1 }
            }
            group.cancelAll()
        }
        let held = await pending()
        let left = await outbox()
        let outboxText = left.map { "\($0) push\($0 == 1 ? "" : "es") left in the outbox" } ?? "the outbox unread"
        logger.notice(
            "worker stopped: \(outboxText), \(held) held by the throttle; they are saved for the next run",
            metadata: ["pending": "\(held)", "outbox": "\(left.map(String.init) ?? "?")"])
    }

    /// Once a graceful stop has waited 5 s for the loops, and every 5 s after, says which loops have not
    /// returned and what each is doing: a stop that hangs names where. Ends when cancelled.
    private static func sayWhatTheStopWaitsFor(_ loops: [PollLoop], logger: Logger) async {
        await untilGracefulShutdownOrCancellation()
        guard !Task.isCancelled else { return }
        let began = ContinuousClock.now
        while true {
            do { try await Task.sleep(for: .seconds(5)) } catch { return }
            let busy = loops.filter { $0.phase != .stopped }
            guard !busy.isEmpty else { continue }
            logger.warning(
                "the stop still waits for loops",
                metadata: [
                    "waited": "\(Int(((ContinuousClock.now - began) / .seconds(1)).rounded())) s",
                    "loops": "\(busy.map { "\($0.name) (\($0.phase.rawValue))" }.joined(separator: ", "))",
                ])
        }
    }
}
