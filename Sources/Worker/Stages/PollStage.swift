import Feeds
import Foundation
import HTTP
import LiveRelayCore
import StoreCore

/// The poll stage: a feed fetched (a conditional GET with the validators the last poll saved), its body
/// normalised to facts per entity, and those set against the feed's last facts: the changes the plan
/// decides on. Nothing is written here; the plan saves the new facts with what they decided.
struct PollStage: Sendable {
    let store: any FeedStore
    /// Each feed's facts as the last poll saved them (read from the store when not known).
    let factsMemory: FactsMemory

    /// The feed's answer to a GET with the validators saved by its last poll. A feed problem of any kind is
    /// in the response, never thrown; a state-store failure is thrown.
    func fetch(_ feed: FeedRuntime, fetcher: FeedFetcher) async throws(StoreFailure) -> FeedFetcher.Response {
        let saved = try await store.validators(feed: feed.id)
        let validators =
            saved.etag == nil && saved.lastModified == nil
            ? nil : CacheValidators(etag: saved.etag, lastModified: saved.lastModified)
        return await fetcher.response(feed, validators: validators)
    }

    /// What a body says against the feed's last facts; a body that cannot be normalised is a feed error.
    func read(_ feed: FeedRuntime, body: Data) async throws(StoreFailure) -> Result<FeedReading, FeedError> {
        let current: [String: Facts]
        do {
            current = try feed.normalizer.entities(body)
        } catch {
            return .failure(
                FeedError(kind: error.kind, feed: feed.id, url: redact(feed.url), message: error.message))
        }
        let previous: [String: Facts]
        if let known = factsMemory.facts(feed: feed.id) {
            previous = known
        } else {
            previous = try await store.facts(feed: feed.id)
        }
        return .success(
            FeedReading(
                feed: feed.id, previous: previous, current: current,
                changes: ChangeDetector.changes(feed: feed.id, previous: previous, current: current)))
    }
}

/// One body of a feed as the poll stage read it: its facts, the feed's last facts, and the changes.
struct FeedReading: Sendable {
    var feed: String
    var previous: [String: Facts]
    var current: [String: Facts]
    var changes: [FeedChange]
}
