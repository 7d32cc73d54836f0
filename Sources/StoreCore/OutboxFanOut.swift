public import Foundation
public import LiveRelayCore

/// One push to every update token of its activity, stored once: what the throttle released for a goal to a
/// million devices is one row holding the push and a cursor over the activity's tokens (in device order),
/// not a million rows each holding a copy. Delivery reads the next targets after the cursor in batches; a
/// target that fails for now becomes an ordinary outbox row with its own retries, and the cursor moves on.
///
/// A newer push of the same activity replaces a fan-out with its cursor back at the start (every device
/// gets the newer state; none gets the older one after it), as a newer push replaces a waiting row.
public struct OutboxFanOut: Sendable, Hashable {
    /// The activity whose update tokens it goes to.
    public var activity: ActivityKey
    /// The push, as JSON (encoded once).
    public var push: Data
    /// The push's timestamp: a fan-out is only ever replaced by a newer push.
    public var timestamp: Int
    /// The provider it was released to.
    public var provider: String
    /// Only tokens of this APNs environment; `nil` takes every token.
    public var environment: PushEnvironment?
    /// UNIX seconds from which it goes.
    public var nextAttempt: Int

    /// A fan-out.
    public init(
        activity: ActivityKey, push: Data, timestamp: Int, provider: String, environment: PushEnvironment?,
        nextAttempt: Int
    ) {
        self.activity = activity
        self.push = push
        self.timestamp = timestamp
        self.provider = provider
        self.environment = environment
        self.nextAttempt = nextAttempt
    }
}

/// Where a target read from a fan-out stands in it.
public struct FanOutMark: Sendable, Hashable {
    /// The target's device: the cursor moves past it once its receipt is written.
    public var position: String
    /// True for the fan-out's last target: once the cursor passes it, the fan-out is done.
    public var last: Bool

    /// A mark.
    public init(position: String, last: Bool) {
        self.position = position
        self.last = last
    }
}

/// A fan-out's cursor to write: every target up to `position` (in device order) has its receipt written.
public struct FanOutCursor: Sendable, Hashable {
    public var activity: ActivityKey
    /// The timestamp of the push the targets carried: a fan-out a newer push replaced meanwhile is left alone.
    public var timestamp: Int
    public var position: String
    /// The fan-out's last target is passed: it leaves the outbox.
    public var finished: Bool

    /// A cursor.
    public init(activity: ActivityKey, timestamp: Int, position: String, finished: Bool) {
        self.activity = activity
        self.timestamp = timestamp
        self.position = position
        self.finished = finished
    }
}

/// How far each fan-out of a delivery round may move its cursor as receipts are written, in any order: only
/// past the targets whose receipts are all written, so a crash resends what had no written receipt and
/// never skips one (it resends at most the requests in flight and those answered after the first one that
/// was not). Pure; one value per round, fed each write's targets.
public struct FanOutProgress: Sendable {
    private struct Lane {
        var timestamp: Int
        /// The round's targets of this fan-out, in cursor order: (index in the round, mark).
        var targets: [(index: Int, mark: FanOutMark)]
        /// How many of `targets` the cursor has passed.
        var passed = 0
    }

    private var lanes: [ActivityKey: Lane] = [:]
    /// By index in the round: whether its receipt is written.
    private var written: [Bool] = []

    /// The progress of the fan-out targets among a round's `rows`, in the order the store read them (its
    /// cursor's order; rows without a mark are not followed).
    public init(_ rows: [OutboxEntry]) {
        // A fan-out's targets come one after another: they gather in `run` and join their lane at its end.
        var run: (activity: ActivityKey, timestamp: Int, targets: [(index: Int, mark: FanOutMark)])?
        func close() {
            guard let run else { return }
            lanes[run.activity, default: Lane(timestamp: run.timestamp, targets: [])].targets += run.targets
        }
        // By index, not by element: reading a row whole would copy every one of its fields.
        for index in rows.indices {
            guard let mark = rows[index].fanOut else { continue }
            if run?.activity != rows[index].key.activity {
                close()
                run = (rows[index].key.activity, rows[index].timestamp, [])
            }
            run!.targets.append((index, mark))
        }
        close()
        if !lanes.isEmpty { written = Array(repeating: false, count: rows.count) }
    }

    /// True when no row of the round is a fan-out's target.
    public var isEmpty: Bool { lanes.isEmpty }

    /// Notes the receipts written for these rows (indices into the round); returns the cursors that moved,
    /// one per fan-out, to write with those receipts.
    public mutating func written(_ indices: some Sequence<Int>) -> [FanOutCursor] {
        guard !lanes.isEmpty else { return [] }
        for index in indices where written.indices.contains(index) { written[index] = true }
        var moved: [FanOutCursor] = []
        for key in lanes.keys.sorted() {
            var lane = lanes[key]!
            let before = lane.passed
            while lane.passed < lane.targets.count, written[lane.targets[lane.passed].index] {
                lane.passed += 1
            }
            guard lane.passed > before else { continue }
            let mark = lane.targets[lane.passed - 1].mark
            lanes[key] = lane
            moved.append(
                FanOutCursor(activity: key, timestamp: lane.timestamp, position: mark.position, finished: mark.last))
        }
        return moved
    }
}
