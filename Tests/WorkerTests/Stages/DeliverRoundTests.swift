import Delivery
import Feeds
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Logging
import Rules
import Store
import Synchronization
import Testing
import Throttling

@testable import Worker

/// The delivery stage's round as the store sees it: how many rows a round claims on a shared store, and
/// what its receipt writes carry. A price alert starts on a device's push-to-start token; its update then
/// fans out to the activity's update tokens.
@Suite struct DeliverRoundTests {
    static let devices = 12

    /// The stages over one store, with a provider that fans out (APNs tokens; nothing goes without a target).
    struct Parts {
        let store: any StateStore
        let rules: RuleBook
        let queue: StoredThrottle
        let logger: Logger

        init(store: any StateStore) async throws {
            self.store = store
            let (loaded, diagnostics) = RuleLoader().load(file: "r.json", data: Data(StagesAloneTests.rules.utf8))
            #expect(diagnostics.isEmpty, "\(diagnostics)")
            rules = RuleBook(RuleEngine(rules: loaded), routes: ProviderRoutes(defaultProvider: "apns"))
            queue = try await StoredThrottle(store: store, configuration: ThrottleConfiguration())
            var logger = Logger(label: "deliver-round")
            logger.logLevel = .critical
            self.logger = logger
        }

        func reading(_ previous: Int?, _ current: Int) -> FeedReading {
            let before = previous.map { ["BTC": Facts(["price": .int($0)])] } ?? [:]
            let after = ["BTC": Facts(["price": .int(current)])]
            return FeedReading(
                feed: "prices", previous: before, current: after,
                changes: ChangeDetector.changes(feed: "prices", previous: before, current: after))
        }

        func plan(_ previous: Int?, _ current: Int, now: Int) async throws {
            let book = SubscriptionBook()
            _ = try await PlanStage(
                store: store, rules: rules, queue: queue,
                decider: Decider(
                    store: store, rules: rules, ledger: ActivityLedger(), queue: queue, contracts: [:], book: book,
                    metrics: .none, logger: logger),
                book: book, factsMemory: FactsMemory(), history: nil, logger: logger
            ).plan(reading(previous, current), validators: (nil, nil), now: now)
        }

        func release(_ provider: some PushProvider, now: Int) async throws {
            _ = try await ReleaseStage(
                store: store, rules: rules, queue: queue,
                senders: ["apns": Sender(provider: provider, logger: logger)], channels: nil, metrics: .none,
                logger: logger, history: nil
            ).run(now: now)
        }

        func deliver(
            _ provider: some PushProvider, through store: (any OutboxStore & ActivityStore)? = nil,
            claims: SharedClaims? = nil, claimBatch: Int = 100, now: Int
        ) async throws -> (deliveries: [PushDelivery], full: Bool) {
            let round = try await stage(provider, through: store, claims: claims, claimBatch: claimBatch).run(now: now)
            return (round.deliveries, round.full)
        }

        /// Every round due, as ``Pipeline/deliverDue(now:)`` runs them; how many.
        func deliverAll(
            _ provider: some PushProvider, through store: (any OutboxStore & ActivityStore)? = nil,
            claims: SharedClaims? = nil, claimBatch: Int, now: Int
        ) async throws -> Int {
            try await stage(provider, through: store, claims: claims, claimBatch: claimBatch).runDue(now: now).rounds
        }

        func stage(
            _ provider: some PushProvider, through store: (any OutboxStore & ActivityStore)?, claims: SharedClaims?,
            claimBatch: Int
        ) -> DeliverStage {
            DeliverStage(
                store: store ?? self.store, rules: rules, ledger: ActivityLedger(), queue: queue,
                senders: ["apns": Sender(provider: provider, logger: logger)], channels: nil, claims: claims,
                metrics: .none, logger: logger, random: { 0.5 }, restartAfter: nil, claimBatch: claimBatch)
        }

