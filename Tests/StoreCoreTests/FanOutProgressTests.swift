import Foundation
import LiveRelayCore
import StoreCore
import Testing

@Suite("How far a fan-out's cursor moves as receipts are written")
struct FanOutProgressTests {
    static let goal = ActivityKey("match-1")
    static let other = ActivityKey("match-2")

    static func target(_ activity: ActivityKey, _ device: String, last: Bool = false, timestamp: Int = 10)
        -> OutboxEntry
    {
        OutboxEntry(
            key: OutboxKey(activity: activity, target: "tok-" + device), kind: "activity", device: device,
            environment: "production", push: Data("{}".utf8), timestamp: timestamp, nextAttempt: 0,
            fanOut: FanOutMark(position: device, last: last))
    }

    static func row(_ target: String) -> OutboxEntry {
        OutboxEntry(
            key: OutboxKey(activity: goal, target: target), kind: "push-to-start", device: nil, environment: nil,
            push: Data("{}".utf8), timestamp: 9, nextAttempt: 0)
    }

    @Test func theCursorPassesOnlyTargetsWhoseReceiptsAreAllWritten() {
        var progress = FanOutProgress([
            Self.target(Self.goal, "a"), Self.target(Self.goal, "b"), Self.target(Self.goal, "c"),
        ])
        #expect(progress.written([1]).isEmpty, "b answered before a: the cursor cannot pass a")
        #expect(
            progress.written([0])
                == [FanOutCursor(activity: Self.goal, timestamp: 10, position: "b", finished: false)])
        #expect(progress.written([1]).isEmpty, "written twice moves nothing")
        #expect(
            progress.written([2])
                == [FanOutCursor(activity: Self.goal, timestamp: 10, position: "c", finished: false)])
    }

    @Test func passingTheLastTargetFinishesTheFanOut() {
        var progress = FanOutProgress([Self.target(Self.goal, "a"), Self.target(Self.goal, "b", last: true)])
        #expect(
            progress.written([1, 0])
                == [FanOutCursor(activity: Self.goal, timestamp: 10, position: "b", finished: true)])
    }

    @Test func eachFanOutMovesOnItsOwnAndRowsAreNotFollowed() {
        var progress = FanOutProgress([
            Self.row("start-1"), Self.target(Self.goal, "a"), Self.target(Self.other, "x", timestamp: 20),
            Self.target(Self.goal, "b"),
        ])
        #expect(!progress.isEmpty)
        #expect(progress.written([0]).isEmpty, "a row of its own moves no cursor")
        #expect(
            progress.written([2, 3])
                == [FanOutCursor(activity: Self.other, timestamp: 20, position: "x", finished: false)])
        #expect(
            progress.written([1])
                == [FanOutCursor(activity: Self.goal, timestamp: 10, position: "b", finished: false)])
        #expect(FanOutProgress([Self.row("start-1")]).isEmpty)
    }

    @Test func theOrderIsTheStoresNotTheDevicesNames() {
        // The store reads in its collation; the progress keeps the order it was given.
        var progress = FanOutProgress([Self.target(Self.goal, "Z"), Self.target(Self.goal, "a")])
        #expect(progress.written([0]).map(\.position) == ["Z"])
    }
}
