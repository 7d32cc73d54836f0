import Foundation
import LiveRelayCore
import StoreCore
import Testing

@Suite("What a round holds while it is out, and where a read ahead of it starts")
struct OutboxInFlightTests {
    static let goal = ActivityKey("match-1")
    static let other = ActivityKey("match-2")

    static func target(_ activity: ActivityKey, _ device: String, last: Bool = false, timestamp: Int = 10)
        -> OutboxEntry
    {
        FanOutProgressTests.target(activity, device, last: last, timestamp: timestamp)
    }

    static func row(_ target: String) -> OutboxEntry { FanOutProgressTests.row(target) }

    @Test func aFanOutIsReadAfterTheRoundsLastTargetOfTheSamePush() {
        let held = OutboxInFlight([Self.target(Self.goal, "a"), Self.target(Self.goal, "b")])
        #expect(held.read(fanOut: Self.goal, timestamp: 10) == .after("b"))
        #expect(held.rows.isEmpty)
    }

    @Test func aNewerPushOfTheActivityIsReadFromItsOwnCursor() {
        let held = OutboxInFlight([Self.target(Self.goal, "a")])
        #expect(held.read(fanOut: Self.goal, timestamp: 11) == .fromCursor, "a release replaced the push meanwhile")
        #expect(held.read(fanOut: Self.other, timestamp: 10) == .fromCursor, "the round holds none of it")
    }

    @Test func aFanOutWhoseLastTargetIsOutIsNotReadAtAll() {
        // Read, it would have no target left and be taken for spent while its last receipts may still fail.
        let held = OutboxInFlight([Self.target(Self.goal, "a"), Self.target(Self.goal, "b", last: true)])
        #expect(held.read(fanOut: Self.goal, timestamp: 10) == .skip)
    }

    @Test func rowsOfTheirOwnAreHeldByKeyAndEachFanOutByItsFurthestTarget() {
        let held = OutboxInFlight([
            Self.row("start-1"), Self.target(Self.goal, "a"), Self.target(Self.other, "x", timestamp: 20),
            Self.target(Self.goal, "b"), Self.row("start-2"),
        ])
        #expect(
            held.rows == [
                OutboxKey(activity: Self.goal, target: "start-1"), OutboxKey(activity: Self.goal, target: "start-2"),
            ])
        #expect(held.read(fanOut: Self.goal, timestamp: 10) == .after("b"))
        #expect(held.read(fanOut: Self.other, timestamp: 20) == .after("x"))
        #expect(!held.isEmpty)
        #expect(OutboxInFlight([]).isEmpty)
        #expect(OutboxInFlight() == OutboxInFlight([]))
    }
}