        /// The alert started on device-0's push-to-start token, then `devices` update tokens reported for it and
        /// a price move released: one update fanning out to them, due at 1010.
        func fanOutReleased(devices: Int) async throws {
            let provider = Self.provider()
            try await store.subscribe(device: "device-0", to: EntityKey(feed: "prices", id: "BTC"), now: 990)
            #expect(
                try await store.registerPushToStartToken(
                    device: "device-0", attributesType: "PriceAlert", token: String(repeating: "ab", count: 32),
                    environment: .production, now: 990))
            try await plan(nil, 100, now: 1000)
            try await release(provider, now: 1000)
            _ = try await deliver(provider, now: 1000)
            #expect(provider.pushes.map(\.event) == [.start])
            let tokens = (0..<devices).map {
                (ActivityKey("alert-BTC"), "device-\($0)", String(format: "%064x", $0 + 1), PushEnvironment.production)
            }
            #expect(try await store.importActivityTokens(tokens, now: 1005) == devices)
            try await plan(100, 101, now: 1010)
            try await release(provider, now: 1010)
        }

        static func provider(
            answer: @escaping @Sendable (LiveActivityPush, PushTarget) -> DeliveryOutcome = { _, _ in .delivered }
        )
            -> RecordingProvider
        {
            RecordingProvider(
                traits: ProviderTraits(
                    kind: .apns, addressing: .apnsTokens(environment: nil), maxConcurrentDeliveries: 1,
                    deliversWithoutTargets: false),
                answer: answer)
        }
    }

    /// The stages over a new SQLite file in `directory`, a fan-out to `devices` update tokens released.
    static func fanOutOnSQLite(devices: Int = devices, in directory: URL) async throws -> (Parts, SQLiteStore) {
        let sqlite = try SQLiteStore(path: directory.appendingPathComponent("state.sqlite").path)
        let parts = try await Parts(store: sqlite)
        try await parts.fanOutReleased(devices: devices)
        return (parts, sqlite)
    }

    /// A fan-out's receipts go out in several writes; the push's sent state (`sent_at`, the delivered state)
    /// is in the first of them only, and what the activity holds afterwards is that state.
    @Test func aPushIsRecordedAsSentOnceHoweverManyWritesItsReceiptsTake() async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (parts, sqlite) = try await Self.fanOutOnSQLite(in: directory)
        let writes = SettleWrites(sqlite)
        // The first target is answered at once; the others once its receipt's write has begun, so the round's
        // receipts take at least two writes.
        let provider = GatedProvider(open: { writes.count > 0 })
        let round = try await parts.deliver(provider, through: writes, now: 1010)
        #expect(round.deliveries.map(\.delivered) == [true])
        #expect(provider.answered == Self.devices)
        #expect(writes.count >= 2, "the receipts took \(writes.count) writes")
        #expect(writes.sent == [PushID(activity: ActivityKey("alert-BTC"), timestamp: 1010)], "once, in one write")
        #expect(writes.firstSent == 0, "in the first write")
        let record = try #require(try await sqlite.activities([ActivityKey("alert-BTC")])[ActivityKey("alert-BTC")])
        #expect(record.sentAt == 1010)
        #expect(try await sqlite.outboxStatus().depth == 0, "the fan-out is done")
    }

    /// A fan-out larger than a round goes out in rounds, each read while the one before it is out: every
    /// target once, in device order, and the fan-out done at the end.
    @Test func eachRoundIsReadWhileTheOneBeforeItIsOut() async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (parts, sqlite) = try await Self.fanOutOnSQLite(in: directory)
        let writes = SettleWrites(sqlite)
        let provider = Parts.provider()
        #expect(try await parts.deliverAll(provider, through: writes, claimBatch: 5, now: 1010) == 4)
        let inDeviceOrder = (0..<Self.devices).sorted { "device-\($0)" < "device-\($1)" }
        #expect(
            provider.deliveries.compactMap(\.target.token) == inDeviceOrder.map { String(format: "%064x", $0 + 1) },
            "each once, in device order")
        // The first round read alone; the second and third each while the one before it was out; a last read
        // after the third's receipts finds nothing more.
        #expect(writes.reads.map(\.rows.count) == [0, 0, 0, 0])
        #expect(
            writes.reads.map { $0.read(fanOut: ActivityKey("alert-BTC"), timestamp: 1010) } == [
                .fromCursor, .after("device-2"), .after("device-7"), .fromCursor,
            ])
        #expect(try await sqlite.outboxStatus().depth == 0, "the fan-out is done")
    }

    /// A fan-out that ends exactly at a round's end, its last targets read ahead without knowing they were the
    /// last: the read after their receipts finds it spent, and nothing is left behind.
    @Test func aFanOutEndingAtARoundsEndLeavesNothingBehind() async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (parts, sqlite) = try await Self.fanOutOnSQLite(devices: 10, in: directory)
        let provider = Parts.provider()
        #expect(try await parts.deliverAll(provider, claimBatch: 5, now: 1010) == 4)
        #expect(Set(provider.deliveries.compactMap(\.target.token)).count == 10)
        #expect(provider.deliveries.count == 10)
        #expect(try await sqlite.outboxStatus().depth == 0, "nothing left behind")
    }

    /// A round whose receipts are not written leaves its targets to be sent again; the round read meanwhile is
    /// not taken, and nothing is lost.
    @Test func aRoundWhoseReceiptsFailIsSentAgainAndItsReadAheadDropped() async throws {
        let directory = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (parts, sqlite) = try await Self.fanOutOnSQLite(in: directory)
        let writes = SettleWrites(sqlite, failing: 1)
        let provider = Parts.provider()
        await #expect(throws: StoreFailure.self) {
            try await parts.deliverAll(provider, through: writes, claimBatch: 5, now: 1010)
        }
        #expect(provider.deliveries.count == 5, "the first round went out; its receipts were not written")
        #expect(try await parts.deliverAll(provider, through: writes, claimBatch: 5, now: 1010) == 4)
        let tokens = provider.deliveries.compactMap(\.target.token)
        #expect(Set(tokens).count == Self.devices, "none lost")
        #expect(tokens.count == Self.devices + 5, "the failed round's five again, nothing else twice")
        #expect(try await sqlite.outboxStatus().depth == 0)
    }
}

