public import LiveRelayCore

/// Compares a feed's facts now with the facts it had before and reports what changed, entity by entity.
public enum ChangeDetector {
    /// Changes sorted by entity id: new entities (no `previous`), changed ones, and entities that disappeared
    /// (no `current`). Entities whose facts are equal produce nothing.
    public static func changes(feed: String, previous: [String: Facts], current: [String: Facts]) -> [FeedChange] {
        var out: [FeedChange] = []
        for id in Set(previous.keys).union(current.keys).sorted() {
            let before = previous[id]
            let after = current[id]
            guard before != after else { continue }
            out.append(
                FeedChange(
                    entity: EntityKey(feed: feed, id: id), previous: before, current: after,
                    changedPaths: Facts.changedPaths(from: before, to: after)))
        }
        return out
    }
}
