import Foundation
import LiveRelayCore
import StoreCore
import Testing

@Suite("What a round holds while it is out, and where a read ahead of it starts")
struct OutboxInFlightTests {
    /// The rows and targets of the cursor's tests.
    typealias Rows = FanOutProgressTests

    @Test func aFanOutIsReadAfterTheRoundsLastTargetOfTheSamePush() {
        let held = OutboxInFlight([Rows.target(Rows.goal, "a"), Rows.target(Rows.goal, "b")])
        #expect(held.read(fanOut: Rows.goal, timestamp: 10) == .after("b"))
        #expect(held.rows.isEmpty)
    }

    @Test func aNewerPushOfTheActivityIsReadFromItsOwnCursor() {
        let held = OutboxInFlight([Rows.target(Rows.goal, "a")])
        #expect(held.read(fanOut: Rows.goal, timestamp: 11) == .fromCursor, "a release replaced the push meanwhile")
        #expect(held.read(fanOut: Rows.other, timestamp: 10) == .fromCursor, "the round holds none of it")
    }

    @Test func aFanOutWhoseLastTargetIsOutIsNotReadAtAll() {
        // Read, it would have no target left and be taken for spent while its last receipts may still fail.
        let held = OutboxInFlight([Rows.target(Rows.goal, "a"), Rows.target(Rows.goal, "b", last: true)])
        #expect(held.read(fanOut: Rows.goal, timestamp: 10) == .skip)
    }

    @Test func rowsOfTheirOwnAreHeldByKeyAndEachFanOutByItsFurthestTarget() {
        let held = OutboxInFlight([
            Rows.row("start-1"), Rows.target(Rows.goal, "a"), Rows.target(Rows.other, "x", timestamp: 20),
            Rows.target(Rows.goal, "b"), Rows.row("start-2"),
        ])
        #expect(
            held.rows == [
                OutboxKey(activity: Rows.goal, target: "start-1"), OutboxKey(activity: Rows.goal, target: "start-2"),
            ])
        #expect(held.read(fanOut: Rows.goal, timestamp: 10) == .after("b"))
        #expect(held.read(fanOut: Rows.other, timestamp: 20) == .after("x"))
        #expect(OutboxInFlight() == OutboxInFlight([]))
    }
}
