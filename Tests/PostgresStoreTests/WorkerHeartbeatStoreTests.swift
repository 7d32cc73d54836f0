import Foundation
import LiveRelayCore
import PostgresStore
import Store
import Testing

/// Heartbeats on the database's clock: the claims of a worker whose heartbeat lapsed are taken over at once
/// (long before they expire), and a worker that stalled gives its claims up and rejoins under a new name.
/// The waits are on the database's clock (whole seconds), which no event can stand in for.
@Suite(.enabled(if: TestDatabase.available, Comment(rawValue: TestDatabase.absent)))
struct WorkerHeartbeatStoreTests {
    @Test func aGoneWorkersClaimsAreTakenAtOnceAndALiveOnesAreNot() async throws {
        // 5 s: under the whole suite's load a 2-s timeout lapsed between a's beat and its claim.
        try await TestDatabase.with(workers: 2, workerTimeout: 5) { stores in
            let (a, b) = (stores[0], stores[1])
            _ = try await a.heartbeat()
            _ = try await b.heartbeat()
            try await a.enqueue([
                PostgresStoreTests.row("match-1", "aa", timestamp: 10),
                PostgresStoreTests.row("match-1", "bb", timestamp: 10),
            ])
            let taken = try await a.dueOutbox(now: 20, limit: 10)
            #expect(taken.count == 2)
            #expect(a.holdsClaims)
            #expect(try await b.dueOutbox(now: 20, limit: 10).isEmpty, "a beats: its claims are its own")
            // a stops beating (killed); b goes on.
            #expect(b.workersAlive == nil, "not counted before the first read of the heartbeats")
            var status = try await b.workersStatus()
            #expect(b.workersAlive == 2)
            // a's heartbeat lapses on the database's clock: time passing is what this waits for, and nothing
            // announces it.
            let deadline = ContinuousClock.now + .seconds(20)
            while status.rowsHeldByGoneWorkers == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(250))
                _ = try await b.heartbeat()
                status = try await b.workersStatus()
            }
            #expect(status.rowsHeldByGoneWorkers == 2)
            #expect(status.workers.first { $0.owner == a.claimOwner }?.gone == true)
            #expect(status.workers.first { $0.owner == b.claimOwner }?.gone == false)
            #expect(b.workersAlive == 1, "b is alone: it claims as a worker alone does")
            #expect(!a.holdsClaims, "a would not send them now either")
            let retaken = try await b.dueOutbox(now: 20, limit: 10)
            #expect(Set(retaken.map(\.key)) == Set(taken.map(\.key)), "taken over long before the claims expire (60 s)")
            #expect(try await b.workersStatus().rowsHeldByGoneWorkers == 0)
            // a comes back and settles what it had: the rows are b's now, nothing is finished twice.
            try await a.settleOutbox(done: taken, later: [], started: [], sent: [], now: 21)
            #expect(try await a.outboxDepth() == 2)
            try await b.settleOutbox(done: retaken, later: [], started: [], sent: [], now: 21)
            #expect(try await a.outboxDepth() == 0)
        }
    }

    @Test func aStalledWorkerGivesItsClaimsUpAndRejoinsUnderANewName() async throws {
        try await TestDatabase.with(workers: 2, workerTimeout: 5) { stores in
            let (a, b) = (stores[0], stores[1])
            _ = try await a.heartbeat()
            try await a.enqueue([PostgresStoreTests.row("match-1", "aa", timestamp: 10)])
            let owner = a.claimOwner
            #expect(try await a.dueOutbox(now: 20, limit: 10).count == 1)
            // Its claims lapse with time (no heartbeat for workerTimeout): the wall clock is what is tested.
            while a.holdsClaims { try await Task.sleep(for: .milliseconds(100)) }
            guard case .rejoined(_, let released) = try await a.heartbeat() else {
                Issue.record("a stalled past its timeout: its heartbeat must rejoin")
                return
            }
            #expect(released == 1)
            #expect(a.claimOwner != owner && a.claimOwner.hasPrefix(a.worker + "#"))
            #expect(a.holdsClaims)
            #expect(try await b.dueOutbox(now: 20, limit: 10).count == 1, "given up: anyone takes it at once")
        }
    }
}
