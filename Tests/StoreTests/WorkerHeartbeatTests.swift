import Store
import Testing

/// The fence of a worker sharing a store, driven with explicit instants.
@Suite struct WorkerHeartbeatTests {
    let start = ContinuousClock.now
    var beats = WorkerHeartbeat<ContinuousClock.Instant>(interval: .seconds(1), timeout: .seconds(5))

    @Test func noClaimsBeforeTheFirstHeartbeat() {
        #expect(!beats.holdsClaims(now: start))
        #expect(beats.decide(now: start) == .beat)
    }

    /// Claims are held until the last written heartbeat's start plus the timeout, less the margin (1 s):
    /// by then another worker may take them.
    @Test mutating func claimsAreHeldUntilTheTimeoutLessTheMargin() {
        beats.written(startedAt: start)
        #expect(beats.holdsClaims(now: start + .milliseconds(3_999)))
        #expect(!beats.holdsClaims(now: start + .seconds(4)))
        #expect(beats.decide(now: start + .seconds(3)) == .beat)
        #expect(beats.decide(now: start + .seconds(9)) == .rejoin(stalled: .seconds(9)))
    }

    /// A heartbeat that started earlier but was written later never moves the fence back.
    @Test mutating func anOlderHeartbeatNeverMovesTheFenceBack() {
        beats.written(startedAt: start + .seconds(2))
        beats.written(startedAt: start)
        #expect(beats.lastWritten == start + .seconds(2))
        #expect(beats.holdsClaims(now: start + .milliseconds(5_500)))
    }

    @Test func theMarginIsAQuarterOfAShortTimeout() {
        let short = WorkerHeartbeat<ContinuousClock.Instant>(interval: .milliseconds(400), timeout: .seconds(2))
        #expect(short.margin == .milliseconds(500))
    }
}
