import LiveRelayCore
import StoreCore
import Testing

/// What a late join comes to, for each phase of the entity's activities.
@Suite struct LateJoinDecisionTests {
    let match = EntityKey(feed: "espn", id: "760499")

    func record(
        _ key: String = "match-760499", phase: ActivityPhase = .active, startedAt: Int = 100, lateJoin: Bool = true,
        start: Bool = true
    ) -> ActivityRecord {
        ActivityRecord(
            key: ActivityKey(key), attributesType: "MatchAttributes", phase: phase, state: ["home": 1, "away": 0],
            lastTimestamp: 300, entity: match, startedAt: startedAt,
            start: start
                ? ActivityStart(
                    attributes: ["home": "AUS"], alert: LiveActivityAlert(title: "Kick-off"), lateJoin: lateJoin)
                : nil)
    }

    @Test func aDeviceJoiningARunningActivityGetsItsStartWithTheCurrentState() {
        let join = LateJoin(device: "iphone-b", entity: match, at: 200)
        let decisions = LateJoinDecision.decide([join], activities: [match: [record()]])
        guard case .start(let push) = decisions.first, decisions.count == 1 else {
            Issue.record("\(decisions)")
            return
        }
        #expect(push.event == .start)
        #expect(push.device == "iphone-b")
        #expect(push.activity == "match-760499")
        #expect(push.contentState == ["home": 1, "away": 0], "the state as last decided, not the start's")
        #expect(push.attributes == ["home": "AUS"], "the attributes as at the start")
        #expect(push.alert == LiveActivityAlert(title: "Kick-off"))
        #expect(push.timestamp == 300)
        #expect(push.entity == match)
        #expect(push.attributesType == "MatchAttributes")
    }

    @Test func aPendingActivityStartsTooWhenTheDeviceJoinedAfterItsStartWasDecided() {
        let join = LateJoin(device: "iphone-b", entity: match, at: 100)
        #expect(
            LateJoinDecision.decide([join], activities: [match: [record(phase: .pending)]]).count {
                if case .start = $0 { true } else { false }
            } == 1)
    }

    @Test func eachReasonForNoStartIsSaid() {
        let join = LateJoin(device: "iphone-b", entity: match, at: 200)
        func reason(_ records: [ActivityRecord], at: Int = 200) -> LateJoinDecision.Reason? {
            var j = join
            j.at = at
            guard case .skip(_, _, let reason)? = LateJoinDecision.decide([j], activities: [match: records]).first
            else { return nil }
            return reason
        }
        #expect(reason([]) == .noActivity)
        #expect(reason([record(phase: .ended)]) == .ended)
        #expect(reason([record(lateJoin: false)]) == .turnedOff)
        #expect(reason([record(start: false)]) == .startUnknown)
        #expect(reason([record()], at: 99) == .beforeStart, "the start's own targets include it")
        #expect(LateJoinDecision.decide([join], activities: [:]) == [.skip(join, activity: nil, reason: .noActivity)])
    }

    @Test func everyRunningActivityOfTheEntityIsJoinedInKeyOrder() {
        let join = LateJoin(device: "iphone-b", entity: match, at: 200)
        let decisions = LateJoinDecision.decide(
            [join], activities: [match: [record("b-match"), record("a-match", phase: .ended)]])
        #expect(decisions.count == 2)
        #expect(decisions.first == .skip(join, activity: "a-match", reason: .ended))
        guard case .start(let push)? = decisions.last else {
            Issue.record("\(decisions)")
            return
        }
        #expect(push.activity == "b-match")
    }
}
