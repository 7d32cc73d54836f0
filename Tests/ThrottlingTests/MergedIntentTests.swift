import LiveRelayCore
import Testing

@testable import Throttling

/// An activity named by one intent is merged without the fold (``MergedIntent/init(_:)-(ActivityIntent)``);
/// an activity named by several is folded in the rules' order, however the intents of different activities
/// interleave.
@Suite struct MergedIntentTests {
    let entity = EntityKey(feed: "markets", id: "BTCUSDT")

    /// Every field of one intent, as the fold of that intent alone has it.
    @Test(arguments: [PushEvent.start, .update, .end], [false, true])
    func oneIntentIsItsOwnFold(event: PushEvent, lateJoin: Bool) {
        var intent = ActivityIntent(
            activity: "my-alert-s1-0", attributesType: "PersonalAlertAttributes", event: event,
            patch: ["price": 100_120.5, "nested": ["a": 1, "gone": .null]],
            attributes: event == .start ? ["level": 100_000] : nil,
            alert: LiveActivityAlert(title: "BTCUSDT rose past your 100,000.00"), relevance: RelevanceScore(100),
            priority: .high, whenBudgetSpent: .hold, staleAfter: 600, dismissalAfter: 900, ruleID: "my-crosses-above",
            entity: entity, facts: ["price": 100_120.5], timer: event == .end, lateJoin: lateJoin)
        intent.subscription = SubscriptionOwner(id: "s1", device: "iphone-1", createdAt: 1_795_528_000)
        #expect(MergedIntent(intent) == MergedIntent([intent]))
        var bare = ActivityIntent(
            activity: "match-1", attributesType: "MatchAttributes", event: event, ruleID: "r", entity: entity,
            lateJoin: lateJoin)
        bare.alert = nil
        #expect(MergedIntent(bare) == MergedIntent([bare]))
    }

    /// Intents of three activities, interleaved: one decision per activity in key order, each activity's
    /// patches applied in the order its rules came.
    @Test func interleavedActivitiesFoldInTheirRulesOrder() {
        func intent(_ activity: ActivityKey, _ rule: String, _ patch: [String: JSONValue]) -> ActivityIntent {
            ActivityIntent(
                activity: activity, attributesType: "MatchAttributes", event: .start, patch: patch, ruleID: rule,
                entity: entity)
        }
        let intents = [
            intent("c", "c1", ["x": 1]), intent("a", "a1", ["x": 1, "y": 1]), intent("c", "c2", ["x": 2]),
            intent("b", "b1", ["x": 1]), intent("a", "a2", ["x": 2]), intent("a", "a3", ["y": 3]),
        ]
        var records: [ActivityKey: ActivityRecord] = [:]
        let decisions = ActivityLedger().apply(intents, to: &records, now: 100)
        let pushes = decisions.compactMap { if case .push(let p) = $0 { p.push } else { nil } }
        #expect(pushes.map(\.activity) == ["a", "b", "c"])
        #expect(pushes.map(\.ruleIDs) == [["a1", "a2", "a3"], ["b1"], ["c1", "c2"]])
        #expect(pushes.map(\.contentState) == [["x": 2, "y": 3], ["x": 1], ["x": 2]])
        #expect(records.keys.sorted() == ["a", "b", "c"])
    }
}
