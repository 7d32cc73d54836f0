public import Feeds
public import Logging
public import ServiceLifecycle

/// Whether the state store is down for good, read from the poll loops' counters (a feed's poll and the
/// outbox's round each write to it). Pure.
public enum StoreWatch {
    /// What to do about the store now.
    public enum Verdict: Sendable, Hashable {
        /// The last round succeeded (or none failed yet).
        case healthy
        /// Rounds have been failing since `since` (UNIX seconds): `/healthz` says so; the worker goes on.
        case failing(since: Int)
        /// Failing for `limit` seconds or more: end the process so a supervisor starts a fresh one.
        case giveUp(since: Int)
    }

    /// The verdict at `now` for a worker that started at `startedAt`, ending after `limit` seconds of
    /// failure: the store is failing while some loop's last poll failed on it and no loop has succeeded
    /// since; it has been failing since the latest success of any loop (or the start).
    public static func verdict(_ loops: [PollCounters], startedAt: Int, now: Int, limit: Int) -> Verdict {
        let failing = loops.filter { $0.consecutiveFailures > 0 && $0.lastFailureKind == FeedError.Kind.store.name }
        guard let latestFailure = failing.compactMap(\.lastFailure).max() else { return .healthy }
        let since = loops.compactMap(\.lastSuccess).max() ?? startedAt
        if since > latestFailure { return .healthy }
        return now - since >= limit ? .giveUp(since: since) : .failing(since: since)
    }
}

/// The state store failed for longer than the worker may go on without it.
public struct StoreDown: Error, Sendable, CustomStringConvertible {
    public var seconds: Int
    public var lastError: String
    public var description: String {
        "the state store has failed for \(seconds) s (\(lastError)): stopping so a supervisor can restart the worker"
    }
}

/// Ends `run` with an error (a non-zero exit) when the state store has failed for `limit` seconds: a lock
/// that stays, a full disk or a read-only file are not waited out for ever. Shorter failures are survived:
/// polls and rounds retry with backoff and `/healthz` shows them.
public struct StoreWatchdog: Service {
    let loops: [PollLoop]
    let limit: Int
    let clock: any Clock<Duration>
    let now: @Sendable () -> Int
    let logger: Logger

    public init(
        loops: [PollLoop], limit: Int, clock: any Clock<Duration>, now: @escaping @Sendable () -> Int, logger: Logger
    ) {
        self.loops = loops
        self.limit = limit
        self.clock = clock
        self.now = now
        self.logger = logger
    }

    public func run() async throws {
        let startedAt = now()
        var warned = false
        while !Task.isCancelled {
            do {
                try await cancellingOnGracefulShutdown { try await clock.sleep(for: .seconds(1)) }
            } catch {
                return
            }
            let all = loops.map(\.counters)
            let lastError = all.first { $0.lastFailureKind == FeedError.Kind.store.name }?.lastError ?? "?"
            switch StoreWatch.verdict(all, startedAt: startedAt, now: now(), limit: limit) {
            case .healthy:
                warned = false
            case .failing(let since):
                if !warned, now() - since >= limit / 2 {
                    warned = true
                    logger.error(
                        "state store still failing",
                        metadata: [
                            "seconds": "\(now() - since)", "exit-after": "\(limit) s",
                            "error": "\(lastError)",
                        ])
                }
            case .giveUp(let since):
                let down = StoreDown(seconds: now() - since, lastError: lastError)
                logger.critical("\(down)")
                throw down
            }
        }
    }
}
