import Feeds
import Foundation
import Logging
import ServiceLifecycle
import Store

/// `liverelay run`: polls every feed on its interval and delivers what the throttle releases, until a
/// graceful shutdown (SIGTERM/SIGINT). Then only the waits are cut short: a poll or a delivery under way
/// finishes (the service group's grace period bounds it), and every pending push stays saved in SQLite for
/// the next run.
public struct WorkerService: Service {
    public let tick: Tick
    public let feeds: [FeedRuntime]
    public let health: HealthBoard
    private let logger: Logger
    private let now: @Sendable () -> Int

    public init(
        tick: Tick, feeds: [FeedRuntime], health: HealthBoard, logger: Logger,
        now: @escaping @Sendable () -> Int = { Int(Date().timeIntervalSince1970) }
    ) {
        self.tick = tick
        self.feeds = feeds
        self.health = health
        self.logger = logger
        self.now = now
    }

    public func run() async throws {
        try await withThrowingDiscardingTaskGroup { group in
            for feed in feeds {
                group.addTask { try await pollUntilShutdown(feed) }
            }
            group.addTask { try await releaseHeldUntilShutdown() }
        }
        let pending = await tick.pipeline.queue.pendingCount
        logger.info("worker stopped; pending pushes stay saved", metadata: ["pending": "\(pending)"])
    }

    /// Polls a feed, delivers at once what its changes queued, then waits what the feed's schedule says: its
    /// interval with jitter, a `Cache-Control: max-age` floor, backoff after errors, `Retry-After`, a ban.
    private func pollUntilShutdown(_ feed: FeedRuntime) async throws {
        var schedule = PollSchedule(policy: feed.pollPolicy)
        while !Task.isShuttingDownGracefully {
            let (report, outcome) = try await tick.poll(feed, now: now())
            health.record(report, at: now())
            if let error = report.error {
                logger.warning("feed error", metadata: ["feed.id": "\(feed.id)", "error": "\(error)"])
            }
            if report.queued > 0 { health.record(try await tick.deliver(now: now())) }
            let next = schedule.record(outcome, now: now(), random: Double.random(in: 0..<1))
            logger.debug("polled", metadata: ["feed.id": "\(feed.id)", "next": "\(next)"])
            await sleepUnlessShuttingDown(next.delay)
        }
    }

    /// Delivers pushes held for the budget (or the provider's rate) when their time comes, and what waits in
    /// the outbox (a previous run's leftovers first, then postponed retries). Looks again at least every
    /// second, so work queued in the meantime is not missed.
    private func releaseHeldUntilShutdown() async throws {
        while !Task.isShuttingDownGracefully {
            let t = now()
            let held = await tick.pipeline.queue.nextWakeup()
            let outbox = try await tick.pipeline.store.outboxStatus().nextAttempt
            if let next = [held, outbox].compactMap({ $0 }).min(), next <= t {
                let report = try await tick.deliver(now: t)
                health.record(report)
                // Due work that could not move (the provider's rate spent) waits for the next look instead
                // of spinning until the rate allows it.
                if report.progress > 0 { continue }
            }
            await sleepUnlessShuttingDown(.seconds(1))
        }
    }

    private func sleepUnlessShuttingDown(_ duration: Duration) async {
        try? await cancelWhenGracefulShutdown { try await Task.sleep(for: duration) }
    }
}
