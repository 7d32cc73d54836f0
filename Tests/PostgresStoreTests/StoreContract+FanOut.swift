import Foundation
import LiveRelayCore
import Store
import Testing

/// Fan-outs (a push to every update token of its activity, stored once): what the worker relies on, the
/// same whether the store keeps one cursor (SQLite) or hands the fan-out out in chunks (PostgreSQL).
extension StoreContract {
    static func fanOut(_ timestamp: Int, environment: PushEnvironment? = .production) -> OutboxFanOut {
        OutboxFanOut(
            activity: key, push: Data(#"{"t":\#(timestamp)}"#.utf8), timestamp: timestamp, provider: "apns",
            environment: environment, nextAttempt: 0)
    }

    static func tokens(
        _ devices: [(device: String, token: String, environment: PushEnvironment)], in store: any StateStore
    )
        async throws
    {
        for d in devices {
            try await store.registerActivityToken(
                activity: key, device: d.device, token: d.token, environment: d.environment, now: 1)
        }
    }

    /// Settles a round the way the worker does: receipts, and the cursors they move.
    static func settle(_ round: [OutboxEntry], done: [Int], later: [Int], in store: any StateStore) async throws {
        var progress = FanOutProgress(round)
        try await store.settleOutbox(
            done: done.map { round[$0] },
            later: later.map {
                var r = round[$0]
                r.attempts += 1
                r.nextAttempt = 500
                return r
            }, started: [], sent: [], cursors: progress.written(done + later), now: 100)
    }

    static let fanOutChecks: [StoreCheck] = [
        StoreCheck(name: "a fan-out goes once to each update token of its activity, in device order, round by round") {
            store in
            try await tokens(
                [
                    ("d3", "aa03", .production), ("d1", "aa01", .production), ("d2", "aa02", .sandbox),
                    ("d4", "aa04", .production),
                ], in: store)
            try await store.commitRelease(
                throttleStates: [], outbox: [], fanOuts: [fanOut(10)], rewrites: [], drops: [], history: nil,
                paces: StartPaces())
            #expect(try await !store.waitingOutbox(activities: [key]).isEmpty)
            let first = try await store.dueOutbox(now: 100, limit: 2)
            #expect(first.map(\.key.target) == ["aa01", "aa03"], "device order, production tokens only")
            #expect(first.map(\.device) == ["d1", "d3"])
            #expect(first.allSatisfy { $0.timestamp == 10 && $0.kind == "activity" && $0.provider == "apns" })
            #expect(first.first?.push == Data(#"{"t":10}"#.utf8))
            try await settle(first, done: [0, 1], later: [], in: store)
            let second = try await store.dueOutbox(now: 100, limit: 2)
            #expect(second.map(\.key.target) == ["aa04"])
            try await settle(second, done: [], later: [0], in: store)
            #expect(try await store.dueOutbox(now: 200, limit: 10).isEmpty, "the one put off waits for its time")
            let retried = try await store.dueOutbox(now: 600, limit: 10)
            #expect(retried.map(\.key.target) == ["aa04"])
            #expect(retried.map(\.attempts) == [1])
            #expect(retried.map(\.timestamp) == [10])
            try await settle(retried, done: [0], later: [], in: store)
            #expect(try await store.outboxStatus() == (0, nil))
            #expect(try await store.waitingOutbox(activities: [key]).isEmpty)
        },
        StoreCheck(name: "a newer push replaces a fan-out in full; no token gets the older state after it") { store in
            try await tokens(
                [("d1", "aa01", .production), ("d2", "aa02", .production), ("d3", "aa03", .production)], in: store)
            try await store.commitRelease(
                throttleStates: [], outbox: [], fanOuts: [fanOut(10)], rewrites: [], drops: [], history: nil,
                paces: StartPaces())
            try await settle(try await store.dueOutbox(now: 100, limit: 1), done: [0], later: [], in: store)
            let inFlight = try await store.dueOutbox(now: 100, limit: 1)
            #expect(inFlight.map(\.key.target) == ["aa02"])
            // The newer push is released while d2's older one is in flight, superseding what waits (as the
            // worker's release does).
            let waiting = try await store.waitingOutbox(activities: [key]).filter { $0.timestamp < 12 }
            try await store.commitRelease(
                throttleStates: [], outbox: [], fanOuts: [fanOut(12)], rewrites: [], drops: waiting, history: nil,
                paces: StartPaces())
            // The older push's receipt says "try again": it must not come back beside the newer one.
            try await settle(inFlight, done: [], later: [0], in: store)
            let due = try await store.dueOutbox(now: 1_000, limit: 10)
            #expect(due.map(\.key.target) == ["aa01", "aa02", "aa03"], "every token, the ones done before too")
            #expect(due.map(\.timestamp) == [12, 12, 12])
        },
        StoreCheck(name: "rows of a newer push end an older fan-out") { store in
            try await tokens([("d1", "aa01", .production), ("d2", "aa02", .production)], in: store)
            try await store.commitRelease(
                throttleStates: [], outbox: [], fanOuts: [fanOut(10)], rewrites: [], drops: [], history: nil,
                paces: StartPaces())
            let waiting = try await store.waitingOutbox(activities: [key])
            try await store.commitRelease(
                throttleStates: [], outbox: [row("aa01", 12)], fanOuts: [], rewrites: [], drops: waiting,
                history: nil, paces: StartPaces())
            let due = try await store.dueOutbox(now: 100, limit: 10)
            #expect(due.map(\.key.target) == ["aa01"])
            #expect(due.map(\.timestamp) == [12])
        },
        StoreCheck(name: "a fan-out with no token left leaves the outbox") { store in
            try await store.commitRelease(
                throttleStates: [], outbox: [], fanOuts: [fanOut(10, environment: nil)], rewrites: [], drops: [],
                history: nil, paces: StartPaces())
            #expect(try await store.dueOutbox(now: 100, limit: 10).isEmpty)
            #expect(try await store.outboxStatus() == (0, nil))
        },
        StoreCheck(name: "a round read while another is out takes none of its rows or targets") { store in
            try await tokens((1...5).map { ("d\($0)", "aa0\($0)", .production) }, in: store)
            let other = ActivityKey("match:other")
            try await store.commitRelease(
                throttleStates: [], outbox: [row("s1", 9, activity: other), row("s2", 9, activity: other)],
                fanOuts: [fanOut(10)], rewrites: [], drops: [], history: nil, paces: StartPaces())
            // Each round read while the one before it is out, as the worker reads ahead: the round before that
            // one is settled by then.
            var rounds = [try await store.dueOutbox(now: 100, limit: 2)]
            while let last = rounds.last, !last.isEmpty, rounds.count < 8 {
                rounds.append(try await store.dueOutbox(now: 100, limit: 2, after: OutboxInFlight(last)))
                try await settle(last, done: Array(last.indices), later: [], in: store)
            }
            let targets = rounds.flatMap { $0.map(\.key.target) }
            #expect(targets.sorted() == ["aa01", "aa02", "aa03", "aa04", "aa05", "s1", "s2"], "each once: \(rounds)")
            #expect(
                rounds.flatMap { $0.filter { $0.fanOut != nil }.map(\.key.target) }
                    == ["aa01", "aa02", "aa03", "aa04", "aa05"], "in device order")
            #expect(try await store.dueOutbox(now: 100, limit: 10).isEmpty)
            #expect(try await store.outboxStatus() == (0, nil))
        },
        StoreCheck(name: "a fan-out whose targets are all out stays until their receipts are written") { store in
            try await tokens((1...3).map { ("d\($0)", "aa0\($0)", .production) }, in: store)
            try await store.commitRelease(
                throttleStates: [], outbox: [], fanOuts: [fanOut(10)], rewrites: [], drops: [], history: nil,
                paces: StartPaces())
            let round = try await store.dueOutbox(now: 100, limit: 3)
            #expect(round.map(\.key.target) == ["aa01", "aa02", "aa03"])
            // Read ahead, no target is left; a kill now must still find the round's targets waiting.
            #expect(try await store.dueOutbox(now: 100, limit: 3, after: OutboxInFlight(round)).isEmpty)
            #expect(try await store.waitingOutbox(activities: [key]).count == 1, "the fan-out still waits")
            try await settle(round, done: [0, 1, 2], later: [], in: store)
            #expect(try await store.dueOutbox(now: 100, limit: 3).isEmpty)
            #expect(try await store.outboxStatus() == (0, nil))
        },
    ]
}
