public import LiveRelayCore

/// What a delivery round holds while it is out: the rows it read and, for each fan-out, how far it read.
/// A read of the next round made meanwhile (``OutboxStore/dueOutbox(now:limit:after:)``) skips these rows
/// and reads each of these fan-outs after the round's last target, so the next round is ready the moment
/// this one's receipts are written, and never sends a target this one holds. Pure; one value per round.
public struct OutboxInFlight: Sendable, Equatable {
    /// The rows of their own the round holds.
    public private(set) var rows: Set<OutboxKey> = []
    /// By activity: the fan-out whose targets the round holds (its push's timestamp), the last target's
    /// position, and whether that is the fan-out's last target.
    public private(set) var fanOuts: [ActivityKey: Held] = [:]

    /// How far a round read one fan-out.
    public struct Held: Sendable, Equatable {
        public var timestamp: Int
        public var position: String
        public var last: Bool
    }

    /// Where a read ahead starts one fan-out.
    public enum Read: Sendable, Equatable {
        /// After the stored cursor: the round holds none of this push's targets.
        case fromCursor
        /// After this position: the round holds the targets up to it. The stored cursor is never past it
        /// (it moves only over the round's written receipts). Finding no target after it does not make the
        /// fan-out spent: the round's receipts are still to be written.
        case after(String)
        /// Not at all: the round holds the fan-out's last target. Its receipts decide whether it is done; a
        /// read ahead must not take it for spent and remove it while they may still fail.
        case skip
    }

    /// Nothing in flight.
    public init() {}

    /// What `due` (a round as the store read it: each fan-out's targets in cursor order) holds.
    public init(_ due: [OutboxEntry]) {
        for index in due.indices {
            guard let mark = due[index].fanOut else {
                rows.insert(due[index].key)
                continue
            }
            // Targets come in cursor order, one fan-out's after another: the last one read of a run is the
            // furthest (only it is looked up, not each of a goal's ten thousand).
            let next = due.index(after: index)
            if next < due.endIndex, due[next].fanOut != nil, due[next].key.activity == due[index].key.activity {
                continue
            }
            fanOuts[due[index].key.activity] = Held(
                timestamp: due[index].timestamp, position: mark.position, last: mark.last)
        }
    }

    /// Where a read ahead starts the fan-out of `activity` whose stored push has `timestamp`: a newer push
    /// that replaced the one in flight starts over at its own cursor, as any read would.
    public func read(fanOut activity: ActivityKey, timestamp: Int) -> Read {
        guard let held = fanOuts[activity], held.timestamp == timestamp else { return .fromCursor }
        return held.last ? .skip : .after(held.position)
    }
}
