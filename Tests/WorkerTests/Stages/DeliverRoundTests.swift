import Delivery
import Feeds
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Logging
import PostgresStore
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

    /// Workers a and b on a new schema of the test cluster (LIVERELAY_TEST_POSTGRES_URL), with their heartbeats'
    /// timeouts in seconds, and the tasks running their connection pools.
    static func workers(timeouts: (a: Int, b: Int)) throws -> (PostgresStore, PostgresStore, [Task<Void, Never>]) {
        let url = try #require(ProcessInfo.processInfo.environment["LIVERELAY_TEST_POSTGRES_URL"])
        let password = ProcessInfo.processInfo.environment["LIVERELAY_TEST_POSTGRES_PASSWORD"].map(Secret.init)
        let schema = "dr_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let a = try PostgresStore(
            .init(url: url, password: password, schema: String(schema), worker: "a", workerTimeout: timeouts.a))
        let b = try PostgresStore(
            .init(url: url, password: password, schema: String(schema), worker: "b", workerTimeout: timeouts.b))
        return (a, b, [Task { await a.run() }, Task { await b.run() }])
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

    /// On PostgreSQL a worker alone claims a whole round (``SharedClaims/batch(claimBatch:workersAlive:alone:)``),
    /// and `claim-batch` rows once another worker's heartbeat is alive.
    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment["LIVERELAY_TEST_POSTGRES_URL"] != nil,
            "PostgreSQL is not configured: eval \"$(scripts/postgres-cluster.sh start)\" and export LIVERELAY_TEST_POSTGRES_URL and LIVERELAY_TEST_POSTGRES_PASSWORD (CI does)"
        ))
    func aWorkerAloneClaimsAWholeRoundAndSharesItOtherwise() async throws {
        // A heartbeat holds for 30 s here (3 by default): under a loaded test run, seconds may pass between a
        // heartbeat and the round after it, and a lapsed worker claims nothing.
        let (a, b, pools) = try Self.workers(timeouts: (30, 30))
        defer { for pool in pools { pool.cancel() } }
        try await a.open()
        _ = try await a.heartbeat()
        let parts = try await Parts(store: a)
        try await parts.fanOutReleased(devices: Self.devices)
        let claims = SharedClaims(store: a, logger: parts.logger)

        // a alone beats: one round claims the whole fan-out, though claim-batch is 5.
        _ = try await a.heartbeat()
        _ = try await a.workersStatus()
        #expect(a.workersAlive == 1)
        let alone = Parts.provider()
        let first = try await parts.deliver(alone, claims: claims, claimBatch: 5, now: 1010)
        #expect(alone.deliveries.count == Self.devices, "the whole fan-out in one round")
        #expect(!first.full)
        // The next round finds nothing left to send (it removes a spent fan-out's row).
        let again = try await parts.deliver(alone, claims: claims, claimBatch: 5, now: 1010)
        #expect(again.deliveries.isEmpty)
        #expect(alone.deliveries.count == Self.devices, "nothing twice")
        #expect(try await a.outboxStatus().depth == 0)

        // b beats too: the next fan-out is claimed claim-batch rows a round, the rest left to either worker.
        try await parts.plan(101, 102, now: 1020)
        try await parts.release(Parts.provider(), now: 1020)
        try await b.open()
        _ = try await b.heartbeat()
        _ = try await a.heartbeat()
        _ = try await a.workersStatus()
        #expect(a.workersAlive == 2)
        let shared = Parts.provider()
        let second = try await parts.deliver(shared, claims: claims, claimBatch: 5, now: 1020)
        #expect(shared.deliveries.count == 5, "claim-batch rows")
        #expect(second.full)
        #expect(try await a.outboxStatus().depth == 1, "the fan-out, with targets left")

        // The rest in rounds, each claimed while the one before it is out: every target once.
        let rest = Parts.provider()
        // Its last chunk is claimed while another is out, so not as the last: the read after its receipts finds
        // the fan-out spent and removes it.
        #expect(try await parts.deliverAll(rest, claims: claims, claimBatch: 5, now: 1020) == 3)
        let tokens = (shared.deliveries + rest.deliveries).compactMap(\.target.token)
        #expect(tokens.count == Self.devices && Set(tokens).count == Self.devices, "each once")
        #expect(try await a.outboxStatus().depth == 0, "nothing left behind")
        try await a.dropSchema()
    }

    /// A round claimed while the one before it was out is sent as the owner that claimed it: when the worker
    /// stalled and rejoined meanwhile (its old claims given up, another worker sending them), it sends none of
    /// it, though its new incarnation's claims hold.
    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment["LIVERELAY_TEST_POSTGRES_URL"] != nil,
            "PostgreSQL is not configured: eval \"$(scripts/postgres-cluster.sh start)\" and export LIVERELAY_TEST_POSTGRES_URL and LIVERELAY_TEST_POSTGRES_PASSWORD (CI does)"
        ))
    func aRoundClaimedAheadIsNotSentAfterItsWorkerRejoined() async throws {
        // a's heartbeat holds its claims for 1.5 s (the shortest timeout, 2 s, less its margin): the test lets it
        // lapse.
        let (a, b, pools) = try Self.workers(timeouts: (2, 30))
        defer { for pool in pools { pool.cancel() } }
        try await a.open()
        let parts = try await Parts(store: a)
        try await parts.fanOutReleased(devices: Self.devices)

        // a claims 5 targets and, while they are out, the next 5 (the number of workers is not read: claim-batch
        // holds). The first is answered, the others wait.
        let gate = Gate()
        let gated = GatedProvider(open: { gate.isOpen })
        let beat = ContinuousClock.now
        _ = try await a.heartbeat()
        let claimsOfA = SharedClaims(store: a, logger: parts.logger)
        let rounds = Task {
            try await parts.deliverAll(gated, claims: claimsOfA, claimBatch: 5, now: 1010)
        }
        // Both claims made, the first target's receipt written.
        let deadline = ContinuousClock.now + .seconds(10)
        while try await a.claims(of: "a").count != 9, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(try await a.claims(of: "a").count == 9, "two rounds of 5 claimed, the first target settled")
        #expect(gated.answered == 1)

        // a's heartbeat lapses; at its next one it rejoins, giving its claims up, and b sends the rest (a round
        // takes over one lapsed chunk).
        try await Task.sleep(until: beat + .seconds(1.6))
        guard case .rejoined(_, let released) = try await a.heartbeat() else {
            Issue.record("a did not rejoin")
            rounds.cancel()
            return
        }
        #expect(released >= 2, "the two chunks a claimed")
        try await b.open()
        let byB = Parts.provider()
        let claimsOfB = SharedClaims(store: b, logger: parts.logger)
        for _ in 0..<5 {
            _ = try await b.heartbeat()
            let before = byB.deliveries.count
            _ = try await parts.deliverAll(byB, through: b, claims: claimsOfB, claimBatch: 100, now: 1010)
            if byB.deliveries.count == before { break }
        }
        let first = String(format: "%064x", 1)
        // a's rounds go on: the rest of its first round fenced, the round it claimed ahead sent as its old owner,
        // so not at all; what it claims next as its new one, b has sent.
        gate.open()
        _ = try await rounds.value
        #expect(
            gated.tokens.count == 2,
            "a sent the first target and the one in flight at its stall: \(gated.tokens.map { $0.suffix(2) })")
        let fromB = byB.deliveries.compactMap(\.target.token)
        #expect(Set(fromB + gated.tokens).count == Self.devices, "none lost")
        #expect(fromB.count == Self.devices - 1, "b sent each target a had not answered, once")
        #expect(!fromB.contains(first))
        #expect(try await a.outboxStatus().depth == 0, "nothing left behind")
        try await a.dropSchema()
    }
}

/// A gate a test opens once.
private final class Gate: Sendable {
    private let state = Atomic(false)
    var isOpen: Bool { state.load(ordering: .relaxed) }
    func open() { state.store(true, ordering: .relaxed) }
}

/// Answers the first target at once and every other once `open` says so (it waits, never blocking a thread).
private final class GatedProvider: SingleTargetProvider {
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
