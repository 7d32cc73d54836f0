import Delivery
import LiveRelayCore
import Testing

/// Who a push goes to in each activity mode: pure, from the registry's rows.
@Suite("Targets by activity mode")
struct ActivityModeTargetsTests {
    static let addressing = Addressing.apnsTokens(environment: nil)
    static let rows = RegistryRows(tokens: [
        RegisteredToken(device: "new", token: "aa", environment: .sandbox, channelSubscriber: true),
        RegisteredToken(device: "old", token: "bb", environment: .sandbox),
    ])

    static func push(_ event: PushEvent) -> LiveActivityPush {
        LiveActivityPush(
            activity: "match-1", attributesType: "MatchAttributes", event: event, timestamp: 10, contentState: [:],
            priority: .low, entity: EntityKey(feed: "f", id: "1"))
    }

    @Test func tokenModeIgnoresTheChannel() {
        let targets = Self.addressing.targets(for: Self.push(.update), rows: Self.rows, channel: "ch", mode: .token)
        #expect(targets.map(\.token) == ["aa", "bb"])
        #expect(targets.allSatisfy { $0.kind == .activity && $0.channel == nil })
    }

    @Test func channelModeBroadcastsOnceAndStartsEveryDeviceOnTheChannel() {
        let update = Self.addressing.targets(for: Self.push(.end), rows: Self.rows, channel: "ch", mode: .channel)
        #expect(update == [.broadcast("ch")])
        let starts = Self.addressing.targets(for: Self.push(.start), rows: Self.rows, channel: "ch", mode: .channel)
        #expect(starts.map(\.kind) == [.pushToStart, .pushToStart])
        #expect(starts.map(\.channel) == ["ch", "ch"])
    }

    @Test func bothModeSplitsSubscribersFromTheRest() {
        // Every update token is an activity that runs by tokens, whatever its device does now.
        let update = Self.addressing.targets(for: Self.push(.update), rows: Self.rows, channel: "ch", mode: .both)
        #expect(update.map(\.kind) == [.channel, .activity, .activity])
        #expect(update.map(\.token) == [nil, "aa", "bb"])
        let starts = Self.addressing.targets(for: Self.push(.start), rows: Self.rows, channel: "ch", mode: .both)
        #expect(starts.map(\.channel) == ["ch", nil])
        #expect(starts.map(\.token) == ["aa", "bb"])
    }

    @Test func withoutAChannelEveryModeGoesByTokens() {
        for mode in ActivityMode.allCases {
            let targets = Self.addressing.targets(for: Self.push(.update), rows: Self.rows, channel: nil, mode: mode)
            #expect(targets.map(\.token) == ["aa", "bb"], "\(mode)")
        }
    }

    /// A fan-out (stored once, its tokens read as it goes) plus the targets of no rows is what `targets`
    /// gives an update or end: every update token, each a plain token push, and in `both` mode the broadcast.
    @Test func theTokensOfAnUpdateOrEndFanOutBesideItsBroadcast() {
        for mode in ActivityMode.allCases {
            let all = Self.addressing.targets(for: Self.push(.update), rows: Self.rows, channel: "ch", mode: mode)
            guard Self.addressing.fansOut(Self.push(.update), deliversWithoutTargets: false, channel: "ch", mode: mode)
            else {
                #expect(mode == .channel)
                continue
            }
            let rest = Self.addressing.targets(
                for: Self.push(.update), rows: RegistryRows(), channel: "ch", mode: mode)
            let tokens = Self.rows.tokens.map {
                PushTarget(kind: .activity, token: $0.token, environment: $0.environment, device: $0.device)
            }
            #expect(all == rest + tokens, "\(mode)")
        }
    }

    @Test func onlyPlainTokenUpdatesAndEndsFanOut() {
        let a = Self.addressing
        for event in [PushEvent.update, .end] {
            #expect(a.fansOut(Self.push(event), deliversWithoutTargets: false, channel: "ch", mode: .token))
            #expect(a.fansOut(Self.push(event), deliversWithoutTargets: false, channel: nil, mode: .both))
            #expect(a.fansOut(Self.push(event), deliversWithoutTargets: false, channel: "ch", mode: .both))
            #expect(a.fansOut(Self.push(event), deliversWithoutTargets: false, channel: nil, mode: .channel))
            #expect(!a.fansOut(Self.push(event), deliversWithoutTargets: false, channel: "ch", mode: .channel))
            #expect(!a.fansOut(Self.push(event), deliversWithoutTargets: true, channel: nil, mode: .token))
        }
        #expect(!a.fansOut(Self.push(.start), deliversWithoutTargets: false, channel: nil, mode: .token))
        #expect(
            !Addressing.apnsTokensWithAddress(registry: "fcm").fansOut(
                Self.push(.update), deliversWithoutTargets: false, channel: nil, mode: .token))
        #expect(
            !Addressing.deviceAddresses(registry: "getui").fansOut(
                Self.push(.update), deliversWithoutTargets: false, channel: nil, mode: .token))
    }

    @Test func otherAddressingsNeverBroadcast() {
        let fcm = Addressing.apnsTokensWithAddress(registry: "fcm")
        #expect(fcm.targets(for: Self.push(.update), rows: Self.rows, channel: "ch", mode: .channel).isEmpty)
    }
}

extension ActivityModeTargetsTests {
    /// A late joiner's start (a start with a device) goes to that device alone, on the activity's channel
    /// as the device subscribes; never to a segment or the console's placeholder; and its registry read asks
    /// for that device only.
    @Test func aLateJoinersStartGoesToItsDeviceAlone() {
        var late = Self.push(.start)
        late.device = "new"
        #expect(Self.addressing.query(for: late).device == "new")
        #expect(Self.addressing.query(for: Self.push(.start)).device == nil)
        let both = Self.addressing.targets(for: late, rows: Self.rows, channel: "ch", mode: .both)
        #expect(both.map(\.token) == ["aa"])
        #expect(both.map(\.channel) == ["ch"])
        late.device = "old"
        let token = Self.addressing.targets(for: late, rows: Self.rows, channel: "ch", mode: .both)
        #expect(token.map(\.token) == ["bb"])
        #expect(token.map(\.channel) == [nil])
        late.device = "unknown"
        #expect(Self.addressing.targets(for: late, rows: Self.rows, deliversWithoutTargets: true).isEmpty)
        let segment = Addressing.activityAddress(registry: "pushwoosh", startsToSegment: true)
        late.device = "new"
        #expect(segment.targets(for: late, rows: RegistryRows()).isEmpty)
    }
}
