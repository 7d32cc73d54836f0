import Foundation
import LiveRelayCore
import PostgresStore
import Store
import Testing

/// One behaviour every ``StateStore`` must have, checked against a fresh, empty store.
struct StoreCheck: Sendable, CustomTestStringConvertible {
    var name: String
    var body: @Sendable (any StateStore) async throws -> Void
    var testDescription: String { name }
}

/// The stores the contract runs against: a new SQLite file, or a new schema on the test PostgreSQL.
enum StoreUnderTest {
    static func sqlite(_ body: (any StateStore) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liverelay-contract-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try await body(try SQLiteStore(path: dir.appendingPathComponent("state.sqlite").path))
    }

    static func postgres(_ body: (any StateStore) async throws -> Void) async throws {
        try await TestDatabase.with(migrate: false) { stores in
            try await stores[0].open()
            try await body(stores[0])
        }
    }
}

@Suite("State store contract: SQLite")
struct SQLiteStoreContractTests {
    @Test(
        arguments: StoreContract.checks + StoreContract.outboxChecks + StoreContract.fanOutChecks
            + StoreContract.lateJoinChecks + StoreContract.subscriptionChecks)
    func holds(_ check: StoreCheck) async throws {
        try await StoreUnderTest.sqlite(check.body)
    }
}

@Suite(
    "State store contract: PostgreSQL", .enabled(if: TestDatabase.available, Comment(rawValue: TestDatabase.absent)))
struct PostgresStoreContractTests {
    @Test(
        arguments: StoreContract.checks + StoreContract.outboxChecks + StoreContract.fanOutChecks
            + StoreContract.lateJoinChecks + StoreContract.subscriptionChecks)
    func holds(_ check: StoreCheck) async throws {
        try await StoreUnderTest.postgres(check.body)
    }
}

/// The contract: what the worker relies on from its store, whichever it is.
enum StoreContract {
    static let match = EntityKey(feed: "espn", id: "760499")
    static let key = ActivityKey("match:760499")

    static func record(
        _ key: ActivityKey = key, phase: ActivityPhase = .active, last: Int = 10, started: Int? = 5,
        timers: [String: Int] = [:]
    ) -> ActivityRecord {
        ActivityRecord(
            key: key, attributesType: "MatchAttributes", phase: phase,
            state: .object(["home": .int(1), "note": .string("ünïcode ✓")]), lastTimestamp: last, entity: match,
            startedAt: started, facts: .object(["score": .decimal(Decimal(string: "1.25")!)]), timers: timers,
            changedAt: started.map { _ in 8 })
    }

