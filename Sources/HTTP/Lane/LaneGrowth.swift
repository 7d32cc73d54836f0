/// Whether one more connection to an origin would carry more requests: a value the lane's thread keeps per
/// origin, told each change of its connections, each answer and each connection it decides to open, and
/// asked when every connection's streams are taken, and after each measurement, how many it should close.
///
/// While the streams are what holds a fan-out back (a far server), more connections carry more requests in
/// proportion. While the server is (a near server's own CPU), one more carries nothing more, and costs that
/// server more for each request (nginx on one core: 13.5 µs per request over nine connections, 10.6 µs over
/// two). So the lane grows in steps, as TCP's slow start does: it measures what its connections carry,
/// answers a second while requests wait for a stream, over ``turns`` whole turns of their streams (as many
/// answers as were in flight, at least ``minimumTurn``; the better turn counts, as a stall of the machine
/// only lowers one), then opens as many again. The next step is taken only if the last one paid: the
/// connections it added carried at least half of what each of the ones before it carried (``share``; a
/// second connection ×1.5, four after two ×1.5). The connections of a step that did not pay are closed
/// again (``surplus``), and no other is tried for a while: ``memory`` after the first such step, twice as
/// long after each next one in a row, up to ``longestMemory``, as TCP backs off its retries. After it, a
/// single one more is tried. So a long saturation of a server its CPU limits tries one more connection
/// every 320 s, and keeps none of them. A connection lost below the step's count is replaced at once.
struct LaneGrowth: Sendable {
    /// What each connection a step added must have carried for the next step, as a share of what each of the
    /// ones before it carried on average: half.
    static let share = 0.5
    /// How long no other step is tried after one that did not pay (nanoseconds), when the one before paid.
    static let memory: UInt64 = 10_000_000_000
    /// The longest it grows to, doubling with each step in a row that did not pay: 320 s.
    static let longestMemory: UInt64 = 320_000_000_000
    /// The fewest answers a turn counts.
    static let minimumTurn = 16
    /// The turns measured before what the connections carry is known.
    static let turns = 2

    /// Why the lane opens no more connections to an origin now.
    enum Hold: Equatable, Sendable {
        /// What the connections carry is still being measured (or nothing has waited for a stream since
        /// they last changed).
        case measuring(connections: Int)
        /// The last step (to `connections`) carried less than ``share`` more for each connection it added
        /// than the ones before it did: the server, not the streams, is the limit.
        case noGain(connections: Int, carried: Double, before: Double)
    }

    /// What the connections carried when a step began.
    struct Before: Sendable {
        var connections: Int
        /// Answers a second.
        var carried: Double
    }

    /// A step that did not pay: its verdict, and until when (`laneNow()` nanoseconds) no other is tried.
    struct Unpaid: Sendable {
        var verdict: Hold
        var until: UInt64
    }

    /// A measurement under way: from the first answer it counts, how many it needs; the best of the turns
    /// done, and how many.
    private struct Turn: Sendable {
        var start: UInt64
        var answers = 0
        var needed: Int
        var best = 0.0
        var done = 0
    }

    /// The connections open, and since when.
    private(set) var connections = 0
    private(set) var since: UInt64 = 0
    /// The connections of the step under way: below it, the lane opens more without measuring; above it
    /// (a step that did not pay), it closes the ones it added.
    private(set) var target = 1
    /// What they carry (answers a second), once measured.
    private(set) var carried: Double?
    /// What the connections carried when the step under way began.
    private(set) var before: Before?
    /// The last step, if it did not pay.
    private(set) var unpaid: Unpaid?
    /// How long the next step that does not pay holds the lane.
    private(set) var wait = Self.memory
    private var turn: Turn?

    /// The origin has `connections` open from `now` on: what they carry is measured anew.
    mutating func opened(_ connections: Int, at now: UInt64) {
        guard connections != self.connections else { return }
        (self.connections, since, carried, turn) = (connections, now, nil, nil)
    }

    /// The lane opens one more connection (``hold(at:)`` allowed it): at the end of a step, the next begins,
    /// twice as many if the last paid (or there was none), one more if it did not.
    mutating func growing() {
        guard connections >= target, let carried else { return }
        before = Before(connections: connections, carried: carried)
        target = unpaid == nil ? 2 * connections : connections + 1
    }

    /// What `connections` must carry for the step after `before` to have paid.
    private static func least(after before: Before, connections: Int) -> Double {
        before.carried * (1 + share * Double(connections - before.connections) / Double(before.connections))
    }

    /// Whether answers still count: what the connections open now carry is not measured yet.
    var measures: Bool { carried == nil }

    /// How many of its connections the lane should close: those of a step that did not pay.
    var surplus: Int { max(0, connections - target) }

    /// One answer at `now` to a request sent at `sentAt`, with `inFlight` requests to the origin then;
    /// `waiting` when others wait for a stream (only then do the connections carry all they can). A
    /// measurement begins with the first answer to a request sent since the connections last changed, and
    /// begins again whenever nothing waits. The measurement that ends a step judges it.
    mutating func answered(sentAt: UInt64, at now: UInt64, inFlight: Int, waiting: Bool) {
        guard measures else { return }
        guard waiting else { return turn = nil }
        guard var current = turn else {
            if sentAt >= since { turn = Turn(start: now, needed: max(Self.minimumTurn, inFlight)) }
            return
        }
        current.answers += 1
        if current.answers >= current.needed, now > current.start {
            current.best = max(current.best, Double(current.answers) * 1e9 / Double(now - current.start))
            current.done += 1
            (current.start, current.answers, current.needed) = (now, 0, max(Self.minimumTurn, inFlight))
            if current.done >= Self.turns {
                (carried, turn) = (current.best, nil)
                judge(carrying: current.best, at: now)
            } else {
                turn = current
            }
        } else {
            turn = current
        }
    }

    /// A step measured: one that paid lets the next double; one that did not goes back to the connections
    /// before it, and holds the lane for ``wait``, which doubles.
    private mutating func judge(carrying carried: Double, at now: UInt64) {
        guard let before, before.connections < connections else { return }
        guard carried < Self.least(after: before, connections: connections) else {
            (unpaid, wait) = (nil, Self.memory)
            return
        }
        unpaid = Unpaid(
            verdict: .noGain(connections: connections, carried: carried, before: before.carried), until: now &+ wait)
        wait = min(2 * wait, Self.longestMemory)
        target = before.connections
    }

    /// Whether one more connection may be added at `now`: `nil` when it may, otherwise why not.
    func hold(at now: UInt64) -> Hold? {
        guard connections >= target else { return nil }
        if let unpaid, now < unpaid.until { return unpaid.verdict }
        guard carried != nil else { return .measuring(connections: connections) }
        return nil
    }
}
