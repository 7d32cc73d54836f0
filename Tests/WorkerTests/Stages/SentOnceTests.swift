import LiveRelayCore
import StoreCore
import Testing

@testable import Worker

/// A round's receipts come in many writes (a fan-out's in hundreds): each push is recorded as sent once per
/// round, in the first write that has one of its targets delivered.
struct SentOnceTests {
    static let goal = SentPush(activity: ActivityKey("match-1"), timestamp: 10, state: .object(["home": .int(1)]))
    static let later = SentPush(activity: ActivityKey("match-1"), timestamp: 12, state: .object(["home": .int(2)]))
    static let other = SentPush(activity: ActivityKey("match-2"), timestamp: 10, state: .object(["home": .int(0)]))

    @Test func aPushIsRecordedAsSentInTheFirstWriteOfTheRoundThatHasIt() {
        let round = SentOnce()
        #expect(round.firstTime([]).isEmpty)
        #expect(round.firstTime([Self.goal]) == [Self.goal])
        // Later writes of the same push record nothing more; another push's first, or a newer push of the
        // same activity, does.
        #expect(round.firstTime([Self.goal]).isEmpty)
        #expect(round.firstTime([Self.goal, Self.other, Self.later]) == [Self.other, Self.later])
        // Each round starts again.
        #expect(SentOnce().firstTime([Self.goal]) == [Self.goal])
    }
}
