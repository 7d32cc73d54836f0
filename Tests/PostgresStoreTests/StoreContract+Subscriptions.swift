import Foundation
import LiveRelayCore
import Store
import Testing

/// Personal subscriptions, their deletions, and the registry's look at a device that follows an entity
/// through one: the same on both stores.
extension StoreContract {
    static func subscription(
        _ id: String, device: String = "a", entity: EntityKey = match, above: Int = 190, at: Int = 100
    ) -> Subscription {
        Subscription(
            id: id, device: device, entity: entity,
            parameters: .object([
                "above": .int(above), "note": .string("ünïcode ✓"), "step": .decimal(Decimal(string: "0.25")!),
            ]),
            createdAt: at)
    }

    static let subscriptionChecks: [StoreCheck] = [
        StoreCheck(name: "an entity's alerts are counted by owner as the tally of its records counts them") { store in
            func alert(_ name: String, _ owner: SubscriptionOwner?, _ phase: ActivityPhase, entity: EntityKey = match)
                -> ActivityRecord
            {
                var r = record(ActivityKey("my-alert-\(name)"), phase: phase)
                r.entity = entity
                r.start = ActivityStart(attributes: .emptyObject, alert: nil, lateJoin: false, subscription: owner)
                return r
            }
            let s1 = SubscriptionOwner(id: "s1", device: "a", createdAt: 100)
            let s1Before = SubscriptionOwner(id: "s1", device: "a", createdAt: 50)
            let s2 = SubscriptionOwner(id: "s2", device: "ünï ✓", createdAt: 100)
            let other = EntityKey(feed: "espn", id: "1")
            let records = [
                alert("s1-0", s1, .ended), alert("s1-1", s1, .ended), alert("s1-2", s1, .active),
                alert("s1-old", s1Before, .pending), alert("s2-0", s2, .ended), alert("shared", nil, .active),
                alert("s2-elsewhere", s2, .active, entity: other), record(ActivityKey("match:plain"), phase: .ended),
            ]
            try await store.save(records)
            let counted = try await store.subscriptionAlerts(of: [match, other, EntityKey(feed: "nba", id: "7")])
            let order = { (a: SubscriptionAlerts, b: SubscriptionAlerts) in
                (a.owner.id, a.owner.createdAt) < (b.owner.id, b.owner.createdAt)
            }
            #expect(
                counted[match]?.sorted(by: order) == SubscriptionAlerts.tally(records.filter { $0.entity == match }))
            #expect(
                counted[match]?.sorted(by: order) == [
                    SubscriptionAlerts(owner: s1Before, running: 1, ended: 0),
                    SubscriptionAlerts(owner: s1, running: 1, ended: 2),
                    SubscriptionAlerts(owner: s2, running: 0, ended: 1),
                ])
            #expect(counted[other] == [SubscriptionAlerts(owner: s2, running: 1, ended: 0)])
            #expect(counted[EntityKey(feed: "nba", id: "7")] == nil, "an entity with none is absent")
            #expect(try await store.subscriptionAlerts(of: []).isEmpty)
        },
        StoreCheck(name: "an import writes each subscription as a PUT would, and counts the conflicts") { store in
            #expect(try await store.putSubscription(subscription("s1"), now: 100) == .created)
            let refused = try await store.importSubscriptions(
                [
                    subscription("s2", device: "b"), subscription("s1", device: "z", above: 1),
                    subscription("s1", above: 300), subscription("s3", device: "c", above: 5),
                ], now: 200)
            #expect(refused == 1, "s1 is device a's")
            let found = try await store.subscriptions(of: [match])[match] ?? []
            #expect(found.map(\.id) == ["s1", "s2", "s3"])
            #expect(found.first?.parameters["above"] == 300, "the later write of s1 changed it")
            #expect(try await store.importSubscriptions([], now: 300) == 0)
        },
        StoreCheck(name: "each write of an entity's subscriptions moves its generation; a retry or a conflict does not")
        {
            store in
            let other = EntityKey(feed: "espn", id: "1")
            #expect(try await store.subscriptionGenerations(of: [match, other]).isEmpty)
            #expect(try await store.putSubscription(subscription("s1"), now: 100) == .created)
            let first = try #require(try await store.subscriptionGenerations(of: [match])[match])
            #expect(try await store.putSubscription(subscription("s1"), now: 110) == .changed)
            #expect(
                try await store.putSubscription(subscription("s1", device: "b", above: 1), now: 120)
                    == .conflict(subscription("s1")))
            #expect(try await store.subscriptionGenerations(of: [match])[match] == first, "nothing was written")
            #expect(try await store.putSubscription(subscription("s1", above: 200), now: 130) == .changed)
            let second = try #require(try await store.subscriptionGenerations(of: [match])[match])
            #expect(second > first)
            #expect(try await store.putSubscription(subscription("s2", entity: other), now: 140) == .created)
            #expect(try await store.subscriptionGenerations(of: [match])[match] == second, "another entity's")
            #expect(try await store.deleteSubscription(id: "s1", now: 150))
            let third = try #require(try await store.subscriptionGenerations(of: [match, other])[match])
            #expect(third > second)
            #expect(try await store.subscriptionGenerations(of: [match, other])[other] != nil)
        },
        StoreCheck(name: "a subscription is created, changed, refused to another device or entity, and read back") {
            store in
            let none = try await store.subscription(id: "s1")
            #expect(none == nil)
            #expect(try await store.putSubscription(subscription("s1"), now: 100) == .created)
            #expect(try await store.subscription(id: "s1") == subscription("s1"))
            #expect(try await store.putSubscription(subscription("s1", at: 150), now: 150) == .changed)
            #expect(
                try await store.subscription(id: "s1") == subscription("s1"),
                "the same parameters again change nothing, not even the times")
            #expect(try await store.putSubscription(subscription("s1", above: 200, at: 200), now: 200) == .changed)
            var changed = subscription("s1", above: 200)
            changed.changedAt = 200
            #expect(try await store.subscription(id: "s1") == changed, "created-at is kept, changed-at is now")
            #expect(
                try await store.putSubscription(subscription("s1", device: "b", above: 1, at: 300), now: 300)
                    == .conflict(changed))
            let elsewhere = EntityKey(feed: "espn", id: "1")
            #expect(
                try await store.putSubscription(subscription("s1", entity: elsewhere, above: 1, at: 300), now: 300)
                    == .conflict(changed))
            #expect(try await store.subscription(id: "s1") == changed, "a conflict writes nothing")
        },
        StoreCheck(name: "subscriptions by entity, each entity's in id order; entities with none are absent") { store in
            let other = EntityKey(feed: "espn", id: "1")
            let none = EntityKey(feed: "other", id: "x")
            for s in [
                subscription("s3", device: "c"), subscription("s1", device: "a"), subscription("s2", entity: other),
                subscription("S0", device: "b"),
            ] {
                #expect(try await store.putSubscription(s, now: 100) == .created)
            }
            let found = try await store.subscriptions(of: [match, other, none, match])
            #expect(found.keys.sorted() == [other, match].sorted())
            #expect(found[match]?.map(\.id) == ["S0", "s1", "s3"], "by id, byte order")
            #expect(found[match]?.first == subscription("S0", device: "b"))
            #expect(found[other] == [subscription("s2", entity: other)])
            #expect(found[none] == nil)
            #expect(try await store.subscriptions(of: []).isEmpty)
        },
        StoreCheck(name: "a deleted subscription waits until it is finished, oldest deletion first") { store in
            let other = EntityKey(feed: "espn", id: "1")
            let elsewhere = EntityKey(feed: "nba", id: "7")
            for s in [
                subscription("s1"), subscription("s2", device: "b", entity: other),
                subscription("s3", entity: elsewhere),
            ] {
                #expect(try await store.putSubscription(s, now: 100) == .created)
            }
            #expect(try await store.deleteSubscription(id: "s2", now: 300))
            #expect(try await store.deleteSubscription(id: "s1", now: 200))
            #expect(try await store.deleteSubscription(id: "s3", now: 100))
            #expect(try await !store.deleteSubscription(id: "s1", now: 400), "there was none")
            #expect(try await !store.deleteSubscription(id: "never", now: 400))
            #expect(try await store.subscription(id: "s1") == nil)
            #expect(try await store.subscriptions(of: [match, other]).isEmpty)
            let deleted = try await store.deletedSubscriptions(feed: "espn", limit: 10)
            #expect(
                deleted == [
                    DeletedSubscription(
                        owner: SubscriptionOwner(id: "s1", device: "a", createdAt: 100), entity: match, at: 200),
                    DeletedSubscription(
                        owner: SubscriptionOwner(id: "s2", device: "b", createdAt: 100), entity: other, at: 300),
                ])
            #expect(try await store.deletedSubscriptions(feed: "espn", limit: 1).map(\.owner.id) == ["s1"])
            #expect(try await store.deletedSubscriptions(feed: "nba", limit: 10).map(\.owner.id) == ["s3"])
            // A poll's one read: the generations and the deletions, as the two reads give them.
            let changes = try await store.subscriptionChanges(of: [match, other], feed: "espn", limit: 10)
            #expect(changes.deleted == deleted)
            #expect(changes.generations == (try await store.subscriptionGenerations(of: [match, other])))
            #expect(changes.generations.count == 2)
            #expect(
                try await store.subscriptionChanges(of: [], feed: "espn", limit: 1).deleted.map(\.owner.id) == ["s1"])
            try await store.finishDeletedSubscriptions([deleted[0]])
            #expect(try await store.deletedSubscriptions(feed: "espn", limit: 10) == [deleted[1]])
            try await store.finishDeletedSubscriptions([])
            #expect(try await store.deletedSubscriptions(feed: "nba", limit: 10).count == 1, "another feed's stay")
        },
        StoreCheck(name: "a deleted id created again is a new subscription; the old deletion waits until finished") {
            store in
            #expect(try await store.putSubscription(subscription("s1"), now: 100) == .created)
            try await store.deleteSubscription(id: "s1", now: 150)
            #expect(try await store.putSubscription(subscription("s1", above: 5, at: 200), now: 200) == .created)
            #expect(try await store.subscription(id: "s1") == subscription("s1", above: 5, at: 200))
            let old = DeletedSubscription(
                owner: SubscriptionOwner(id: "s1", device: "a", createdAt: 100), entity: match, at: 150)
            #expect(try await store.deletedSubscriptions(feed: "espn", limit: 10) == [old])
            try await store.deleteSubscription(id: "s1", now: 250)
            let new = DeletedSubscription(
                owner: SubscriptionOwner(id: "s1", device: "a", createdAt: 200), entity: match, at: 250)
            #expect(try await store.deletedSubscriptions(feed: "espn", limit: 10) == [old, new])
            try await store.finishDeletedSubscriptions([old])
            #expect(try await store.deletedSubscriptions(feed: "espn", limit: 10) == [new])
        },
        StoreCheck(
            name: "a registry read for one device finds it through its personal subscription; a shared one does not"
        ) {
            store in
            for (device, token) in [("a", "aa01"), ("p", "aa02"), ("q", "aa03")] {
                try await store.registerPushToStartToken(
                    device: device, attributesType: "MatchAttributes", token: token, environment: .production, now: 1)
            }
            try await store.subscribe(device: "a", to: match, now: 1)
            #expect(try await store.putSubscription(subscription("s1", device: "p"), now: 1) == .created)
            _ = try await store.putSubscription(
                subscription("s2", device: "q", entity: EntityKey(feed: "espn", id: "1")), now: 1)
            #expect(
                try await store.lateJoins(limit: 10).map(\.device) == ["a"], "a personal subscription is no late join")
            var query = RegistryQuery(
                activity: key, tokens: .pushToStart(entity: match, attributesType: "MatchAttributes"),
                subscribers: match)
            let shared = try await store.registryRows(query)
            #expect(shared.tokens.map(\.device) == ["a"], "a personal subscription is not a plain subscriber")
            #expect(shared.subscribers == ["a"])
            #expect(try await store.subscribedDevices(entity: match) == ["a"])
            query.device = "p"
            let own = try await store.registryRows(query)
            #expect(own.tokens.map(\.token) == ["aa02"])
            #expect(own.subscribers == ["p"])
            query.device = "a"
            #expect(
                try await store.registryRows(query).tokens.map(\.token) == ["aa01"], "a plain subscriber still is one")
            query.device = "q"
            let elsewhere = try await store.registryRows(query)
            #expect(
                elsewhere.tokens.isEmpty && elsewhere.subscribers.isEmpty, "a subscription to another entity is not")
            try await store.deleteSubscription(id: "s1", now: 2)
            query.device = "p"
            let gone = try await store.registryRows(query)
            #expect(gone.tokens.isEmpty && gone.subscribers.isEmpty, "a deleted subscription follows nothing")
        },
    ]
}
