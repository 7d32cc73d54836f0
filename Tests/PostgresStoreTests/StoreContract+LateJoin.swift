import Foundation
import LiveRelayCore
import Store
import Testing

/// Late joins and what a late joiner's start reads: the same on both stores.
extension StoreContract {
    static let lateJoinChecks: [StoreCheck] = [
        StoreCheck(name: "a new subscription is a late join until it is finished; a repeated one is not") { store in
            try await store.subscribe(device: "b", to: match, now: 40)
            try await store.subscribe(device: "a", to: match, now: 50)
            try await store.subscribe(device: "a", to: match, now: 60)
            #expect(
                try await store.lateJoins(limit: 10) == [
                    LateJoin(device: "b", entity: match, at: 40), LateJoin(device: "a", entity: match, at: 50),
                ], "in the order they came, the first time")
            #expect(try await store.lateJoins(limit: 1).map(\.device) == ["b"])
            try await store.finishLateJoins([LateJoin(device: "b", entity: match, at: 40)])
            #expect(try await store.lateJoins(limit: 10).map(\.device) == ["a"])
            try await store.unsubscribe(device: "a", from: match)
            #expect(try await store.lateJoins(limit: 10).isEmpty, "a subscription gone takes its join with it")
        },
        StoreCheck(name: "a new push-to-start token is a late join to every entity its device follows") { store in
            let other = EntityKey(feed: "espn", id: "1")
            try await store.subscribe(device: "a", to: match, now: 10)
            try await store.subscribe(device: "a", to: other, now: 10)
            try await store.finishLateJoins(try await store.lateJoins(limit: 10))
            try await store.registerPushToStartToken(
                device: "a", attributesType: "MatchAttributes", token: "AB01", environment: .production, now: 70)
            #expect(
                Set(try await store.lateJoins(limit: 10)) == [
                    LateJoin(device: "a", entity: match, at: 70), LateJoin(device: "a", entity: other, at: 70),
                ])
            try await store.finishLateJoins(try await store.lateJoins(limit: 10))
            try await store.registerPushToStartToken(
                device: "a", attributesType: "MatchAttributes", token: "ab01", environment: .production, now: 80)
            #expect(try await store.lateJoins(limit: 10).isEmpty, "the same token again is no join")
            try await store.subscribe(device: "c", to: match, now: 85)
            try await store.registerPushToStartToken(
                device: "c", attributesType: "MatchAttributes", token: "ab02", environment: .production, now: 90)
            #expect(
                try await store.lateJoins(limit: 10) == [LateJoin(device: "c", entity: match, at: 90)],
                "a join not yet looked at takes the later time")
        },
        StoreCheck(name: "activities by entity keep what their start carried; the running ones are read alone") {
            store in
            var started = record()
            started.start = ActivityStart(
                attributes: .object(["home": .string("AUS")]),
                alert: LiveActivityAlert(title: "Kick-off", body: "AUS v EGY"), lateJoin: true)
            var elsewhere = record(ActivityKey("match:1"))
            elsewhere.entity = EntityKey(feed: "espn", id: "1")
            try await store.save([started, elsewhere, record(ActivityKey("match:760499:b"), phase: .ended)])
            let found = try await store.activities(of: [match, EntityKey(feed: "other", id: "x")])
            #expect(found[match]?.map(\.key) == [key, ActivityKey("match:760499:b")])
            #expect(found[match]?.first == started)
            #expect(found[match]?.last?.start == nil)
            #expect(found[EntityKey(feed: "other", id: "x")] ?? [] == [])
            #expect(try await store.activities([key])[key]?.start == started.start)
            // Those still running alone: not the ended one.
            let running = try await store.runningActivities(of: [match, EntityKey(feed: "other", id: "x")])
            #expect(running[match]?.map(\.key) == [key])
            #expect(running[match]?.first == started)
            #expect(running[EntityKey(feed: "other", id: "x")] ?? [] == [])
        },
        StoreCheck(name: "a registry read for one device finds that device's push-to-start token alone") { store in
            for (device, token) in [("a", "aa01"), ("b", "aa02")] {
                try await store.subscribe(device: device, to: match, now: 1)
                try await store.registerPushToStartToken(
                    device: device, attributesType: "MatchAttributes", token: token, environment: .production, now: 1)
            }
            var query = RegistryQuery(
                activity: key, tokens: .pushToStart(entity: match, attributesType: "MatchAttributes"),
                subscribers: match)
            #expect(try await store.registryRows(query).tokens.map(\.device) == ["a", "b"])
            query.device = "b"
            let rows = try await store.registryRows(query)
            #expect(rows.tokens.map(\.token) == ["aa02"])
            #expect(rows.subscribers == ["b"])
        },
        StoreCheck(name: "one-device registry reads asked together answer each as it would alone") { store in
            // a and b follow the match, e through a subscription of its own; c follows with no token; d has a
            // token and follows nothing.
            for (device, token) in [("a", "aa01"), ("b", "aa02"), ("d", "aa04"), ("e", "aa05")] {
                try await store.registerPushToStartToken(
                    device: device, attributesType: "MatchAttributes", token: token, environment: .production, now: 1)
            }
            for device in ["a", "b", "c"] { try await store.subscribe(device: device, to: match, now: 1) }
            _ = try await store.importSubscriptions(
                [Subscription(id: "own-e", device: "e", entity: match, parameters: .emptyObject, createdAt: 1)], now: 1)
            func start(_ device: String, type: String = "MatchAttributes", environment: PushEnvironment? = nil)
                -> RegistryQuery
            {
                var query = RegistryQuery(
                    activity: key, tokens: .pushToStart(entity: match, attributesType: type), environment: environment)
                query.device = device
                return query
            }
            let queries = [
                start("a"), start("b"), start("c"), start("d"), start("e"), start("a"), start("b", type: "Other"),
                start("b", environment: .sandbox), start("b", environment: .production),
            ]
            let together = try await store.registryRows(queries)
            var alone: [RegistryRows] = []
            for query in queries { alone.append(try await store.registryRows(query)) }
            #expect(together == alone)
            #expect(
                together.map { $0.tokens.map(\.token) } == [
                    ["aa01"], ["aa02"], [], [], ["aa05"], ["aa01"], [], [], ["aa02"],
                ])
        },
    ]
}
