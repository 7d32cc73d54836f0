public import LiveRelayCore

/// Latest state wins beyond the throttle too: what becomes of a push still waiting for a target in the
/// outbox when a newer push of the same activity is released. Pure.
///
/// - A waiting `start` is rewritten to carry the newer state when the newer push is an `update`, so a
///   device that has not had its start yet starts the activity as it is now, with the start's attributes and
///   alert (and, where the update would go to the same target, as Getui's `cid` does, instead of it: an
///   update must not reach a device before its start). When the newer push is an `end`, the start is
///   dropped: an ended activity is never started.
/// - Any other waiting push older than the newer one is dropped: its target would get an older state after
///   a newer one exists (where the newer one goes to the same target, it takes the row's place).
public enum Supersession {
    /// What to do with one waiting push.
    public enum Decision: Sendable, Hashable {
        /// Nothing: the released push replaces it on its target, or it is not older.
        case keep
        /// Send this push instead (a start carrying the newer state).
        case rewrite(LiveActivityPush)
        /// Never send it.
        case drop
    }

    /// The decision for `waiting`, a push still waiting for a target, once `released` has been released.
    public static func decide(waiting: LiveActivityPush, released: LiveActivityPush) -> Decision {
        guard waiting.activity == released.activity, waiting.timestamp < released.timestamp else { return .keep }
        guard waiting.event == .start, released.event == .update else { return .drop }
        var start = waiting
        start.timestamp = released.timestamp
        start.contentState = released.contentState
        start.staleDate = released.staleDate
        start.relevanceScore = [waiting.relevanceScore, released.relevanceScore].compactMap { $0 }.max()
        start.ruleIDs = waiting.ruleIDs + released.ruleIDs.filter { !waiting.ruleIDs.contains($0) }
        return .rewrite(start)
    }
}
