import Foundation
import LiveRelayCore
import PostgresStore
import Store
import Testing

/// A fan-out on the shared store is stored once and handed out in chunks: workers share it without a target
/// going twice, a chunk whose worker died is taken over from its cursor, and a newer push waits for the
/// chunks of an older one still out (no device gets the older state after the newer, across workers).
@Suite("PostgreSQL fan-outs", .enabled(if: TestDatabase.available, Comment(rawValue: TestDatabase.absent)))
struct PostgresFanOutTests {
    static let activity = ActivityKey("match-1")

    static func fanOut(_ timestamp: Int) -> OutboxFanOut {
        OutboxFanOut(
            activity: activity, push: Data(#"{"t":\#(timestamp)}"#.utf8), timestamp: timestamp, provider: "apns",
            environment: .production, nextAttempt: 0)
    }

    static func token(_ index: Int) -> String { String(format: "aa%04x", index) }

    /// `count` devices holding the activity's update token (`d0000`… in device order), and the fan-out.
    static func release(_ timestamp: Int, devices count: Int, in store: PostgresStore) async throws {
        _ = try await store.importActivityTokens(
            (0..<count).map { (activity, String(format: "d%04d", $0), token($0), PushEnvironment.production) }, now: 1)
        try await store.commitRelease(
            throttleStates: [], outbox: [], fanOuts: [fanOut(timestamp)], rewrites: [], drops: [], history: nil,
            paces: StartPaces())
    }

    @Test func workersClaimingAtOnceShareAFanOutAndEachTargetGoesOnce() async throws {
        try await TestDatabase.with(workers: 3) { stores in
            try await Self.release(10, devices: 600, in: stores[0])
            #expect(try await stores[0].outboxStatus().depth == 1, "a fan-out counts as one")
            let sent = try await withThrowingTaskGroup(of: [String].self) { group in
                for store in stores {
                    group.addTask {
                        var mine: [String] = []
                        while true {
                            let batch = try await store.dueOutbox(now: 20, limit: 50)
                            if batch.isEmpty {
                                // Another worker may hold the fan-out's row for a moment, or a chunk still out.
                                if try await store.outboxStatus().depth == 0 { break }
                                try await Task.sleep(for: .milliseconds(2))
                                continue
                            }
                            #expect(batch.allSatisfy { $0.fanOut != nil && $0.timestamp == 10 })
                            mine += batch.map(\.key.target)
                            var progress = FanOutProgress(batch)
                            try await store.settleOutbox(
                                done: batch, later: [], started: [], sent: [],
                                cursors: progress.written(batch.indices), now: 20)
                        }
                        return mine
                    }
                }
                var all: [[String]] = []
                for try await tokens in group { all.append(tokens) }
                return all
            }
            let every = sent.flatMap { $0 }
            #expect(every.count == 600, "each target once")
            #expect(Set(every) == Set((0..<600).map(Self.token)))
            #expect(sent.filter { !$0.isEmpty }.count >= 2, "the fan-out was shared")
            #expect(try await stores[0].outboxStatus() == (0, nil))
        }
    }

    /// A chunk's targets come in device order whatever order their tokens were stored in: its cursor is one
    /// run of receipts, and its last target is its end.
    @Test func aChunksTargetsComeInDeviceOrderWhateverOrderTheyWereStoredIn() async throws {
        try await TestDatabase.with { stores in
            let store = stores[0]
            // Stored last device first: the table's rows lie in the reverse of device order. Enough of them
            // (1,000 or more) for the import to measure the table, so the planner knows that reading the table
            // in the order it lies is the cheapest way to rows in no order: a query that did not ask for device
            // order would get them backwards.
            let count = 1200
            _ = try await store.importActivityTokens(
                (0..<count).reversed().map {
                    (Self.activity, String(format: "d%04d", $0), Self.token($0), PushEnvironment.production)
                }, now: 1)
            try await store.commitRelease(
                throttleStates: [], outbox: [], fanOuts: [Self.fanOut(10)], rewrites: [], drops: [], history: nil,
                paces: StartPaces())
            var devices: [String] = []
            // Three chunks and the read that finds the fan-out spent; a few more rounds than that say enough.
            for _ in 0..<8 {
                let chunk = try await store.claimDue(worker: "a", now: 20, leaseSeconds: 30, limit: 500)
                if chunk.isEmpty { break }
                #expect(chunk.map { $0.fanOut?.last } == chunk.indices.map { $0 == chunk.count - 1 })
                devices += chunk.compactMap(\.device)
                var progress = FanOutProgress(chunk)
                try await store.settle(done: [], later: [], cursors: progress.written(chunk.indices), worker: "a")
            }
            let inDeviceOrder = devices.elementsEqual((0..<count).map { String(format: "d%04d", $0) })
            #expect(inDeviceOrder, "\(devices.count) targets, beginning \(devices.prefix(3))")
            #expect(try await store.outboxStatus() == (0, nil))
        }
    }

    @Test func aDeadWorkersChunkIsTakenOverFromItsCursorAndItsLateSettlementMovesNothing() async throws {
        try await TestDatabase.with(workers: 2) { stores in
            let (a, b) = (stores[0], stores[1])
            try await Self.release(10, devices: 4, in: a)
            let chunk = try await a.claimDue(worker: "a", now: 20, leaseSeconds: 30, limit: 10)
            #expect(chunk.map(\.key.target) == (0..<4).map(Self.token))
            #expect(chunk.map { $0.fanOut?.last } == [false, false, false, true])
            // a writes the receipts of the first two, then dies.
            var progress = FanOutProgress(chunk)
            try await a.settle(done: [], later: [], cursors: progress.written([0, 1]), worker: "a")
            #expect(try await b.claimDue(worker: "b", now: 49, leaseSeconds: 30, limit: 10).isEmpty)
            let retaken = try await b.claimDue(worker: "b", now: 50, leaseSeconds: 30, limit: 10)
            #expect(retaken.map(\.key.target) == [Self.token(2), Self.token(3)], "from the cursor, not the start")
            #expect(retaken.last?.fanOut?.last == true)
            // a comes back and writes the rest: the chunk is b's now, so a's receipts move nothing.
            try await a.settle(done: [], later: [], cursors: progress.written([2, 3]), worker: "a")
            #expect(
                try await b.claimDue(worker: "b", now: 81, leaseSeconds: 30, limit: 10).map(\.key.target)
                    == [Self.token(2), Self.token(3)], "b's claim lapsed unsettled: taken over again")
            var theirs = FanOutProgress(retaken)
            try await b.settle(done: [], later: [], cursors: theirs.written(retaken.indices), worker: "b")
            #expect(try await b.claimDue(worker: "b", now: 82, leaseSeconds: 30, limit: 10).isEmpty)
            #expect(try await b.outboxStatus() == (0, nil), "the fan-out is done once no chunk of it is left")
        }
    }

