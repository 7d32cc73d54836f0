import Feeds
import Foundation
import Store
import Synchronization

extension LoadedConfig {
    /// The poller's lease length: the config's, else 1.5 times the shortest feed interval (at least 3 s),
    /// so another worker takes the feeds over within 2 poll intervals of the poller's death.
    public var pollerLeaseSeconds: Int {
        if let given = config.postgres?.leaseSeconds { return given }
        let shortest = feeds.map(\.interval).min() ?? 10
        return max(3, shortest * 3 / 2)
    }
}

/// The gates of the poll loops when several workers share the store: only the lease's holder polls.
struct SharedPolling: Sendable {
    let lease: PollerLease
    let store: any StateStore

    /// How long a worker that does not poll waits before it asks again.
    func standby(interval: Int) -> PollGate {
        .standby(retry: .milliseconds(min(interval * 1000, max(lease.seconds * 1000 / 3, 500))))
    }

    /// A feed loop's gate: standby while another worker polls; on taking over, the schedule the feed's last
    /// poller saved (its failures in a row, a server's `Retry-After` or ban), so a change of worker does not
    /// reset them. `taken` hears the saved schedule (what the loop's memory of it starts from).
    func feedGate(_ feed: FeedRuntime, taken: @escaping @Sendable (SavedFeedSchedule?) -> Void)
        -> @Sendable () async -> PollGate
    {
        let polling = Mutex(false)
        return {
            guard lease.isHeld else {
                polling.withLock { $0 = false }
                return standby(interval: feed.interval)
            }
            guard !polling.withLock({ $0 }) else { return .poll }
            guard let saved = try? await store.feedSchedule(feed: feed.id) ?? nil else {
                // Not read (or never saved): start afresh, as a first process would.
                polling.withLock { $0 = true }
                taken(nil)
                return .resume(PollSchedule(policy: feed.pollPolicy))
            }
            polling.withLock { $0 = true }
            taken(saved)
            return .resume(
                PollSchedule(policy: feed.pollPolicy, consecutiveFailures: saved.failures, notBefore: saved.notBefore))
        }
    }

    /// The timer loop's gate: the timer rules run on the worker that polls.
    func timerGate(interval: Int) -> @Sendable () async -> PollGate {
        { lease.isHeld ? .poll : standby(interval: interval) }
    }
}
