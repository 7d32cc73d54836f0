import Foundation
import LiveRelayCore
import LiveRelayTesting
import PostgresStore
import StoreCore
import Testing

@testable import Worker

/// The delivery round on PostgreSQL, where rounds are claimed: how many rows a worker claims, and a round
/// claimed ahead by a worker that has rejoined since.
extension DeliverRoundTests {
    /// Workers a and b on a new schema of the test cluster (LIVERELAY_TEST_POSTGRES_URL), with their heartbeats'
    /// timeouts in seconds, and the tasks running their connection pools.
    static func workers(timeouts: (a: Int, b: Int)) throws -> (PostgresStore, PostgresStore, [Task<Void, Never>]) {
        let url = try #require(ProcessInfo.processInfo.environment["LIVERELAY_TEST_POSTGRES_URL"])
        let password = ProcessInfo.processInfo.environment["LIVERELAY_TEST_POSTGRES_PASSWORD"].map(Secret.init)
        let schema = "dr_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let a = try PostgresStore(
            .init(url: url, password: password, schema: String(schema), worker: "a", workerTimeout: timeouts.a))
        let b = try PostgresStore(
            .init(url: url, password: password, schema: String(schema), worker: "b", workerTimeout: timeouts.b))
        return (a, b, [Task { await a.run() }, Task { await b.run() }])
    }

    /// On PostgreSQL a worker alone claims a whole round (``SharedClaims/batch(claimBatch:workersAlive:alone:)``),
    /// and `claim-batch` rows once another worker's heartbeat is alive.
    @Test(.postgres)
    func aWorkerAloneClaimsAWholeRoundAndSharesItOtherwise() async throws {
        // A heartbeat holds for 30 s here (3 by default): under a loaded test run, seconds may pass between a
        // heartbeat and the round after it, and a lapsed worker claims nothing.
        let (a, b, pools) = try Self.workers(timeouts: (30, 30))
        defer { for pool in pools { pool.cancel() } }
        try await a.open()
        _ = try await a.heartbeat()
        let parts = try await Parts(store: a)
        try await parts.fanOutReleased(devices: Self.devices)
        let claims = SharedClaims(store: a, logger: parts.logger)

        // a alone beats: one round claims the whole fan-out, though claim-batch is 5.
        _ = try await a.heartbeat()
        _ = try await a.workersStatus()
        #expect(a.workersAlive == 1)
        let alone = Parts.provider()
        let first = try await parts.deliver(alone, claims: claims, claimBatch: 5, now: 1010)
        #expect(alone.deliveries.count == Self.devices, "the whole fan-out in one round")
        #expect(!first.full)
        // The next round finds nothing left to send (it removes a spent fan-out's row).
        let again = try await parts.deliver(alone, claims: claims, claimBatch: 5, now: 1010)
        #expect(again.deliveries.isEmpty)
        #expect(alone.deliveries.count == Self.devices, "nothing twice")
        #expect(try await a.outboxStatus().depth == 0)

        // b beats too: the next fan-out is claimed claim-batch rows a round, the rest left to either worker.
        try await parts.plan(101, 102, now: 1020)
        try await parts.release(Parts.provider(), now: 1020)
        try await b.open()
        _ = try await b.heartbeat()
        _ = try await a.heartbeat()
        _ = try await a.workersStatus()
        #expect(a.workersAlive == 2)
        let shared = Parts.provider()
        let second = try await parts.deliver(shared, claims: claims, claimBatch: 5, now: 1020)
        #expect(shared.deliveries.count == 5, "claim-batch rows")
        #expect(second.full)
        #expect(try await a.outboxStatus().depth == 1, "the fan-out, with targets left")

        // The rest in rounds, each claimed while the one before it is out: every target once.
        let rest = Parts.provider()
        // Its last chunk is claimed while another is out, so not as the last: the read after its receipts finds
        // the fan-out spent and removes it.
        #expect(try await parts.deliverAll(rest, claims: claims, claimBatch: 5, now: 1020) == 3)
        let tokens = (shared.deliveries + rest.deliveries).compactMap(\.target.token)
        #expect(tokens.count == Self.devices && Set(tokens).count == Self.devices, "each once")
        #expect(try await a.outboxStatus().depth == 0, "nothing left behind")
        try await a.dropSchema()
    }

    /// A round claimed while the one before it was out is sent as the owner that claimed it: when the worker
    /// stalled and rejoined meanwhile (its old claims given up, another worker sending them), it sends none of
    /// it, though its new incarnation's claims hold.
    @Test(.postgres)
    func aRoundClaimedAheadIsNotSentAfterItsWorkerRejoined() async throws {
        // a's heartbeat holds its claims for 1.5 s (the shortest timeout, 2 s, less its margin): the test lets it
        // lapse.
        let (a, b, pools) = try Self.workers(timeouts: (2, 30))
        defer { for pool in pools { pool.cancel() } }
        try await a.open()
        let parts = try await Parts(store: a)
        try await parts.fanOutReleased(devices: Self.devices)

        // a claims 5 targets and, while they are out, the next 5 (the number of workers is not read: claim-batch
        // holds). The first is answered, the others wait.
        let gate = Gate()
        let gated = GatedProvider(open: { gate.isOpen })
        let beat = ContinuousClock.now
        _ = try await a.heartbeat()
        let claimsOfA = SharedClaims(store: a, logger: parts.logger)
        let rounds = Task {
            try await parts.deliverAll(gated, claims: claimsOfA, claimBatch: 5, now: 1010)
        }
        // Both claims made, the first target's receipt written.
        let deadline = ContinuousClock.now + .seconds(10)
        while try await a.claims(of: "a").count != 9, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(try await a.claims(of: "a").count == 9, "two rounds of 5 claimed, the first target settled")
        #expect(gated.answered == 1)

        // a's heartbeat lapses; at its next one it rejoins, giving its claims up, and b sends the rest (a round
        // takes over one lapsed chunk).
        try await Task.sleep(until: beat + .seconds(1.6))
        guard case .rejoined(_, let released) = try await a.heartbeat() else {
            Issue.record("a did not rejoin")
            rounds.cancel()
            return
        }
        #expect(released >= 2, "the two chunks a claimed")
        try await b.open()
        let byB = Parts.provider()
        let claimsOfB = SharedClaims(store: b, logger: parts.logger)
        for _ in 0..<5 {
            _ = try await b.heartbeat()
            let before = byB.deliveries.count
            _ = try await parts.deliverAll(byB, through: b, claims: claimsOfB, claimBatch: 100, now: 1010)
            if byB.deliveries.count == before { break }
        }
        let first = String(format: "%064x", 1)
        // a's rounds go on: the rest of its first round fenced, the round it claimed ahead sent as its old owner,
        // so not at all; what it claims next as its new one, b has sent.
        gate.open()
        _ = try await rounds.value
        #expect(
            gated.tokens.count == 2,
            "a sent the first target and the one in flight at its stall: \(gated.tokens.map { $0.suffix(2) })")
        let fromB = byB.deliveries.compactMap(\.target.token)
        #expect(Set(fromB + gated.tokens).count == Self.devices, "none lost")
        #expect(fromB.count == Self.devices - 1, "b sent each target a had not answered, once")
        #expect(!fromB.contains(first))
        #expect(try await a.outboxStatus().depth == 0, "nothing left behind")
        try await a.dropSchema()
    }
}
