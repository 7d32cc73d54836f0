import Feeds
import Testing
import Worker

/// When the state store counts as down for good: some loop's last poll failed on it, for `limit` seconds
/// since the latest success of those loops.
@Suite struct StoreWatchTests {
    static func counters(_ outcomes: [(PollOutcome, Int)]) -> PollCounters {
        var counters = PollCounters()
        for (outcome, at) in outcomes { counters.record(outcome, now: at) }
        return counters
    }

    static let ok = PollOutcome(.fresh)
    static let store = PollOutcome(.failed(.store), message: "database is locked")
    static let transport = PollOutcome(.failed(.transport))

    @Test func healthyFailingAndGivenUp() {
        let feed = Self.counters([(Self.ok, 100), (Self.store, 110)])
        let outbox = Self.counters([(Self.ok, 105), (Self.store, 111)])
        #expect(StoreWatch.verdict([feed, outbox], startedAt: 0, now: 112, limit: 300) == .failing(since: 105))
        #expect(StoreWatch.verdict([feed, outbox], startedAt: 0, now: 405, limit: 300) == .giveUp(since: 105))
        // The outbox wrote again after the feed's failure: the store works; the feed finds out at its next poll.
        let recovered = Self.counters([(Self.ok, 105), (Self.store, 111), (Self.ok, 112)])
        #expect(StoreWatch.verdict([feed, recovered], startedAt: 0, now: 500, limit: 300) == .healthy)
    }

    @Test func aFeedsOwnFailuresAreNotTheStores() {
        let feed = Self.counters([(Self.ok, 100), (Self.transport, 110)])
        #expect(StoreWatch.verdict([feed], startedAt: 0, now: 10_000, limit: 300) == .healthy)
    }

    @Test func aStoreThatNeverWorkedCountsFromTheStart() {
        let outbox = Self.counters([(Self.store, 3)])
        #expect(StoreWatch.verdict([outbox], startedAt: 1, now: 300, limit: 300) == .failing(since: 1))
        #expect(StoreWatch.verdict([outbox], startedAt: 1, now: 301, limit: 300) == .giveUp(since: 1))
    }
}
