import Foundation
import LiveRelayCore
import Store
import Testing

@Suite struct SQLiteStoreTests {
    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("liverelay-test-\(UUID().uuidString).sqlite").path
    }

    @Test func factsAndActivitiesSurviveReopening() async throws {
        let path = Self.temporaryPath()
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        var facts = Facts()
        facts.set("price", .decimal(Decimal(string: "67187.33")!))
        facts.set("home.score", 2)
        let record = ActivityRecord(
            key: "match-1", attributesType: "MatchAttributes", phase: .active, state: ["homeScore": 2],
            lastTimestamp: 42)
        do {
            let store = try SQLiteStore(path: path)
            try await store.commit(
                FeedCommit(feed: "f", now: 1, facts: ["1": facts, "2": facts], etag: "\"v1\"", activities: [record]))
            try await store.commit(FeedCommit(feed: "f", now: 2, facts: [:], removedEntities: ["2"]))
        }
        let reopened = try SQLiteStore(path: path)
        #expect(try await reopened.facts(feed: "f") == ["1": facts])
        #expect(try await reopened.facts(feed: "other").isEmpty)
        #expect(try await reopened.activities(["match-1", "missing"]) == ["match-1": record])
        #expect(try await reopened.validators(feed: "f").etag == nil, "the second commit saved no validators")
        #expect(try await reopened.allActivities() == [record])
    }

    /// What rules read as `activity` survives reopening; `sent-at` comes only from receipts, so saving a
    /// record read before them never puts it back; the timer pass reads live activities with the time their
    /// entity last changed and the activity's phase and times.
    /// What a start carried (attributes, every part of its alert, its subscription) reads back as it was, and
    /// a start as Foundation's coder wrote it before is read too.
    @Test func anActivitysStartReadsBackAsItWas() async throws {
        let path = Self.temporaryPath()
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        let store = try SQLiteStore(path: path)
        let starts = [
            ActivityStart(
                attributes: ["symbol": "BTCUSDT", "level": .decimal(Decimal(string: "100000.5")!), "tags": ["a", 1]],
                alert: LiveActivityAlert(
                    title: "t \"q\" é", body: "b", sound: "default", titleLocKey: "TK", titleLocArgs: ["1", "2"],
                    locKey: "K", locArgs: []),
                lateJoin: false,
                subscription: SubscriptionOwner(id: "sub-c", device: "iphone-c", createdAt: 1_795_531_000)),
            ActivityStart(attributes: .emptyObject, alert: nil, lateJoin: true),
        ]
        let records = starts.enumerated().map { i, start in
            ActivityRecord(
                key: ActivityKey("a\(i)"), attributesType: "T", phase: .pending, state: ["p": 1], lastTimestamp: 42,
                start: start)
        }
        try await store.save(records)
        let read = try await store.activities(["a0", "a1"])
        #expect(read["a0"]?.start == starts[0])
        #expect(read["a1"]?.start == starts[1])
        let stored = try #require(StoredValues.start(starts[0]))
        #expect(try JSONParser.parse(stored) == JSONParser.parse(try starts[0].canonicalJSON()), "the same JSON")
        let before = String(decoding: try starts[0].canonicalJSON(), as: UTF8.self)
        let corrupt = try? StoredValues.record(
            key: "a0", attributesType: "T", phase: "pending", state: "{}", lastTimestamp: 1, entityFeed: nil,
            entityID: nil, startedAt: nil, facts: nil, sentAt: nil, timers: nil, changedAt: nil, deliveredState: nil,
            deliveredTimestamp: nil, start: #"{"attributes": {}, "late-join": "yes"}"#, location: "x")
        #expect(corrupt == nil, "a start that is not one is a corrupt record")
        let old = try StoredValues.record(
            key: "a0", attributesType: "T", phase: "pending", state: "{}", lastTimestamp: 1, entityFeed: nil,
            entityID: nil, startedAt: nil, facts: nil, sentAt: nil, timers: nil, changedAt: nil, deliveredState: nil,
            deliveredTimestamp: nil, start: before, location: "x")
        #expect(old.start == starts[0])
    }

    @Test func theActivityViewAndTheTimerSubjectsAreKept() async throws {
        let path = Self.temporaryPath()
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        let entity = EntityKey(feed: "f", id: "1")
        let record = ActivityRecord(
            key: "m-1", attributesType: "Match", phase: .active, state: ["home": 1], lastTimestamp: 700,
            entity: entity, startedAt: 600, facts: ["home": ["score": 1]], timers: ["calm": 660])
        let ended = ActivityRecord(
            key: "m-2", attributesType: "Match", phase: .ended, state: [:], lastTimestamp: 700, entity: entity,
            startedAt: 600)
        let store = try SQLiteStore(path: path)
        try await store.commit(
            FeedCommit(feed: "f", now: 650, facts: ["1": Facts(["home": ["score": 1]])], activities: [record, ended]))
        try await store.settleOutbox(
            done: [], later: [], started: [], sent: [SentPush(activity: "m-1", timestamp: 700, state: ["home": 1])],
            now: 710)
        try await store.save([record])
        var expected = record
        expected.sentAt = 710
        expected.delivered = DeliveredState(timestamp: 700, state: ["home": 1])
        let reopened = try SQLiteStore(path: path)
        #expect(try await reopened.activities(["m-1"]) == ["m-1": expected])
        #expect(
            try await reopened.timerSubjects(attributesTypes: ["Match"]) == [
                TimerSubject(
                    activity: "m-1", attributesType: "Match", entity: entity, startedAt: 600, looks: ["calm": 660],
                    changedAt: 650, phase: "active", pushedAt: 700, sentAt: 710)
            ])
        #expect(try await reopened.timerSubjects(attributesTypes: ["Other"]).isEmpty)
        #expect(try await reopened.facts(of: [entity, EntityKey(feed: "f", id: "gone")]).keys.sorted() == [entity])
    }

    /// A timer pass reads only the live activities whose stored due time came; one written whole since its
    /// last look is read at once, and all are read again when the timer rules change.
    @Test func timerPassesReadOnlyWhatIsDue() async throws {
        let path = Self.temporaryPath()
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        let store = try SQLiteStore(path: path)
        let records = (1...3).map { i in
            ActivityRecord(
                key: ActivityKey("m-\(i)"), attributesType: "Match", phase: .active, state: [:], lastTimestamp: 600,
                entity: EntityKey(feed: "f", id: "\(i)"), startedAt: 600)
        }
        try await store.commit(FeedCommit(feed: "f", now: 600, facts: nil, activities: records))
        func read(_ now: Int, rules: String = "every 60") async throws -> [String] {
            try await store.timerSubjects(attributesTypes: ["Match"], now: now, rules: rules).map(\.activity.rawValue)
                .sorted()
        }
        #expect(try await read(610) == ["m-1", "m-2", "m-3"], "never looked at: all are read")
        #expect(try await store.nextTimerDue() == 0)
        try await store.saveTimerPass(
            activities: [], due: [("m-1", 660), ("m-2", 900), ("m-3", nil)], throttleStates: [])
        #expect(try await store.nextTimerDue() == 660)
        #expect(try await read(659).isEmpty)
        #expect(try await read(660) == ["m-1"])
        #expect(try await read(5000) == ["m-1", "m-2"], "no timer rule applies to m-3")
        func first(_ now: Int) async throws -> [String] {
            try await store.timerSubjects(attributesTypes: ["Match"], now: now, rules: "every 60", limit: 1)
                .map(\.activity.rawValue)
        }
        #expect(try await first(5000) == ["m-1"], "a batch takes the earliest due first")
        try await store.save([records[1]])
        #expect(try await read(661) == ["m-1", "m-2"], "written whole: looked at again")
        #expect(try await first(5000) == ["m-2"], "before any due time, one not looked at since it was written")
        #expect(try await read(661, rules: "every 30") == ["m-1", "m-2", "m-3"], "other rules: all again")
    }

    /// A delivered start makes the activity active without writing its record: its timer rules may read the
    /// phase (a pass may have set their next look far ahead while it was pending), so it is read again.
    @Test func anActivityMadeActiveIsLookedAtAgain() async throws {
        let path = Self.temporaryPath()
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        let store = try SQLiteStore(path: path)
        let record = ActivityRecord(
            key: "m-1", attributesType: "Match", phase: .pending, state: [:], lastTimestamp: 600,
            entity: EntityKey(feed: "f", id: "1"), startedAt: 600)
        try await store.commit(FeedCommit(feed: "f", now: 600, facts: nil, activities: [record]))
        _ = try await store.timerSubjects(attributesTypes: ["Match"], now: 600, rules: "every 60")
        try await store.saveTimerPass(activities: [], due: [("m-1", 8_000)], throttleStates: [])
        #expect(try await store.timerSubjects(attributesTypes: ["Match"], now: 700, rules: "every 60").isEmpty)
        try await store.markActive(["m-1"])
        let again = try await store.timerSubjects(attributesTypes: ["Match"], now: 700, rules: "every 60")
        #expect(again.map(\.phase) == ["active"])
    }

    /// The state file holds device tokens and the live APNs provider token: it and its -wal and -shm files
    /// are readable by their owner only, whether new or made by an older version with mode 0644.
    /// A state file deleted, replaced or truncated under the running process: every read and write fails
    /// with what happened, instead of answering from (and writing into) a file no one will read again.
    /// An activity's history (what the live report draws) is written with the decisions, read per activity in
    /// the order written, cut to the newest rows when asked for fewer, and pruned to the window by each write.
    @Test func historyIsKeptPerActivityForTheWindowOnly() async throws {
        let path = Self.temporaryPath()
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        let store = try SQLiteStore(path: path)
        func row(_ activity: String, _ at: Int, _ kind: HistoryRow.Kind = .look) -> HistoryRow {
            HistoryRow(activity: activity, at: at, kind: kind, body: Data(#"{"n":\#(at)}"#.utf8))
        }
        try await store.commit(
            FeedCommit(
                feed: "f", now: 100, facts: nil,
                history: HistoryWrite(rows: [row("a", 100), row("b", 100), row("a", 100, .release)], keepFrom: 0)))
        try await store.commitRelease(
            throttleStates: [], outbox: [], history: HistoryWrite(rows: [row("a", 200, .release)], keepFrom: 0))
        try await store.saveTimerPass(
            activities: [], throttleStates: [], history: HistoryWrite(rows: [row("a", 300)], keepFrom: 0))
        let all = try await store.history(activity: "a", from: 0)
        #expect(all.rows.map(\.at) == [100, 100, 200, 300])
        #expect(all.rows.map(\.kind) == [.look, .release, .release, .look])
        #expect(!all.truncated)
        #expect(try await store.history(activity: "a", from: 150).rows.map(\.at) == [200, 300])
        let newest = try await store.history(activity: "a", from: 0, limit: 2)
        #expect(newest.rows.map(\.at) == [200, 300])
        #expect(newest.truncated)
        #expect(try await store.history(activity: "b", from: 0).rows.map(\.body) == [Data(#"{"n":100}"#.utf8)])
        // A write with nothing to add prunes nothing; one keeping from 250 removes what came before, for
        // every activity.
        try await store.commit(
            FeedCommit(feed: "f", now: 400, facts: nil, history: HistoryWrite(rows: [], keepFrom: 250)))
        #expect(try await store.history(activity: "b", from: 0).rows.count == 1)
        try await store.commit(
            FeedCommit(feed: "f", now: 400, facts: nil, history: HistoryWrite(rows: [row("a", 400)], keepFrom: 250)))
        #expect(try await store.history(activity: "a", from: 0).rows.map(\.at) == [300, 400])
        #expect(try await store.history(activity: "b", from: 0).rows.isEmpty)
    }

    @Test(arguments: ["deleted", "replaced", "truncated"])
    func aStateFileGoneFromUnderTheStoreIsRefused(fault: String) async throws {
        let path = Self.temporaryPath()
        defer { for s in ["", "-wal", "-shm", "-other"] { try? FileManager.default.removeItem(atPath: path + s) } }
        let store = try SQLiteStore(path: path)
        try await store.subscribe(device: "iphone-a", to: EntityKey(feed: "f", id: "1"), now: 0)
        switch fault {
        case "deleted":
            try FileManager.default.removeItem(atPath: path)
        case "replaced":
            _ = try SQLiteStore(path: path + "-other")
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.moveItem(atPath: path + "-other", toPath: path)
        default:
            #expect(truncate(path, 0) == 0)
        }
        let words = ["deleted": "is gone", "replaced": "was replaced", "truncated": "was truncated"][fault]!
        await #expect {
            try await store.subscribe(device: "iphone-b", to: EntityKey(feed: "f", id: "1"), now: 0)
        } throws: { error in
            "\(error)".contains(words) && "\(error)".contains("restart the worker")
        }
        await #expect(throws: SQLiteStore.Failure.self) { _ = try await store.outboxStatus() }
    }

    @Test func theStateFileIsReadableByItsOwnerOnly() async throws {
        let path = Self.temporaryPath()
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        func mode(_ file: String) throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) ?? -1
        }
        do {
            let store = try SQLiteStore(path: path)
            try await store.commit(FeedCommit(feed: "f", now: 1, facts: ["1": Facts(["n": 1])]))
            for suffix in ["", "-wal", "-shm"] { #expect(try mode(path + suffix) == 0o600, "\(suffix)") }
        }
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path + suffix)
        }
        _ = try SQLiteStore(path: path)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            #expect(try mode(path + suffix) == 0o600, "\(suffix) made private again")
        }
    }

    @Test func anUnwritablePathIsAClearError() {
        #expect {
            try SQLiteStore(path: "/nonexistent-dir/x.sqlite")
        } throws: { error in
            "\(error)".contains("(the folder /nonexistent-dir does not exist)")
        }
    }
}
