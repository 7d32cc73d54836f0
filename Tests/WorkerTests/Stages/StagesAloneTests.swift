import Delivery
import Feeds
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Logging
import Rules
import Store
import Testing
import Throttling

@testable import Worker

/// Each stage made and run on its own, without the coordinator: the plan stage over changes handed to it,
/// the release stage over what the throttle holds, the delivery stage over what the outbox holds. What one
/// stage leaves in the store is all the next one reads.
@Suite struct StagesAloneTests {
    static let rules = #"""
        {"rules": [
          {"id": "open", "feed": "prices", "when": {"==": [{"var": "activity.phase"}, "none"]},
           "activity": {"key": {"cat": ["alert-", {"var": "entity.id"}]}, "attributes-type": "PriceAlert",
                        "attributes": {}},
           "event": "start", "content-state": {"price": {"var": "curr.price"}},
           "alert": {"title": "Following", "body": ""}},
          {"id": "move", "feed": "prices", "when": {"==": [{"var": "activity.phase"}, "active"]},
           "activity": {"key": {"cat": ["alert-", {"var": "entity.id"}]}, "attributes-type": "PriceAlert"},
           "event": "update", "content-state": {"price": {"var": "curr.price"}}}
        ]}
        """#

    /// The parts stages are made of, on a state file of their own.
    struct Parts {
        let directory: URL
        let store: SQLiteStore
        let rules: RuleBook
        let queue: StoredThrottle
        let provider = RecordingProvider()
        let logger: Logger

        init() async throws {
            directory = try Repository.temporaryDirectory()
            store = try SQLiteStore(path: directory.appendingPathComponent("state.sqlite").path)
            let (loaded, diagnostics) = RuleLoader().load(file: "r.json", data: Data(StagesAloneTests.rules.utf8))
            #expect(diagnostics.isEmpty, "\(diagnostics)")
            rules = RuleBook(RuleEngine(rules: loaded), routes: ProviderRoutes(defaultProvider: "console"))
            queue = try await StoredThrottle(store: store, configuration: ThrottleConfiguration())
            var logger = Logger(label: "stages")
            logger.logLevel = .critical
            self.logger = logger
        }

        var senders: [String: Sender] { ["console": Sender(provider: provider, logger: logger)] }

        func plan() -> PlanStage {
            let book = SubscriptionBook()
            return PlanStage(
                store: store, rules: rules, queue: queue,
                decider: Decider(
                    store: store, rules: rules, ledger: ActivityLedger(), queue: queue, contracts: [:], book: book,
                    metrics: .none, logger: logger),
                book: book, factsMemory: FactsMemory(), history: nil, logger: logger)
        }

        func release() -> ReleaseStage {
            ReleaseStage(
                store: store, rules: rules, queue: queue, senders: senders, channels: nil, metrics: .none,
                logger: logger, history: nil)
        }

        func deliver() -> DeliverStage {
            DeliverStage(
                store: store, rules: rules, ledger: ActivityLedger(), queue: queue, senders: senders, channels: nil,
                claims: nil, metrics: .none, logger: logger, random: { 0.5 }, restartAfter: nil, claimBatch: 100)
        }

        /// A reading of the feed "prices": `previous` to `current`, by entity.
        func reading(_ previous: [String: Int], _ current: [String: Int]) -> FeedReading {
            let (before, after) = (
                previous.mapValues { Facts(["price": .int($0)]) }, current.mapValues { Facts(["price": .int($0)]) }
            )
            return FeedReading(
                feed: "prices", previous: before, current: after,
                changes: ChangeDetector.changes(feed: "prices", previous: before, current: after))
        }
    }

    @Test func thePlanStageDecidesAndSavesOnItsOwn() async throws {
        let parts = try await Parts()
        defer { try? FileManager.default.removeItem(at: parts.directory) }
        let steps = try await parts.plan().plan(parts.reading([:], ["BTC": 100]), validators: (nil, nil), now: 1000)
        #expect(steps.map(\.fired) == [["open"]])
        // What it saved is what the store holds: the facts, the pending activity and its held push.
        #expect(try await parts.store.facts(feed: "prices")["BTC"] == Facts(["price": .int(100)]))
        let record = try await parts.store.activities([ActivityKey("alert-BTC")])[ActivityKey("alert-BTC")]
        #expect(record?.phase == .pending)
        #expect(await parts.queue.pendingCount == 1)
        #expect(try await parts.store.outboxStatus().depth == 0, "the plan writes no outbox row")
    }

    @Test func theReleaseStageWritesWhatTheThrottleLetsGoOnItsOwn() async throws {
        let parts = try await Parts()
        defer { try? FileManager.default.removeItem(at: parts.directory) }
        _ = try await parts.plan().plan(parts.reading([:], ["BTC": 100, "ETH": 7]), validators: (nil, nil), now: 1000)
        let decisions = try await parts.release().run(now: 1000)
        #expect(decisions.count == 2)
        #expect(try await parts.store.outboxStatus().depth == 2)
        #expect(await parts.queue.pendingCount == 0)
        #expect(parts.provider.pushes.isEmpty, "the release sends nothing")
        // A second round finds nothing more to let go.
        #expect(try await parts.release().run(now: 1001).isEmpty)
    }

    @Test func theDeliveryStageSendsWhatTheOutboxHoldsOnItsOwn() async throws {
        let parts = try await Parts()
        defer { try? FileManager.default.removeItem(at: parts.directory) }
        _ = try await parts.plan().plan(parts.reading([:], ["BTC": 100]), validators: (nil, nil), now: 1000)
        _ = try await parts.release().run(now: 1000)
        let round = try await parts.deliver().run(now: 1000)
        #expect(round.full == false)
        #expect(round.deliveries.map(\.delivered) == [true])
        #expect(parts.provider.pushes.map(\.event) == [.start])
        #expect(try await parts.store.outboxStatus().depth == 0, "a delivered row leaves the outbox")
        // The start delivered makes the activity active: the next plan decides an update.
        let record = try await parts.store.activities([ActivityKey("alert-BTC")])[ActivityKey("alert-BTC")]
        #expect(record?.phase == .active)
        let steps = try await parts.plan().plan(
            parts.reading(["BTC": 100], ["BTC": 101]), validators: (nil, nil), now: 1010)
        #expect(steps.map(\.fired) == [["move"]])
    }
}

extension StagesAloneTests {
    /// What rules see as `activity`: a known activity its own record and budget; every unknown one of an
    /// attributes type the same view (made once), with its type's budget.
    @Test func unknownActivitiesShowTheirTypesView() async throws {
        let parts = try await Parts()
        defer { try? FileManager.default.removeItem(at: parts.directory) }
        let queue = try await StoredThrottle(
            store: parts.store,
            configuration: ThrottleConfiguration(budgets: ["Match": BudgetPolicy(size: 3, period: 600)]))
        let decider = Decider(
            store: parts.store, rules: parts.rules, ledger: ActivityLedger(), queue: queue, contracts: [:],
            book: SubscriptionBook(), metrics: .none, logger: parts.logger)
        _ = try await parts.plan().plan(parts.reading([:], ["BTC": 100]), validators: (nil, nil), now: 1000)
        let (views, records) = try await decider.activityViews(
            ["alert-BTC": "PriceAlert", "alert-ETH": "PriceAlert", "alert-SOL": "PriceAlert", "match-1": "Match"],
            now: 1060)
        #expect(records.keys.sorted() == ["alert-BTC"])
        #expect(views["alert-BTC"]?["phase"] == "pending")
        #expect(views["alert-BTC"]?["budget"]?["held"] == true, "its start waits in the throttle")
        #expect(views["alert-ETH"]?["phase"] == "none")
        #expect(views["alert-ETH"] == views["alert-SOL"])
        #expect(views["alert-ETH"]?["budget"]?["size"] == 10)
        #expect(views["alert-ETH"]?["budget"]?["held"] == false)
        #expect(views["match-1"]?["phase"] == "none")
        #expect(views["match-1"]?["budget"]?["size"] == 3, "the Match budget, not the PriceAlert one")
        #expect(views["match-1"]?["budget"]?["period"] == 600)
    }
}
