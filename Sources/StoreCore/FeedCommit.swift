public import Foundation
public import LiveRelayCore

/// What one poll of one feed leaves behind.
public struct FeedCommit: Sendable {
    public var feed: String
    public var now: Int
    /// The new facts of changed or new entities; `nil` when the body was unchanged (304).
    public var facts: [String: Facts]?
    public var removedEntities: [String]
    public var etag: String?
    public var lastModified: String?
    public var activities: [ActivityRecord]
    /// The throttle states the poll changed (the pushes it queued), saved in the same transaction: a poll's
    /// facts are never saved without the pushes they made.
    public var throttleStates: [(key: ActivityKey, json: Data, pending: Bool)]
    /// What the poll decided for each activity, for the live report (``HistoryRow``); `nil` keeps none.
    public var history: HistoryWrite?
    /// By entity id, the facts named by quiet rules that changed in this poll: each gets `now` as the time it
    /// last changed.
    public var factChanges: [String: [String]] = [:]

    /// The fact changes of one entity as the stores merge them (`{"name": now, …}`); `nil` for none.
    public func factChangesText(of entity: String) -> String? {
        guard let names = factChanges[entity], !names.isEmpty else { return nil }
        return JSONValue.object(Dictionary(names.map { ($0, JSONValue.int(now)) }) { a, _ in a }).jsonString()
    }

    public init(
        feed: String, now: Int, facts: [String: Facts]?, removedEntities: [String] = [], etag: String? = nil,
        lastModified: String? = nil, activities: [ActivityRecord] = [],
        throttleStates: [(key: ActivityKey, json: Data, pending: Bool)] = [], history: HistoryWrite? = nil,
        factChanges: [String: [String]] = [:]
    ) {
        self.factChanges = factChanges
        self.throttleStates = throttleStates
        self.history = history
        self.feed = feed
        self.now = now
        self.facts = facts
        self.removedEntities = removedEntities
        self.etag = etag
        self.lastModified = lastModified
        self.activities = activities
    }
}

/// What a feed's poll schedule must remember between processes (`tick` runs from cron): the failures in a
/// row (the backoff grows with them) and the time before which the feed must not be polled, with why (a
/// backoff, a server's `Retry-After`, a ban, a `max-age`). A healthy feed has no such time: cron decides
/// when it is polled.
public struct SavedFeedSchedule: Sendable, Hashable {
    /// Failures since the last success.
    public var failures: Int
    /// Not polled before this (UNIX seconds); `nil`: whenever.
    public var notBefore: Int?
    /// Why (`backoff after 2 failures`, `Retry-After 120 s`, …).
    public var reason: String?

    public init(failures: Int, notBefore: Int?, reason: String?) {
        self.failures = failures
        self.notBefore = notBefore
        self.reason = reason
    }
}
