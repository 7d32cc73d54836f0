import StoreCore
import Testing

@Suite struct PushToStartRotationTests {
    @Test func aDroppedTokenWritesNothing() {
        let effects = PushToStartRotation.decide(token: "ab", previous: "cd", dropped: true)
        #expect(effects == .init(stores: false, lateJoins: false, movesWaitingStartsFrom: nil))
    }

    @Test func aFirstTokenIsALateJoinAndMovesNothing() {
        let effects = PushToStartRotation.decide(token: "ab", previous: nil, dropped: false)
        #expect(effects == .init(stores: true, lateJoins: true, movesWaitingStartsFrom: nil))
    }

    @Test func theSameTokenAgainIsWrittenButNoLateJoin() {
        let effects = PushToStartRotation.decide(token: "ab", previous: "ab", dropped: false)
        #expect(effects == .init(stores: true, lateJoins: false, movesWaitingStartsFrom: nil))
    }

    @Test func aRotationMovesTheWaitingStartsAndIsALateJoin() {
        let effects = PushToStartRotation.decide(token: "ef", previous: "ab", dropped: false)
        #expect(effects == .init(stores: true, lateJoins: true, movesWaitingStartsFrom: "ab"))
    }

    @Test func theSameTokenInUpperCaseIsTheSameTokenOnceNormalized() {
        let token = ActivityTokenAdmission.normalized("AB")
        #expect(PushToStartRotation.decide(token: token, previous: "ab", dropped: false).movesWaitingStartsFrom == nil)
    }
}