/// A gate a test opens once.
final class Gate: Sendable {
    private let state = Atomic(false)
    var isOpen: Bool { state.load(ordering: .relaxed) }
    func open() { state.store(true, ordering: .relaxed) }
}

/// Answers the first target at once and every other once `open` says so (it waits, never blocking a thread).
final class GatedProvider: SingleTargetProvider {
    let traits = ProviderTraits(
        kind: .apns, addressing: .apnsTokens(environment: nil), maxConcurrentDeliveries: 1,
        deliversWithoutTargets: false)
    private let open: @Sendable () -> Bool
    private let answers = Mutex<[String]>([])

    init(open: @escaping @Sendable () -> Bool) { self.open = open }

    var answered: Int { answers.withLock { $0.count } }
    /// The tokens answered, in order.
    var tokens: [String] { answers.withLock { $0 } }

    func deliver(_ push: LiveActivityPush, to target: PushTarget) async -> DeliveryOutcome {
        if answered > 0 {
            let deadline = ContinuousClock.now + .seconds(10)
            while !open(), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(1)) }
        }
        answers.withLock { $0.append(target.token ?? "") }
        return .delivered
    }
}

/// The delivery stage's store, counting its receipt writes and the pushes each records as sent.
private final class SettleWrites: OutboxStore, ActivityStore {
    private let base: SQLiteStore
    private let seen = Mutex<(writes: Int, sent: [PushID], firstSent: Int?, reads: [OutboxInFlight], failing: Int)>(
        (0, [], nil, [], 0))

    /// The first `failing` receipt writes fail.
    init(_ base: SQLiteStore, failing: Int = 0) {
        self.base = base
        seen.withLock { $0.failing = failing }
    }

    /// What was in flight at each read of due rows.
    var reads: [OutboxInFlight] { seen.withLock { $0.reads } }

