import Testing

@testable import HTTP

/// When the lane adds connections to an origin: after whole turns of its streams are measured, in steps of
/// twice as many while each step's connections carried their share. Times are nanoseconds.
@Suite("LaneGrowth: one more connection only while it carries more")
struct LaneGrowthTests {
    static let ms: UInt64 = 1_000_000

    /// `answers` answers, one every `every` nanoseconds after `start`, each to a request sent since the
    /// connections last changed, with `inFlight` in flight and others waiting (or not); the last one's time.
    @discardableResult
    static func carry(
        _ growth: inout LaneGrowth, answers: Int, every: UInt64, from start: UInt64, inFlight: Int,
        waiting: Bool = true
    ) -> UInt64 {
        var now = start
        for _ in 0..<answers {
            now += every
            growth.answered(sentAt: growth.since, at: now, inFlight: inFlight, waiting: waiting)
        }
        return now
    }

    /// Answers enough to measure (the one that begins the turns, then each turn's), one every `every`.
    @discardableResult
    static func measure(_ growth: inout LaneGrowth, every: UInt64, from start: UInt64, inFlight: Int) -> UInt64 {
        let answers = 1 + LaneGrowth.turns * max(LaneGrowth.minimumTurn, inFlight)
        return carry(&growth, answers: answers, every: every, from: start, inFlight: inFlight)
    }

    /// What the lane's thread does when `hold` lets it: opens one more connection.
    static func open(_ growth: inout LaneGrowth, at now: UInt64) {
        #expect(growth.hold(at: now) == nil, "\(growth)")
        growth.growing()
        growth.opened(growth.connections + 1, at: now)
    }

    /// One connection of 128 streams measured at 80,000 answers a second (a server its own CPU limits), then
    /// a second measured answering one every `every` nanoseconds: the growth, and when its measurement ended.
    static func second(every: UInt64) -> (growth: LaneGrowth, now: UInt64) {
        var growth = LaneGrowth()
        growth.opened(1, at: 0)
        let opened = measure(&growth, every: 12_500, from: 0, inFlight: 128)
        open(&growth, at: opened)
        let now = measure(&growth, every: every, from: opened, inFlight: 256)
        return (growth, now)
    }

    @Test func aFarServerGetsTwiceTheConnectionsAfterEachStepThatPaid() {
        var growth = LaneGrowth()
        growth.opened(1, at: 0)
        #expect(growth.hold(at: 0) == .measuring(connections: 1))
        // One connection of 100 streams, 25 ms away: 4,000 answers a second, a turn of 100 answers.
        var now = Self.carry(&growth, answers: 200, every: 250_000, from: 0, inFlight: 100)
        #expect(growth.hold(at: now) == .measuring(connections: 1), "the first answer only begins the turns")
        now = Self.carry(&growth, answers: 1, every: 250_000, from: now, inFlight: 100)
        #expect(growth.carried.map { abs($0 - 4_000) < 1 } == true, "\(growth)")
        // Each step carries as much again per connection: 2, then 4, then 8, each step opened without a
        // measurement between its own connections.
        for step in [2, 4, 8] {
            Self.open(&growth, at: now)
            #expect(growth.target == step)
            while growth.connections < step {
                #expect(growth.hold(at: now) == nil, "below the step's \(step): opened without measuring")
                Self.open(&growth, at: now)
            }
            #expect(growth.hold(at: now) == .measuring(connections: step))
            now = Self.measure(&growth, every: 250_000 / UInt64(step), from: now, inFlight: 100 * step)
            #expect(growth.hold(at: now) == nil, "\(step) connections carry \(growth.carried ?? 0)/s")
        }
    }

    @Test func aServerThatItsCPULimitsKeepsOneConnection() {
        // 128 streams, answered at 80,000 a second whatever the connections: the server is the limit.
        let (growth, now) = Self.second(every: 12_500)
        guard case .noGain(connections: 2, let carried, let before) = growth.hold(at: now) else {
            Issue.record("a second connection that carried nothing more let a third be added: \(growth)")
            return
        }
        #expect(abs(carried - 80_000) < 1 && abs(before - 80_000) < 1)
        #expect(growth.surplus == 1, "the second connection, which carried nothing more, is closed again")
        // Half a connection's share more is the least that pays: 1.5 times one connection's for the second.
        for (every, pays) in [(8_300 as UInt64, true), (8_400, false)] {
            let (second, now) = Self.second(every: every)
            #expect((second.hold(at: now) == nil) == pays, "\(second.carried ?? 0)/s against 80,000/s")
            #expect(second.surplus == (pays ? 0 : 1))
        }
    }

    /// A stall of the machine in one turn (its answers come late) lowers that turn only: the better turn is
    /// what the connections carry, so a stall before the second connection does not make it look worth it.
    @Test func theBetterTurnCounts() {
        var growth = LaneGrowth()
        growth.opened(1, at: 0)
        var now = Self.carry(&growth, answers: 1, every: 12_500, from: 0, inFlight: 128)
        now = Self.carry(&growth, answers: 128, every: 25_000, from: now, inFlight: 128)
        now = Self.carry(&growth, answers: 128, every: 12_500, from: now, inFlight: 128)
        #expect(growth.carried.map { abs($0 - 80_000) < 1 } == true, "\(growth)")
        Self.open(&growth, at: now)
        now = Self.measure(&growth, every: 12_500, from: now, inFlight: 256)
        #expect(growth.hold(at: now) != nil)
    }

