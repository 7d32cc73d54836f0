import Foundation
import LiveRelayCore
import LiveRelayTesting
import Store
import Testing
import Worker
import WorkerTesting

/// What a poll decides is saved in one transaction, and a transaction that fails loses nothing: the push
/// its change made still goes out once the state file can be written again.
@Suite("Write boundaries", .serialized)
struct WriteBoundaryTests {
    /// A poll's facts and the pushes they queued are one write: the kick-off start is in the state file as
    /// soon as the facts that made it are (a kill after the facts could not lose it).
    @Test func aPollSavesItsFactsAndItsPushesTogether() async throws {
        try await LifecycleBed.with(registering: MatchReplay.registerDevice) { bed in
            let feed = bed.loaded.feeds[0]
            let body = try Data(contentsOf: Repository.url("Samples/" + RunWithAPNs.steps[1]))
            _ = try await bed.worker.pipeline.plan(feed: feed, body: body, now: bed.now)
            // A second store on the same file, as the next process after a kill would open it.
            let reopened = try SQLiteStore(path: bed.loaded.resolve(bed.loaded.config.state))
            let pending = try await reopened.throttleStates(pendingOnly: true)
            #expect(pending.keys.map(\.rawValue) == ["match-760499"], "the start is saved with the facts")
        }
    }

    /// The throttle released the kick-off start, but the transaction that writes it to the outbox failed
    /// (another process held the state file's lock): the start is pending again, and goes out once the lock
    /// is gone.
    @Test func aReleaseThatCannotBeWrittenIsReleasedAgainLater() async throws {
        try await LifecycleBed.with(busyTimeout: .milliseconds(100), registering: MatchReplay.registerDevice) { bed in
            let feed = bed.loaded.feeds[0]
            let body = try Data(contentsOf: Repository.url("Samples/" + RunWithAPNs.steps[1]))
            _ = try await bed.worker.pipeline.plan(feed: feed, body: body, now: bed.now)
            let lock = try StateFileLock(path: bed.loaded.resolve(bed.loaded.config.state))
            await #expect(throws: SQLiteStore.Failure.self) { _ = try await bed.worker.pipeline.release(now: bed.now) }
            try lock.release()
            let released = try await bed.worker.pipeline.release(now: bed.now + 1)
            #expect(released.count == 1, "the start is released again")
            _ = try await bed.worker.pipeline.deliverDue(now: bed.now + 1)
            #expect(bed.startTokens == [MatchReplay.startToken])
        }
    }
}