    static func row(
        _ target: String, _ timestamp: Int, activity: ActivityKey = key, kind: String = "activity", next: Int = 0,
        device: String? = nil
    ) -> OutboxEntry {
        OutboxEntry(
            key: OutboxKey(activity: activity, target: target), kind: kind, device: device, environment: "production",
            push: Data(#"{"t":\#(timestamp)}"#.utf8), timestamp: timestamp, nextAttempt: next,
            address: ProviderAddress(device: nil, user: "u-\(target)"), provider: "apns")
    }

    static let checks: [StoreCheck] = [
        StoreCheck(name: "a poll's facts, validators and schedule read back") { store in
            try await store.commit(
                FeedCommit(
                    feed: "espn", now: 100, facts: ["1": Facts(["a": .int(1)]), "2": Facts(["b": .string("x")])],
                    etag: "\"e1\"", lastModified: "Tue", activities: [record()]))
            #expect(try await store.facts(feed: "espn").keys.sorted() == ["1", "2"])
            #expect(try await store.validators(feed: "espn") == ("\"e1\"", "Tue"))
            try await store.commit(FeedCommit(feed: "espn", now: 200, facts: [:], removedEntities: ["2"]))
            #expect(try await store.facts(feed: "espn").keys.sorted() == ["1"])
            #expect(try await store.validators(feed: "espn") == (nil, nil), "a poll's validators replace the last")
            let one = EntityKey(feed: "espn", id: "1")
            #expect(try await store.facts(of: [one, EntityKey(feed: "espn", id: "9")]) == [one: Facts(["a": .int(1)])])
            #expect(
                try await store.feedSchedule(feed: "espn")
                    == SavedFeedSchedule(failures: 0, notBefore: nil, reason: nil))
            #expect(try await store.feedSchedule(feed: "never") == nil)
            let waiting = SavedFeedSchedule(failures: 2, notBefore: 500, reason: "backoff after 2 failures")
            try await store.saveFeedSchedule(feed: "espn", waiting)
            #expect(try await store.feedSchedule(feed: "espn") == waiting)
            #expect(try await store.validators(feed: "espn") == (nil, nil))
        },
        StoreCheck(name: "activity records read back whole, and only receipts set sent-at and the delivered state") {
            store in
            let other = ActivityKey("match:1")
            try await store.save([record(timers: ["r": 7]), record(other, phase: .pending, started: nil)])
            let read = try await store.activities([key, other, ActivityKey("none")])
            #expect(read[key] == record(timers: ["r": 7]))
            #expect(read[key]?.changedAt == 8)
            #expect(read.count == 2)
            #expect(try await store.allActivities().map(\.key) == [other, key], "by key")
            let newer = SentPush(activity: key, timestamp: 10, state: ["home": 2, "note": "ünïcode ✓"])
            let older = SentPush(activity: key, timestamp: 9, state: ["home": 1])
            try await store.settleOutbox(done: [], later: [], started: [], sent: [older, newer], now: 300)
            try await store.settleOutbox(done: [], later: [], started: [], sent: [older], now: 301)
            try await store.save([record(last: 11)])
            let saved = try await store.activities([key])[key]
            #expect(saved?.sentAt == 301, "a save keeps sent-at")
            #expect(saved?.delivered == DeliveredState(timestamp: 10, state: newer.state), "the newest push delivered")
            #expect(saved?.deliveredState == newer.state)
            try await store.markActive([other, key])
            let after = try await store.activities([key, other])
            #expect(after[other]?.phase == .active)
            #expect(after[key]?.lastTimestamp == 11)
        },
        StoreCheck(name: "timer subjects: not yet looked at first, then the earliest due; rules changes look again") {
            store in
            let a = ActivityKey("a")
            let b = ActivityKey("b")
            let c = ActivityKey("c")
            try await store.save([record(a), record(b), record(c), record(ActivityKey("ended"), phase: .ended)])
            #expect(try await store.nextTimerDue() == 0, "unseen activities are due at once")
            let all = try await store.timerSubjects(
                attributesTypes: ["MatchAttributes"], now: 50, rules: "r1", limit: 10)
            #expect(Set(all.map(\.activity)) == [a, b, c])
            try await store.saveTimerPass(
                activities: [], looks: [(key: a, looks: ["r": 40], due: 90)],
                due: [(key: b, at: 70), (key: c, at: nil)],
                throttleStates: [], history: nil)
            #expect(try await store.nextTimerDue() == 70)
            #expect(
                try await store.timerSubjects(attributesTypes: ["MatchAttributes"], now: 60, rules: "r1", limit: 10)
                    .isEmpty)
            let due = try await store.timerSubjects(
                attributesTypes: ["MatchAttributes"], now: 95, rules: "r1", limit: 10)
            #expect(due.map(\.activity) == [b, a], "earliest due first")
            #expect(due.last?.looks == ["r": 40])
            try await store.save([record(c)])
            let first = try await store.timerSubjects(
                attributesTypes: ["MatchAttributes"], now: 95, rules: "r1", limit: 1)
            #expect(first.map(\.activity) == [c], "a record written is looked at first")
            let changed = try await store.timerSubjects(
                attributesTypes: ["MatchAttributes"], now: 60, rules: "r2", limit: 10)
            #expect(changed.count == 3, "new timer rules look at every live activity")
            #expect(try await store.timerSubjects(attributesTypes: ["Other"], now: nil, rules: "", limit: nil).isEmpty)
        },
        StoreCheck(name: "timer subjects carry the activity's last state change and when named facts changed") {
            store in
            let facts = Facts(["home": ["score": 1]])
            try await store.commit(
                FeedCommit(
                    feed: match.feed, now: 20, facts: [match.id: facts], activities: [record()],
                    factChanges: [match.id: ["home.score", "status"]]))
            try await store.commit(FeedCommit(feed: match.feed, now: 30, facts: [match.id: facts]))
            try await store.commit(
                FeedCommit(
                    feed: match.feed, now: 40, facts: [match.id: facts], factChanges: [match.id: ["home.score"]]))
            let subject = try await store.timerSubjects(
                attributesTypes: ["MatchAttributes"], now: nil, rules: "", limit: nil
            ).first
            #expect(subject?.changedAt == 40)
            #expect(subject?.activityChangedAt == 8)
            #expect(subject?.factsChangedAt == ["home.score": 40, "status": 20], "merged, a poll without changes kept")
        },
        StoreCheck(name: "throttle states: the last written wins; pending ones are found") { store in
            try await store.saveThrottleStates([
                (key: key, json: Data("{\"v\":1}".utf8), pending: true),
                (key: ActivityKey("b"), json: Data("{}".utf8), pending: false),
                (key: key, json: Data("{\"v\":2}".utf8), pending: true),
            ])
            #expect(try await store.throttleStates(pendingOnly: true) == [key: Data("{\"v\":2}".utf8)])
            #expect(try await store.throttleStates(pendingOnly: false).count == 2)
            #expect(try await store.throttleStates([ActivityKey("b"), ActivityKey("x")]).keys.map(\.rawValue) == ["b"])
        },
        StoreCheck(name: "channels: saved, counted, scheduled once, due, removed") { store in
            let other = ActivityKey("b")
            try await store.saveChannel(
                ActivityChannel(activity: key, provider: "apns", id: "ch/1", storagePolicy: 1, createdAt: 10))
            try await store.saveChannel(
                ActivityChannel(activity: other, provider: "apns", id: "ch2", storagePolicy: 0, createdAt: 11))
            try await store.addChannelSubscribers([key: 3])
            try await store.addChannelSubscribers([key: 2])
            #expect(try await store.channel(for: key)?.subscribers == 5)
            #expect(try await store.channelCount() == 2)
            try await store.scheduleChannelDeletion(activity: key, at: 100)
            try await store.scheduleChannelDeletion(activity: key, at: 200)
            #expect(try await store.channelsDue(now: 150).map(\.id) == ["ch/1"])
            #expect(try await store.channels().map(\.activity) == [key, other].sorted())
            #expect(try await store.removeChannel("ch/1") == key)
            #expect(try await store.removeChannel("ch/1") == nil)
            try await store.removeChannels(["ch2", "unknown"])
            #expect(try await store.channelCount() == 0)
            try await store.setChannelSubscriber(device: "d", true, now: 1)
            try await store.setChannelSubscriber(device: "d", false, now: 2)
        },
        StoreCheck(name: "history: kept for the window, newest rows when limited, in written order") { store in
            let rows = (0..<5).map {
                HistoryRow(activity: "a", at: 100 + $0, kind: .look, body: Data("{\"i\":\($0)}".utf8))
            }
            try await store.commit(
                FeedCommit(feed: "f", now: 1, facts: nil, history: HistoryWrite(rows: rows, keepFrom: 0)))
            let limited = try await store.history(activity: "a", from: 0, limit: 3)
            #expect(limited.rows.map(\.at) == [102, 103, 104])
            #expect(limited.truncated)
            try await store.commitRelease(
                throttleStates: [], outbox: [], rewrites: [], drops: [],
                history: HistoryWrite(
                    rows: [HistoryRow(activity: "a", at: 200, kind: .release, body: Data("{}".utf8))], keepFrom: 103))
            let kept = try await store.history(activity: "a", from: 0, limit: 100)
            #expect(kept.rows.map(\.at) == [103, 104, 200])
            #expect(kept.rows.last?.kind == .release)
            #expect(!kept.truncated)
        },
        StoreCheck(name: "push-to-start windows are saved with a release; an empty one goes") { store in
            try await store.commitRelease(
                throttleStates: [], outbox: [], fanOuts: [], rewrites: [], drops: [], history: nil,
                paces: StartPaces(windows: ["T a": [100, 160], "T b": [150]], keepFrom: 90))
            #expect(try await store.startPaces(["T a", "T b", "T c"]) == ["T a": [100, 160], "T b": [150]])
            try await store.commitRelease(
                throttleStates: [], outbox: [], fanOuts: [], rewrites: [], drops: [], history: nil,
                paces: StartPaces(windows: ["T c": [200]], keepFrom: 155))
            #expect(
                try await store.startPaces(["T a", "T b", "T c"]) == ["T a": [100, 160], "T c": [200]],
                "windows whose last start left the window are removed")
        },
        StoreCheck(name: "provider tokens and migrations") { store in
            #expect(await store.providerToken(key: "apns") == nil)
            await store.saveProviderToken(key: "apns", token: "jwt", issuedAt: 5)
            #expect(await store.providerToken(key: "apns")?.token == "jwt")
            let applied = try await store.appliedMigrations()
            #expect(!applied.isEmpty)
        },
    ]
}
