import Testing

@testable import Worker

/// How many outbox rows a delivery round claims on a shared store: small batches only where there is someone
/// to share a fan-out with.
struct ClaimBatchTests {
    @Test func aWorkerAloneClaimsARoundOfAStoreOfOneWorker() {
        #expect(SharedClaims.batch(claimBatch: 1_000, workersAlive: 1) == 10_000)
        #expect(SharedClaims.batch(claimBatch: 20_000, workersAlive: 1) == 20_000, "a larger claim-batch holds")
        #expect(SharedClaims.batch(claimBatch: 1_000, workersAlive: 1, alone: 5_000) == 5_000)
    }

    @Test func workersThatShareClaimTheirClaimBatch() {
        #expect(SharedClaims.batch(claimBatch: 1_000, workersAlive: 2) == 1_000)
        #expect(SharedClaims.batch(claimBatch: 500, workersAlive: 3) == 500)
    }

    @Test func beforeTheFirstHeartbeatIsReadTheClaimBatchHolds() {
        // Others may be alive: the small batch shares, the large one might not.
        #expect(SharedClaims.batch(claimBatch: 1_000, workersAlive: nil) == 1_000)
        #expect(SharedClaims.batch(claimBatch: 1_000, workersAlive: 0) == 1_000)
    }

    @Test func aRoundClaimedAheadIsTakenOnlyWithinHalfItsClaimsLength() {
        #expect(SharedClaims.takesReadAhead(age: .milliseconds(200), claimSeconds: 60))
        #expect(SharedClaims.takesReadAhead(age: .seconds(29), claimSeconds: 60))
        #expect(!SharedClaims.takesReadAhead(age: .seconds(30), claimSeconds: 60), "half the claims' length")
        #expect(!SharedClaims.takesReadAhead(age: .seconds(90), claimSeconds: 60), "its claims may have lapsed")
    }
}
