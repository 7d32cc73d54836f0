import Foundation
import LiveRelayCore
import LiveRelayTesting
import Rules
import Testing

/// A personal rule whose condition requires a crossing of a subscription's level is evaluated only for the
/// subscriptions whose level lies between the two prices, and fires exactly as evaluating every one would.
@Suite struct CrossingIndexTests {
    static func rules() throws -> [Rule] {
        let set = RuleLoader(knownFeeds: ["markets"]).load(paths: [Repository.path("Rules/personal-alerts.rules.json")])
        #expect(set.diagnostics.isEmpty, "\(set.diagnostics)")
        return set.rules
    }

    @Test func theConditionSaysWhichRulesAreIndexed() throws {
        let rules = try Self.rules()
        var said: [String: String] = [:]
        for rule in rules {
            switch rule.crossing {
            case .success(let crossing)?: said[rule.id] = "\(crossing.fact) \(crossing.parameter)"
            case .failure(let why)?: said[rule.id] = why.reason
            case nil: said[rule.id] = "shared"
            }
        }
        #expect(said["my-crosses-above"] == "price above")
        #expect(said["my-crosses-below"] == "price below")
        #expect(said["my-moves"] == "its condition compares no fact with a subscription parameter")
        #expect(rules.first { $0.id == "my-moves" }?.liveOnly == true)
        #expect(rules.filter(\.liveOnly).count == 1, "the starts need no activity")
        #expect(LiveOnly.of(["==": ["active", ["var": "activity.phase"]]]))
        #expect(!LiveOnly.of(["in": [["var": "activity.phase"], ["active", "ended"]]]))
        #expect(!LiveOnly.of(["or": [["==": [["var": "activity.phase"], "active"]], true]]))
        // Written the other way round, and as a single comparison that is no crossing.
        let reversed = try #require(
            try? Crossing.of(
                [
                    "and": [
                        [">": [["var": "subscription.parameters.level"], ["var": "prev.x"]]],
                        ["<=": [["var": "subscription.parameters.level"], ["var": "curr.x"]]],
                    ]
                ]
            ).get())
        #expect(reversed.fact == "x")
        #expect(reversed.parameter == "level")
        #expect((try? Crossing.of([">=": [["var": "curr.x"], ["var": "subscription.parameters.level"]]]).get()) == nil)
        // A default makes the parameter something else when it is left out: not indexed.
        #expect(
            (try? Crossing.of(
                [
                    "and": [
                        ["<": [["var": "prev.x"], ["var": ["subscription.parameters.level", 5]]]],
                        [">=": [["var": "curr.x"], ["var": ["subscription.parameters.level", 5]]]],
                    ]
                ]
            ).get()) == nil)
    }

    @Test func aMoveFindsTheLevelsInBetween() throws {
        let rule = try #require(try Self.rules().first { $0.id == "my-crosses-above" })
        let crossing = try #require(try rule.crossing?.get())
        let subscriptions = (0..<1_000).map { i in
            Subscription(
                id: "s\(i)", device: "d\(i)", entity: EntityKey(feed: "markets", id: "AAPL"),
                parameters: ["above": .int(i)], createdAt: 0)
        }
        let index = CrossingIndex(crossing, subscriptions: subscriptions)
        let candidates = try #require(
            index.candidates(previous: Facts(["price": 189.2]), current: Facts(["price": 200.4])))
        #expect(candidates.count <= 14, "\(candidates.count)")
        #expect(Set(190...200).isSubset(of: Set(candidates)))
        #expect(index.candidates(previous: Facts(["price": 189.2]), current: Facts(["price": 189.3])) == [])
        #expect(
            index.candidates(previous: nil, current: Facts(["price": 189.3])) == [],
            "no previous price: the rule requires one")
        #expect(crossing.guarded == ["prev"])
    }

    /// Random levels (ties, decimals, left out, not numbers) and random moves: the engine with the index
    /// gives exactly the intents of evaluating every subscription.
    @Test func narrowingNeverChangesWhatFires() throws {
        let rules = try Self.rules()
        let indexed = RuleEngine(rules: rules)
        let plain = RuleEngine(
            rules: rules.map {
                var rule = $0
                rule.crossing = nil
                rule.liveOnly = false
                return rule
            })
        var random = SeededRandom(seed: 42)
        var fired = 0
        let levels: [JSONValue] = [100, 100.5, 101, .decimal(Decimal(string: "100.25")!), "100", .null, true]
        for round in 0..<200 {
            let subscriptions = (0..<40).map { i -> Subscription in
                var parameters: [String: JSONValue] = [:]
                if random.next() % 5 != 0 { parameters["above"] = levels[Int(random.next() % UInt64(levels.count))] }
                if random.next() % 3 == 0 { parameters["below"] = levels[Int(random.next() % UInt64(levels.count))] }
                return Subscription(
                    id: "s\(i)", device: "d\(i)", entity: EntityKey(feed: "markets", id: "BTC"),
                    parameters: .object(parameters), createdAt: 0)
            }
            let prices: [JSONValue] = [99, 100, 100.25, 100.5, 101, 102, .null]
            let before = prices[Int(random.next() % UInt64(prices.count))]
            let after = prices[Int(random.next() % UInt64(prices.count))]
            let change = FeedChange(
                entity: EntityKey(feed: "markets", id: "BTC"), previous: Facts(["price": before]),
                current: Facts(["price": after]), changedPaths: ["price"])
            // Some subscriptions own a running activity, at a price of their own; the index knows which.
            var activities: [ActivityKey: JSONValue] = [:]
            var records: [ActivityRecord] = []
            for s in subscriptions where random.next() % 3 == 0 {
                let key = ActivityKey("my-alert-\(s.id)-0")
                let phase: ActivityPhase = random.next() % 2 == 0 ? .active : .pending
                activities[key] = [
                    "phase": .string(phase.rawValue), "state": ["price": prices[Int(random.next() % 6)]],
                ]
                records.append(
                    ActivityRecord(
                        key: key, attributesType: "PersonalAlertAttributes", phase: phase, state: .emptyObject,
                        lastTimestamp: 0, entity: s.entity,
                        start: ActivityStart(
                            attributes: .emptyObject, alert: nil, lateJoin: false, subscription: s.owner)))
            }
            let set = SubscriptionSet(
                subscriptions, crossings: indexed.crossings["markets"] ?? [], alerts: SubscriptionAlerts.tally(records))
            let a = indexed.evaluate(change, now: 1_000, activities: activities, subscriptions: set)
            let b = plain.evaluate(
                change, now: 1_000, activities: activities, subscriptions: subscriptions.sorted { $0.id < $1.id })
            #expect(a.intents == b.intents, "round \(round): \(before) → \(after)")
            #expect(a.errors == b.errors)
            fired += a.intents.count
        }
        #expect(fired > 100, "the rounds cross levels: \(fired) starts")
    }
}

/// A small deterministic generator (SplitMix64), so a failure repeats.
struct SeededRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