    @Test func aNewerPushWaitsForAnOlderChunkStillOutAndALapsedReplacedChunkIsNotResent() async throws {
        try await TestDatabase.with(workers: 2) { stores in
            let (a, b) = (stores[0], stores[1])
            try await Self.release(10, devices: 3, in: a)
            let older = try await a.claimDue(worker: "a", now: 20, leaseSeconds: 30, limit: 2)
            #expect(older.map(\.timestamp) == [10, 10])
            // A newer push is released while a sends the older one, superseding what waits.
            let waiting = try await b.waitingOutbox(activities: [Self.activity])
            #expect(waiting.map(\.timestamp) == [10] && waiting.first?.fanOut != nil)
            try await b.commitRelease(
                throttleStates: [], outbox: [], fanOuts: [Self.fanOut(12)], rewrites: [], drops: waiting,
                history: nil, paces: StartPaces())
            #expect(
                try await b.claimDue(worker: "b", now: 21, leaseSeconds: 30, limit: 10).isEmpty,
                "the newer state waits while the older one is out to the same devices")
            // a dies. Its chunk lapses: the devices in it get the newer push, not the older one again.
            let newer = try await b.claimDue(worker: "b", now: 50, leaseSeconds: 30, limit: 10)
            #expect(newer.map(\.key.target) == (0..<3).map(Self.token))
            #expect(newer.allSatisfy { $0.timestamp == 12 && $0.push == Data(#"{"t":12}"#.utf8) })
            // A target of the newer push that fails for now becomes a row of its own; one of the older push
            // that comes back late does not (a newer push waits for it).
            var progress = FanOutProgress(newer)
            var retry = newer[1]
            retry.attempts = 1
            retry.nextAttempt = 500
            var late = older[0]
            late.attempts = 1
            late.nextAttempt = 500
            try await b.settle(done: [], later: [retry], cursors: progress.written(newer.indices), worker: "b")
            try await a.settle(done: [], later: [late], worker: "a")
            let retried = try await b.claimDue(worker: "b", now: 600, leaseSeconds: 30, limit: 10)
            #expect(retried.map(\.key.target) == [Self.token(1)])
            #expect(retried.map(\.timestamp) == [12])
            #expect(retried.first?.fanOut == nil)
        }
    }
}
