import LiveRelayCore
import StoreCore
import Testing

@Suite struct SubscriptionPutTests {
    let btc = EntityKey(feed: "markets", id: "BTCUSDT")

    func subscription(device: String = "iphone-1", entity: EntityKey? = nil, above: Double = 190) -> Subscription {
        Subscription(
            id: "sub-1", device: device, entity: entity ?? btc, parameters: ["above": .double(above)], createdAt: 100)
    }

    @Test func aFreeIdIsInserted() {
        let put = SubscriptionPut.decide(subscription(), existing: nil)
        #expect(put == .insert)
        #expect(put.outcome == .created)
    }

    @Test func newParametersAreAnUpdate() {
        let put = SubscriptionPut.decide(subscription(above: 200), existing: subscription())
        #expect(put == .update)
        #expect(put.outcome == .changed)
    }

    @Test func theSameParametersAgainWriteNothingButSayChanged() {
        let put = SubscriptionPut.decide(subscription(), existing: subscription())
        #expect(put == .unchanged)
        #expect(put.outcome == .changed)
    }

    @Test func anotherDevicesIdIsAConflictNamingWhatIsThere() {
        let existing = subscription(device: "iphone-2")
        #expect(SubscriptionPut.decide(subscription(), existing: existing) == .conflict(existing))
    }

    @Test func anotherEntitysIdIsAConflict() {
        let existing = subscription(entity: EntityKey(feed: "markets", id: "ETHUSDT"))
        #expect(SubscriptionPut.decide(subscription(), existing: existing).outcome == .conflict(existing))
    }
}
