import Foundation
import LiveRelayCore
import Store
import Testing

/// The outbox's rows and the token registry they are sent to: the same on both stores.
extension StoreContract {
    static let outboxChecks: [StoreCheck] = [
        StoreCheck(name: "outbox: newer replaces a waiting older, never the reverse; due rows in release order") {
            store in
            try await store.commitRelease(
                throttleStates: [(key: key, json: Data("{}".utf8), pending: false)],
                outbox: [row("t2", 10), row("t1", 10), row("later", 10, next: 500)], rewrites: [], drops: [],
                history: nil)
            try await store.commitRelease(
                throttleStates: [], outbox: [row("t1", 12), row("t2", 9)], rewrites: [], drops: [], history: nil)
            #expect(try await store.outboxStatus() == (3, 0))
            let due = try await store.dueOutbox(now: 100, limit: 100)
            #expect(due.map(\.key.target) == ["t2", "t1"], "release order: t1 was released again after t2")
            #expect(due.map(\.timestamp) == [10, 12])
            #expect(due.first?.address == ProviderAddress(user: "u-t2"))
            #expect(due.first?.device == nil)
            try await store.settleOutbox(
                done: [due[0]],
                later: [
                    {
                        var r = due[1]; r.attempts = 1; r.nextAttempt = 400; return r
                    }()
                ],
                started: [], sent: [], now: 100)
            #expect(try await store.dueOutbox(now: 399, limit: 100).isEmpty)
            let retried = try await store.dueOutbox(now: 600, limit: 100)
            #expect(retried.map(\.key.target) == ["later", "t1"], "release order")
            #expect(retried.last?.attempts == 1)
            try await store.completeOutbox(retried)
            #expect(try await store.outboxStatus() == (0, nil))
        },
        StoreCheck(name: "outbox: a row replaced while in flight is not finished by the older receipt") { store in
            try await store.commitRelease(
                throttleStates: [], outbox: [row("t", 10)], rewrites: [], drops: [], history: nil)
            let inFlight = try await store.dueOutbox(now: 0, limit: 10)
            try await store.commitRelease(
                throttleStates: [], outbox: [row("t", 11)], rewrites: [], drops: [], history: nil)
            try await store.settleOutbox(done: inFlight, later: [], started: [], sent: [], now: 1)
            let next = try await store.dueOutbox(now: 2, limit: 10)
            #expect(next.map(\.timestamp) == [11], "the newer push still goes")
            // Put off (a temporary failure): waiting again, not in flight.
            try await store.settleOutbox(
                done: [],
                later: next.map {
                    var r = $0; r.attempts = 1; r.nextAttempt = 50; return r
                }, started: [],
                sent: [], now: 2)
            // Rewrites and drops apply only to the push they read.
            try await store.commitRelease(
                throttleStates: [],
                outbox: [],
                rewrites: [
                    OutboxRewrite(row: row("t", 13), previousTimestamp: 11),
                    OutboxRewrite(row: row("t", 99), previousTimestamp: 5),
                ], drops: [row("t", 4)], history: nil)
            #expect(try await store.waitingOutbox(activities: [key]).map(\.timestamp) == [13])
            try await store.commitRelease(
                throttleStates: [], outbox: [], rewrites: [], drops: [row("t", 13)], history: nil)
            #expect(try await store.waitingOutbox(activities: [key]).isEmpty)
        },
        StoreCheck(name: "a round's rewrites of several rows each apply only to the push they read") { store in
            try await store.commitRelease(
                throttleStates: [], outbox: [row("t1", 10), row("t2", 10), row("t3", 10)], rewrites: [], drops: [],
                history: nil)
            try await store.commitRelease(
                throttleStates: [], outbox: [],
                rewrites: [
                    OutboxRewrite(row: row("t1", 12), previousTimestamp: 10),
                    OutboxRewrite(row: row("t2", 12), previousTimestamp: 9),
                    OutboxRewrite(row: row("t3", 14), previousTimestamp: 10),
                ], drops: [], history: nil)
            let waiting = try await store.waitingOutbox(activities: [key])
            #expect(
                Dictionary(uniqueKeysWithValues: waiting.map { ($0.key.target, $0.timestamp) }) == [
                    "t1": 12, "t2": 10, "t3": 14,
                ])
            #expect(waiting.first { $0.key.target == "t3" }?.push == row("t3", 14).push, "the push with it")
        },
        StoreCheck(name: "a start's receipt marks its device; tokens reported count too") { store in
            let start = DeviceStart(activity: key, device: "d1")
            try await store.commitRelease(
                throttleStates: [], outbox: [row("p1", 10, kind: "push-to-start", device: "d1")], rewrites: [],
                drops: [], history: nil)
            let due = try await store.dueOutbox(now: 0, limit: 10)
            try await store.settleOutbox(
                done: due, later: [], started: [start], sent: [SentPush(activity: key, timestamp: 10, state: [:])],
                now: 42)
            try await store.save([record()])
            #expect(
                try await store.registerActivityToken(
                    activity: key, device: "d2", token: "AB", environment: .production, now: 43) == .stored)
            let states = try await store.deviceStates([start, DeviceStart(activity: key, device: "d2")])
            #expect(states[start] == ActivityDevice(device: "d1", startedAt: 42, tokenAt: nil))
            #expect(
                try await store.activityDevices(key) == [
                    ActivityDevice(device: "d1", startedAt: 42, tokenAt: nil),
                    ActivityDevice(device: "d2", startedAt: nil, tokenAt: 43),
                ])
        },
        StoreCheck(name: "tokens: rotation moves a waiting start; dropped tokens never return; ended refuses") {
            store in
            try await store.subscribe(device: "a", to: match, now: 0)
            try await store.subscribe(device: "a", to: match, now: 0)
            #expect(
                try await store.registerPushToStartToken(
                    device: "a", attributesType: "MatchAttributes", token: "OLD", environment: .sandbox, now: 1))
            try await store.commitRelease(
                throttleStates: [], outbox: [row("old", 10, kind: "push-to-start", device: "a")], rewrites: [],
                drops: [], history: nil)
            try await store.registerPushToStartToken(
                device: "a", attributesType: "MatchAttributes", token: "new", environment: .sandbox, now: 2)
            #expect(try await store.waitingOutbox(activities: [key]).map(\.key.target) == ["new"])
            try await store.setChannelSubscriber(device: "a", true, now: 3)
            #expect(
                try await store.pushToStartTokens(
                    entity: match, attributesType: "MatchAttributes", environment: .sandbox)
                    == [RegisteredToken(device: "a", token: "new", environment: .sandbox, channelSubscriber: true)])
            #expect(
                try await store.pushToStartTokens(
                    entity: match, attributesType: "MatchAttributes", environment: .production
                ).isEmpty)
            try await store.dropToken("NEW", reason: "Unregistered", now: 4)
            #expect(try await store.isDropped("new"))
            #expect(
                try await !store.registerPushToStartToken(
                    device: "a", attributesType: "MatchAttributes", token: "new", environment: .sandbox, now: 5))
            try await store.save([record(phase: .ended)])
            #expect(
                try await store.registerActivityToken(
                    activity: key, device: "a", token: "t", environment: .sandbox, now: 6) == .ended)
            let other = ActivityKey("b")
            #expect(
                try await store.importActivityTokens(
                    [
                        (activity: other, device: "x", token: "T1", environment: .production),
                        (activity: other, device: "y", token: "new", environment: .production),
                    ], now: 7) == 1, "the dropped one is not stored")
            #expect(try await store.activityTokens(activity: other, environment: nil).map(\.token) == ["t1"])
            #expect(
                try await store.importActivityTokens(
                    [
                        (activity: other, device: "x", token: "T2", environment: .production),
                        (activity: other, device: "x", token: "new", environment: .production),
                    ], now: 8) == 1, "a dropped token after a good one for the same device stores the good one")
            #expect(try await store.activityTokens(activity: other, environment: nil).map(\.token) == ["t2"])
            #expect(
                try await store.importActivityTokens(
                    [(activity: key, device: "z", token: "t3", environment: .production)], now: 9) == 0,
                "an import refuses a token of an ended activity, as a registration does")
            #expect(try await store.activityTokens(activity: key, environment: nil).isEmpty)
            try await store.removeActivityToken(activity: other, device: "x")
            try await store.unsubscribe(device: "a", from: match)
            #expect(try await store.subscribedDevices(entity: match).isEmpty)
        },
        StoreCheck(
            name: "a large import refuses the dropped tokens among its own, and stores all when none was dropped"
        ) { store in
            let many = ActivityKey("many")
            let tokens = (0..<150).map {
                (activity: many, device: "d\($0)", token: "T\($0)", environment: PushEnvironment.production)
            }
            #expect(try await store.importActivityTokens(tokens, now: 1) == 150)
            try await store.dropToken("t149", reason: "Unregistered", now: 2)
            let again = (0..<150).map {
                (activity: many, device: "e\($0)", token: "T\($0)", environment: PushEnvironment.production)
            }
            #expect(try await store.importActivityTokens(again, now: 3) == 149, "the dropped one is not stored")
            #expect(
                try await store.activityTokens(activity: many, environment: nil).count == 298,
                "the dropped token's first row went with it")
        },
        StoreCheck(name: "a registry query reads tokens, subscribers and addresses at once") { store in
            for device in ["b", "a"] {
                try await store.subscribe(device: device, to: match, now: 0)
                #expect(
                    try await store.registerAddress(
                        RegisteredAddress(device: device, provider: "fcm", address: "fcm-\(device)", user: nil), now: 1)
                )
            }
            try await store.registerPushToStartToken(
                device: "c", attributesType: "MatchAttributes", token: "cc", environment: .production, now: 1)
            try await store.subscribe(device: "c", to: match, now: 0)
            try await store.registerActivityAddress(activity: key, provider: "fcm", address: "la-1")
            let rows = try await store.registryRows(
                RegistryQuery(
                    activity: key, tokens: .pushToStart(entity: match, attributesType: "MatchAttributes"),
                    subscribers: match, registry: "fcm"))
            #expect(rows.tokens.map(\.device) == ["c"])
            #expect(rows.subscribers == ["a", "b", "c"])
            #expect(rows.addresses.keys.sorted() == ["a", "b"])
            #expect(rows.activityAddress == "la-1")
            try await store.dropAddress("fcm-a", provider: "fcm", reason: "UNREGISTERED", now: 2)
            #expect(
                try await !store.registerAddress(
                    RegisteredAddress(device: "z", provider: "fcm", address: "fcm-a", user: nil), now: 3))
            #expect(try await store.addresses(provider: "fcm").map(\.device) == ["b"])
            #expect(try await store.addresses(provider: "fcm", devices: ["a", "b"]).keys.sorted() == ["b"])
            try await store.removeAddress(device: "b", provider: "fcm")
            try await store.removeActivityAddress(activity: key, provider: "fcm")
            #expect(try await store.activityAddress(activity: key, provider: "fcm") == nil)
            #expect(try await store.addresses(provider: "fcm").isEmpty)
        },
    ]
}
