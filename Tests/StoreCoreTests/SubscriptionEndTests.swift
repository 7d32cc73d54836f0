import LiveRelayCore
import StoreCore
import Testing
import Throttling

/// A deleted subscription ends the activities it owned, for its device, and no other; the ledger starts a
/// subscription's activity on its device alone; a late joiner never joins another subscription's activity.
@Suite struct SubscriptionEndTests {
    let aapl = EntityKey(feed: "prices", id: "AAPL")

    func owner(_ id: String, created: Int = 10) -> SubscriptionOwner {
        SubscriptionOwner(id: id, device: "iphone-\(id)", createdAt: created)
    }

    func record(_ key: String, owner: SubscriptionOwner?, phase: ActivityPhase = .active) -> ActivityRecord {
        ActivityRecord(
            key: ActivityKey(key), attributesType: "PriceAlert", phase: phase, state: ["price": 190],
            lastTimestamp: 300, entity: aapl, startedAt: 100,
            start: ActivityStart(attributes: ["level": 190], alert: nil, lateJoin: true, subscription: owner))
    }

    @Test func aDeletionEndsOnlyTheRunningActivitiesItOwned() throws {
        let activities = [
            aapl: [
                record("alert-a", owner: owner("a")), record("alert-a-old", owner: owner("a", created: 5)),
                record("alert-b", owner: owner("b")), record("shared", owner: nil),
                record("alert-a-ended", owner: owner("a"), phase: .ended),
            ]
        ]
        let deleted = [
            DeletedSubscription(owner: owner("a"), entity: aapl, at: 400),
            DeletedSubscription(owner: owner("z"), entity: aapl, at: 400),
        ]
        let result = SubscriptionEnd.intents(for: deleted, activities: activities)
        #expect(result.map(\.deleted) == deleted)
        let ends = try #require(result.first?.ends)
        #expect(ends.map(\.activity) == ["alert-a"], "not the one of the same id created before, nor the ended one")
        #expect(ends.first?.event == .end)
        #expect(ends.first?.dismissalAfter == 0, "taken away, not finished: dismissed at once")
        #expect(ends.first?.subscription == owner("a"))
        #expect(ends.first?.ruleID == SubscriptionEnd.ruleID)
        #expect(result.last?.ends.isEmpty == true, "a subscription that owned nothing ends nothing")
    }

    @Test func theLedgerStartsASubscriptionsActivityOnItsDeviceAlone() {
        var records: [ActivityKey: ActivityRecord] = [:]
        var start = ActivityIntent(
            activity: "alert-a", attributesType: "PriceAlert", event: .start, patch: ["price": 190.4],
            attributes: ["level": 190], alert: LiveActivityAlert(title: "Above 190"), ruleID: "crosses", entity: aapl)
        start.subscription = owner("a")
        let decisions = ActivityLedger().apply([start], to: &records, now: 200)
        guard case .push(let pending) = decisions.first else {
            Issue.record("\(decisions)")
            return
        }
        #expect(pending.push.device == "iphone-a")
        #expect(records["alert-a"]?.start?.subscription == owner("a"))
        var update = ActivityIntent(
            activity: "alert-a", attributesType: "PriceAlert", event: .update, patch: ["price": 191], ruleID: "moves",
            entity: aapl)
        update.subscription = owner("a")
        guard case .push(let next) = ActivityLedger().apply([update], to: &records, now: 260).first else {
            Issue.record("no update")
            return
        }
        #expect(next.push.device == nil, "an update goes to the activity's update tokens (its device's alone)")
        #expect(records["alert-a"]?.start?.subscription == owner("a"), "kept from the start")
    }

    @Test func aLateJoinerNeverJoinsASubscriptionsActivity() {
        let join = LateJoin(device: "iphone-x", entity: aapl, at: 200)
        let decisions = LateJoinDecision.decide([join], activities: [aapl: [record("alert-a", owner: owner("a"))]])
        #expect(decisions == [.skip(join, activity: "alert-a", reason: .personal)])
    }
}