    /// A step that did not pay goes back to the connections before it and holds for its memory; then one
    /// more connection is tried, not twice as many. Each try in a row that does not pay holds twice as long,
    /// up to the longest memory; one that pays lets the steps double again.
    @Test func aStepThatDidNotPayIsClosedAndTriedAgainLessAndLessOften() {
        let (second, measured) = Self.second(every: 12_500)
        var growth = second
        var now = measured
        // The lane closes the second connection; the one left is measured again, still held back.
        growth.opened(1, at: now)
        #expect(growth.surplus == 0)
        #expect(growth.hold(at: now) == .noGain(connections: 2, carried: 80_000, before: 80_000))
        now = Self.measure(&growth, every: 12_500, from: now, inFlight: 128)
        #expect(growth.hold(at: measured + LaneGrowth.memory - 1) != nil)
        var waits: [UInt64] = []
        var tried = measured
        for _ in 0..<8 {
            now = max(now, growth.unpaid!.until)
            waits.append((now - tried) / 1_000_000_000)
            Self.open(&growth, at: now)
            #expect(growth.target == 2, "one more, not twice as many")
            #expect(growth.hold(at: now) == .measuring(connections: 2))
            now = Self.measure(&growth, every: 12_500, from: now, inFlight: 256)
            tried = now
            #expect(growth.surplus == 1)
            growth.opened(1, at: now)
            now = Self.measure(&growth, every: 12_500, from: now, inFlight: 128)
        }
        #expect(waits == [10, 20, 40, 80, 160, 320, 320, 320], "\(waits)")
        // A try that pays: the steps double from there, and the next that does not pay holds 10 s again.
        Self.open(&growth, at: growth.unpaid!.until)
        now = Self.measure(&growth, every: 6_250, from: growth.unpaid!.until, inFlight: 256)
        #expect(growth.unpaid == nil && growth.surplus == 0 && growth.hold(at: now) == nil, "\(growth)")
        Self.open(&growth, at: now)
        #expect(growth.target == 4)
        while growth.connections < 4 { Self.open(&growth, at: now) }
        now = Self.measure(&growth, every: 6_250, from: now, inFlight: 512)
        #expect(growth.surplus == 2)
        #expect(growth.unpaid.map { $0.until - now } == LaneGrowth.memory)
    }

    /// A step judged before all of its connections were made: the ones made after it are surplus too.
    @Test func aConnectionOfAStepThatDidNotPayMadeAfterTheVerdictIsSurplus() {
        var growth = LaneGrowth()
        growth.opened(2, at: 0)
        var now = Self.measure(&growth, every: 12_500, from: 0, inFlight: 256)
        Self.open(&growth, at: now)
        #expect(growth.target == 4)
        // Three of the four carry no more than two did: the step did not pay before its fourth came.
        now = Self.measure(&growth, every: 12_500, from: now, inFlight: 384)
        #expect(growth.surplus == 1)
        growth.opened(2, at: now)
        growth.opened(3, at: now)
        #expect(growth.surplus == 1, "\(growth)")
        #expect(growth.hold(at: now) != nil)
    }

    @Test func onlyAnswersWhileRequestsWaitToRequestsSentSinceTheLastChangeAreCounted() {
        var growth = LaneGrowth()
        growth.opened(1, at: 0)
        Self.measure(&growth, every: Self.ms, from: 0, inFlight: 16)
        #expect(growth.carried != nil)
        growth.growing()
        growth.opened(2, at: 100 * Self.ms)
        // Answers to requests sent before the second connection came say nothing of the two.
        for k in 1...100 {
            growth.answered(sentAt: 99 * Self.ms, at: 100 * Self.ms + UInt64(k), inFlight: 32, waiting: true)
        }
        #expect(growth.hold(at: 101 * Self.ms) == .measuring(connections: 2))
        // Nothing waiting for a stream: what they carry is what was asked, not what they can; the turns
        // begin again.
        var now = Self.carry(&growth, answers: 40, every: Self.ms, from: 101 * Self.ms, inFlight: 32)
        now = Self.carry(&growth, answers: 1, every: Self.ms, from: now, inFlight: 3, waiting: false)
        now = Self.carry(&growth, answers: 64, every: Self.ms, from: now, inFlight: 32)
        #expect(growth.hold(at: now) == .measuring(connections: 2), "the turns began again: \(growth)")
        now = Self.carry(&growth, answers: 1, every: Self.ms, from: now, inFlight: 32)
        #expect(growth.carried.map { abs($0 - 1_000) < 1 } == true, "\(growth)")
    }

    /// A connection lost below the step's count is replaced without a measurement; the step's verdict waits
    /// for its count again.
    @Test func aConnectionLostIsReplacedAtOnce() {
        var growth = LaneGrowth()
        growth.opened(1, at: 0)
        var now = Self.measure(&growth, every: 250_000, from: 0, inFlight: 100)
        Self.open(&growth, at: now)
        now = Self.measure(&growth, every: 125_000, from: now, inFlight: 200)
        Self.open(&growth, at: now)
        Self.open(&growth, at: now)
        #expect(growth.connections == 4)
        growth.opened(3, at: now)
        #expect(growth.hold(at: now) == nil)
        Self.open(&growth, at: now)
        #expect(growth.target == 4)
        #expect(growth.hold(at: now) == .measuring(connections: 4))
    }
}
