import LiveRelayCore
import Testing
import Throttling

@Suite struct SupersessionTests {
    static func push(_ event: PushEvent, at t: Int, score: Int, alert: String? = nil) -> LiveActivityPush {
        LiveActivityPush(
            activity: "match-1", attributesType: "MatchAttributes", event: event, timestamp: t,
            contentState: ["homeScore": .int(score)], attributes: event == .start ? ["home": "AUS"] : nil,
            alert: alert.map { LiveActivityAlert(title: $0) }, relevanceScore: RelevanceScore(Double(score * 10)),
            staleDate: t + 900, priority: event == .update ? .low : .high, ruleIDs: [event.rawValue])
    }

    /// A start still waiting when an update is released carries the update's state: the device starts the
    /// activity as it is now, with the start's attributes and alert.
    @Test func aWaitingStartCarriesTheNewerState() {
        let start = Self.push(.start, at: 100, score: 0, alert: "Kick-off")
        let update = Self.push(.update, at: 200, score: 2)
        guard case .rewrite(let rewritten) = Supersession.decide(waiting: start, released: update) else {
            Issue.record("expected a rewrite")
            return
        }
        #expect(rewritten.event == .start)
        #expect(rewritten.timestamp == 200)
        #expect(rewritten.contentState == ["homeScore": 2])
        #expect(rewritten.staleDate == 1100)
        #expect(rewritten.attributes == ["home": "AUS"])
        #expect(rewritten.alert?.title == "Kick-off")
        #expect(rewritten.priority == .high)
        #expect(rewritten.relevanceScore == RelevanceScore(20))
        #expect(rewritten.ruleIDs == ["start", "update"])
    }

    @Test func anEndDropsAWaitingStartAndEveryOlderPush() {
        let end = Self.push(.end, at: 300, score: 3)
        #expect(Supersession.decide(waiting: Self.push(.start, at: 100, score: 0), released: end) == .drop)
        #expect(Supersession.decide(waiting: Self.push(.update, at: 200, score: 2), released: end) == .drop)
        #expect(
            Supersession.decide(
                waiting: Self.push(.update, at: 100, score: 1), released: Self.push(.update, at: 200, score: 2))
                == .drop)
    }

    @Test func aPushThatIsNotOlderOrOfAnotherActivityIsKept() {
        let update = Self.push(.update, at: 200, score: 2)
        #expect(Supersession.decide(waiting: Self.push(.update, at: 200, score: 2), released: update) == .keep)
        #expect(Supersession.decide(waiting: Self.push(.end, at: 300, score: 3), released: update) == .keep)
        var other = Self.push(.start, at: 100, score: 0)
        other.activity = "match-2"
        #expect(Supersession.decide(waiting: other, released: update) == .keep)
    }
}
