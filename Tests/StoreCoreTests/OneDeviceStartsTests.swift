import LiveRelayCore
import StoreCore
import Testing

@Suite("One-device start queries read together")
struct OneDeviceStartsTests {
    static let btc = EntityKey(feed: "markets", id: "BTCUSDT")
    static let eth = EntityKey(feed: "markets", id: "ETHUSDT")

    static func start(
        _ device: String?, _ entity: EntityKey = btc, type: String = "Alert", environment: PushEnvironment? = nil
    ) -> RegistryQuery {
        var query = RegistryQuery(
            activity: ActivityKey("a-\(device ?? "all")"), tokens: .pushToStart(entity: entity, attributesType: type),
            environment: environment)
        query.device = device
        return query
    }

    @Test func queriesAreGroupedByWhatTheyShareInTheOrderTheyCome() {
        let queries = [
            Self.start("d1"), Self.start("d1", Self.eth), Self.start("d2"), Self.start("d3", environment: .sandbox),
            Self.start("d2", Self.eth), Self.start("d4", environment: .sandbox), Self.start("d5", type: "Other"),
        ]
        let groups = OneDeviceStarts(queries).groups
        #expect(groups.map(\.group.entity) == [Self.btc, Self.eth, Self.btc])
        #expect(groups.map(\.devices) == [["d1", "d2"], ["d1", "d2"], ["d3", "d4"]])
        #expect(groups.map(\.queries) == [[0, 2], [1, 4], [3, 5]])
        #expect(groups[2].group.environment == .sandbox)
    }

    @Test func queriesThatAskForMoreOrAreAloneAreReadOneAtATime() {
        var subscribers = Self.start("d1")
        subscribers.subscribers = Self.btc
        var addresses = Self.start("d2")
        addresses.registry = "fcm"
        let updates = RegistryQuery(activity: ActivityKey("match"), tokens: .activity(ActivityKey("match")))
        let queries = [subscribers, addresses, Self.start(nil), Self.start(nil), updates, Self.start("d3")]
        #expect(OneDeviceStarts(queries).groups.isEmpty)
    }

    @Test func eachQueryGetsItsDevicesTokensAndNoOther() {
        let queries = [Self.start("d1"), Self.start("d2"), Self.start("d1"), Self.start("d9")]
        let tokens = [
            RegisteredToken(device: "d1", token: "aa01", environment: .production, channelSubscriber: false),
            RegisteredToken(device: "d2", token: "aa02", environment: .production, channelSubscriber: true),
        ]
        let answers = OneDeviceStarts.answers([0, 1, 2, 3], of: queries, tokens: tokens)
        #expect(answers[0]?.tokens == [tokens[0]])
        #expect(answers[1]?.tokens == [tokens[1]])
        #expect(answers[2]?.tokens == [tokens[0]], "a device asked twice gets its token twice")
        #expect(answers[3] == RegistryRows(), "a device with no token gets none")
    }
}
