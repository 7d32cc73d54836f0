import Delivery
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Logging
import Rules
import Store
import Testing
import Throttling
import Worker

/// A timer pass over more live activities than one batch: it takes them a batch at a time (each in its own
/// transaction) and decides exactly what one pass over all of them decides.
@Suite struct TimerBatchTests {
    static let rules = #"""
        {"rules": [
          {"id": "calm", "feed": "prices", "on": {"every": 60}, "event": "end",
           "when": {">=": [{"-": [{"var": "now"}, {"var": "activity.pushed-at"}]}, 1800]},
           "activity": {"key": {"cat": ["alert-", {"var": "entity.id"}]}, "attributes-type": "PriceAlert"}},
          {"id": "refresh", "feed": "prices", "on": {"every": 600}, "event": "update", "priority": "low",
           "activity": {"key": {"cat": ["alert-", {"var": "entity.id"}]}, "attributes-type": "PriceAlert"},
           "content-state": {"price": {"var": "curr.price"}}}
        ]}
        """#

    /// The pushes (activity, event) and looks of passes at `times` over 7 live activities, `batch` at a time.
    static func passes(batch: Int, times: [Int]) async throws -> [[String]] {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (rules, diagnostics) = RuleLoader().load(file: "r.json", data: Data(Self.rules.utf8))
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let store = try SQLiteStore(path: dir.appendingPathComponent("state.sqlite").path)
        let records = (0..<7).map { i in
            ActivityRecord(
                key: ActivityKey("alert-S\(i)"), attributesType: "PriceAlert", phase: .active,
                state: ["price": .int(i)], lastTimestamp: 1000 - i * 300,
                entity: EntityKey(feed: "prices", id: "S\(i)"),
                startedAt: 1000 - i * 300)
        }
        try await store.commit(
            FeedCommit(
                feed: "prices", now: 1000,
                facts: Dictionary(uniqueKeysWithValues: (0..<7).map { ("S\($0)", Facts(["price": .int($0 + 100)])) }),
                activities: records))
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let queue = try await PushQueue(store: store, configuration: ThrottleConfiguration())
        let pipeline = Pipeline(
            store: store, rules: RuleBook(RuleEngine(rules: rules), routes: ProviderRoutes(defaultProvider: "none")),
            queue: queue, senders: [:], logger: logger)
        var out: [[String]] = []
        for now in times {
            let pass = try await pipeline.timers(now: now, batch: batch)
            out.append(
                ["due \(pass.due), read \(pass.read)"]
                    + pass.pushes.map { "\($0.push.activity.rawValue) \($0.push.event)" }.sorted())
        }
        return out
    }

    @Test func aPassInBatchesDecidesAsOnePassOverAll() async throws {
        let times = [1001, 1061, 1601, 1800, 2700]
        let whole = try await Self.passes(batch: 1000, times: times)
        #expect(try await Self.passes(batch: 2, times: times) == whole)
        #expect(try await Self.passes(batch: 1, times: times) == whole)
        #expect(whole[0].first == "due 6, read 7", "every live activity read; the one started now is not due")
        #expect(whole[0].contains("alert-S6 end"), "started 1,800 s before and never pushed since: calm")
        let refreshAll = ["due 6, read 6"] + (0...5).map { "alert-S\($0) update" }
        #expect(
            whole == [
                whole[0], ["due 6, read 6"], refreshAll, ["due 6, read 6"], refreshAll,
            ], "each refresh comes due once per 600 s; the calm ones look every 60 s and find nothing")
    }
}
