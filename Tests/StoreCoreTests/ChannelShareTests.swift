import LiveRelayCore
import StoreCore
import Testing
import Throttling

/// Alerts on an entity's shared channel: what one alert's rule decides for the channel is decided for every
/// alert of the entity and type still running there, and a deleted subscription's end is broadcast only by
/// the last alert on the channel.
@Suite struct ChannelShareTests {
    let btc = EntityKey(feed: "markets", id: "BTCUSDT")
    let eth = EntityKey(feed: "markets", id: "ETHUSDT")

    func owner(_ id: String) -> SubscriptionOwner { SubscriptionOwner(id: id, device: "iphone-\(id)", createdAt: 10) }

    func record(_ id: String, entity: EntityKey? = nil, type: String = "Alert", phase: ActivityPhase = .active)
        -> ActivityRecord
    {
        ActivityRecord(
            key: ActivityKey("alert-\(id)"), attributesType: type, phase: phase, state: ["price": 100],
            lastTimestamp: 300, entity: entity ?? btc, startedAt: 100,
            start: ActivityStart(attributes: [:], alert: nil, lateJoin: true, subscription: owner(id)))
    }

    func intent(_ id: String, _ event: PushEvent, rule: String = "moves", price: Double = 101) -> ActivityIntent {
        var intent = ActivityIntent(
            activity: ActivityKey("alert-\(id)"), attributesType: "Alert", event: event,
            patch: ["price": .double(price)],
            ruleID: rule, entity: btc)
        intent.subscription = owner(id)
        return intent
    }

    @Test func oneAlertsUpdateIsEveryRunningAlertsOnTheChannel() {
        let activities = [
            btc: [
                record("a"), record("b"), record("c", phase: .ended), record("d", type: "Other"),
                record("e", phase: .pending),
            ],
            eth: [record("f", entity: eth)],
        ]
        let copies = ChannelShare.copies(of: [[intent("a", .update)]], shared: ["Alert"], activities: activities)
        #expect(copies.count == 1)
        #expect(
            copies[0].map(\.activity) == ["alert-b", "alert-e"],
            "not the ended one, not another type's, not another entity's")
        #expect(copies[0].map(\.subscription) == [owner("b"), owner("e")], "each copy is its own alert's")
        #expect(copies[0].allSatisfy { $0.patch == ["price": 101] && $0.event == .update && $0.ruleID == "moves" })
    }

    @Test func nothingIsCopiedWhenTheTypeDoesNotShareOrTheIntentIsAStartOrADeletion() {
        let activities = [btc: [record("a"), record("b")]]
        #expect(ChannelShare.copies(of: [[intent("a", .update)]], shared: [], activities: activities) == [[]])
        #expect(ChannelShare.copies(of: [[intent("a", .start)]], shared: ["Alert"], activities: activities) == [[]])
        let deletion = intent("a", .end, rule: ReservedRuleID.subscriptionDeleted)
        #expect(ChannelShare.copies(of: [[deletion]], shared: ["Alert"], activities: activities) == [[]])
        var shared = intent("a", .update)
        shared.subscription = nil
        #expect(ChannelShare.copies(of: [[shared]], shared: ["Alert"], activities: activities) == [[]])
    }

    @Test func anAlertToldInThisLookOrAnEarlierOneIsNotToldAgain() {
        let activities = [btc: [record("a"), record("b"), record("c")]]
        // Look 1: a and b end on their own timers' looks; b's own end is in look 2.
        let copies = ChannelShare.copies(
            of: [[intent("a", .end, rule: "calm")], [intent("b", .end, rule: "calm")], [intent("c", .update)]],
            shared: ["Alert"], activities: activities)
        #expect(copies[0].map(\.activity) == ["alert-b", "alert-c"])
        #expect(copies[1].isEmpty, "b and c were told to end in the first look")
        #expect(copies[2].map(\.activity) == ["alert-a", "alert-b"], "an update is another event")
    }

    @Test func aDeletedSubscriptionsEndIsBroadcastOnlyByTheLastAlertOnTheChannel() {
        let deleted = record("a", phase: .ended)
        func last(_ others: [ActivityRecord]) -> Bool {
            ChannelShare.lastOnChannel(deleted.key, attributesType: "Alert", running: [deleted] + others)
        }
        #expect(!last([record("b")]))
        #expect(last([record("b", phase: .ended)]))
        #expect(last([record("c", type: "Other")]))
        #expect(
            ChannelShare.entities(of: [intent("a", .update), intent("b", .start)], shared: ["Alert"]) == [btc])
    }
}