    var location: String { base.location }
    var count: Int { seen.withLock { $0.writes } }
    var sent: [PushID] { seen.withLock { $0.sent } }
    /// The write (from 0) that first recorded a push as sent.
    var firstSent: Int? { seen.withLock { $0.firstSent } }

    func settleOutbox(
        done: [OutboxEntry], later: [OutboxEntry], started: [DeviceStart], sent: [SentPush], cursors: [FanOutCursor],
        now: Int
    ) async throws(StoreFailure) {
        let fails = seen.withLock {
            guard $0.failing == 0 else {
                $0.failing -= 1
                return true
            }
            if !sent.isEmpty, $0.firstSent == nil { $0.firstSent = $0.writes }
            $0.sent += sent.map { PushID(activity: $0.activity, timestamp: $0.timestamp) }
            $0.writes += 1
            return false
        }
        if fails { throw StoreFailure(path: location, message: "settling outbox rows: disk I/O error") }
        try await base.settleOutbox(done: done, later: later, started: started, sent: sent, cursors: cursors, now: now)
    }

    func commitRelease(
        throttleStates: [(key: ActivityKey, json: Data, pending: Bool)], outbox entries: [OutboxEntry],
        fanOuts: [OutboxFanOut], rewrites: [OutboxRewrite], drops: [OutboxEntry], history: HistoryWrite?,
        paces: StartPaces
    ) async throws(StoreFailure) {
        try await base.commitRelease(
            throttleStates: throttleStates, outbox: entries, fanOuts: fanOuts, rewrites: rewrites, drops: drops,
            history: history, paces: paces)
    }
    func dueOutbox(now: Int, limit: Int, after inFlight: OutboxInFlight) async throws(StoreFailure) -> [OutboxEntry] {
        seen.withLock { $0.reads.append(inFlight) }
        return try await base.dueOutbox(now: now, limit: limit, after: inFlight)
    }
    func waitingOutbox(activities: [ActivityKey]) async throws(StoreFailure) -> [OutboxEntry] {
        try await base.waitingOutbox(activities: activities)
    }
    func completeOutbox(_ rows: [OutboxEntry]) async throws(StoreFailure) { try await base.completeOutbox(rows) }
    func outboxStatus() async throws(StoreFailure) -> (depth: Int, nextAttempt: Int?) {
        try await base.outboxStatus()
    }
    func activities(_ keys: [ActivityKey]) async throws(StoreFailure) -> [ActivityKey: ActivityRecord] {
        try await base.activities(keys)
    }
    func allActivities() async throws(StoreFailure) -> [ActivityRecord] { try await base.allActivities() }
    func save(_ records: [ActivityRecord]) async throws(StoreFailure) { try await base.save(records) }
    func markActive(_ keys: [ActivityKey]) async throws(StoreFailure) { try await base.markActive(keys) }
    func deviceStates(_ starts: [DeviceStart]) async throws(StoreFailure) -> [DeviceStart: ActivityDevice] {
        try await base.deviceStates(starts)
    }
    func activityDevices(_ activity: ActivityKey) async throws(StoreFailure) -> [ActivityDevice] {
        try await base.activityDevices(activity)
    }
    func history(activity: String, from: Int, limit: Int) async throws(StoreFailure) -> (
        rows: [HistoryRow], truncated: Bool
    ) {
        try await base.history(activity: activity, from: from, limit: limit)
    }
    func activities(of entities: [EntityKey]) async throws(StoreFailure) -> [EntityKey: [ActivityRecord]] {
        try await base.activities(of: entities)
    }
    func runningActivities(of entities: [EntityKey]) async throws(StoreFailure) -> [EntityKey: [ActivityRecord]] {
        try await base.runningActivities(of: entities)
    }
    func subscriptionAlerts(of entities: [EntityKey]) async throws(StoreFailure) -> [EntityKey: [SubscriptionAlerts]] {
        try await base.subscriptionAlerts(of: entities)
    }
}
