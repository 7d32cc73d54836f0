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
          {"id": "refresh", "feed": "prices", "on": {"every": REFRESH}, "event": "update", "priority": "low",
           "activity": {"key": {"cat": ["alert-", {"var": "entity.id"}]}, "attributes-type": "PriceAlert"},
           "content-state": {"price": {"var": "curr.price"}}}
        ]}
        """#

    /// The pushes (activity, event) and looks of passes at `times` over 7 live activities, `batch` at a time.
    static func passes(batch: Int, times: [Int], skipAhead: Bool = true, refresh: Int = 600) async throws
        -> [[String]]
    {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (rules, diagnostics) = RuleLoader().load(
            file: "r.json", data: Data(Self.rules.replacingOccurrences(of: "REFRESH", with: "\(refresh)").utf8))
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
        let queue = try await StoredThrottle(store: store, configuration: ThrottleConfiguration())
        let pipeline = Pipeline(
            store: store, rules: RuleBook(RuleEngine(rules: rules), routes: ProviderRoutes(defaultProvider: "none")),
            queue: queue, senders: [:], logger: logger)
        var out: [[String]] = []
        for now in times {
            let pass = try await pipeline.timers(now: now, batch: batch, skipAhead: skipAhead)
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
            whole == [whole[0], ["due 0, read 0"], refreshAll, ["due 0, read 0"], refreshAll],
            "each refresh comes due once per 600 s; calm skips to its first due time 1,800 s after a push")
    }

    /// Skipping the due times a rule on the activity's times fires nothing at decides exactly what looking at
    /// every one of them decides: the same pushes at the same passes (here the calm ends come one by one, at
    /// passes 45 s apart that fall between due times), with far fewer activities read.
    @Test(arguments: [600, 2400])
    func skippingIdleDueTimesDecidesAsLookingAtEach(refresh: Int) async throws {
        let times = Array(stride(from: 1001, through: 4_601, by: 45))
        let skipping = try await Self.passes(batch: 3, times: times, refresh: refresh)
        let looking = try await Self.passes(batch: 3, times: times, skipAhead: false, refresh: refresh)
        #expect(skipping.map { $0.dropFirst() } == looking.map { $0.dropFirst() })
        if refresh == 2400 {
            #expect(skipping.joined().filter { $0.hasSuffix("end") }.count == 7, "every alert ends calm")
        }
        let read = { (passes: [[String]]) in
            passes.reduce(0) { $0 + Int($1[0].split(separator: " ").last!)! }
        }
        #expect(read(skipping) * 2 < read(looking), "\(read(skipping)) read against \(read(looking))")
    }
}
