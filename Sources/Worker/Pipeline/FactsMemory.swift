import LiveRelayCore
import Synchronization

/// Each feed's facts as this worker's last poll of it saved them, kept between polls so a poll does not read
/// them back from the store. Read from the store instead when the worker has not saved the feed since it
/// started or took the polls over (``forget()``), or when a save failed. Only the poller writes a feed's
/// facts, so what it saved is what the store holds.
public final class FactsMemory: Sendable {
    private let feeds = Mutex<[String: [String: Facts]]>([:])

    public init() {}

    /// The facts of `feed` as last saved, if known.
    func facts(feed: String) -> [String: Facts]? { feeds.withLock { $0[feed] } }

    /// After a save: `previous` with `changed` set and `removed` gone.
    func saved(feed: String, previous: [String: Facts], changed: [String: Facts], removed: [String]) {
        var facts = previous
        facts.merge(changed) { _, new in new }
        for id in removed { facts[id] = nil }
        feeds.withLock { $0[feed] = facts }
    }

    /// Forgets `feed` (a save that failed may or may not have landed).
    func forget(feed: String) { _ = feeds.withLock { $0.removeValue(forKey: feed) } }

    /// Forgets every feed: a worker taking the polls over reads what the last poller saved.
    public func forget() { feeds.withLock { $0.removeAll() } }
}
