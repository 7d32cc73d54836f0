import Foundation
import LiveRelayCore
import LiveRelayTesting
import Store
import StoreCore
import Synchronization
import Testing
import Throttling
import Worker

/// A worker over many idle activities holds only the throttle states it needs: those with a pending push at
/// start, and those a push touches later (read then, with their saved budget).
@Suite struct StoredThrottleLoadingTests {
    static func push(_ activity: String, at t: Int) -> PendingPush {
        PendingPush(
            push: LiveActivityPush(
                activity: ActivityKey(activity), attributesType: "MatchAttributes", event: .update, timestamp: t,
                contentState: ["homeScore": .int(t)], alert: LiveActivityAlert(title: "Goal"), priority: .high),
            policy: .high, enqueuedAt: t)
    }

    @Test func onlyPendingStatesAreReadAtStartAndTheRestWhenTouched() async throws {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteStore(path: dir.appendingPathComponent("state.sqlite").path)
        let configuration = ThrottleConfiguration(
            defaultBudget: BudgetPolicy(size: 2, period: 3600, frequentUpdatesSize: 4), minimumInterval: 1)
        // First process: spends match-spent's budget, leaves a push pending on match-waiting.
        let first = try await StoredThrottle(store: store, configuration: configuration)
        _ = try await first.submit([Self.push("match-spent", at: 100)], now: 100)
        _ = await first.release(now: 100)
        _ = try await first.submit([Self.push("match-spent", at: 110)], now: 110)
        _ = await first.release(now: 110)
        _ = try await first.submit([Self.push("match-waiting", at: 120)], now: 120)
        try await store.saveThrottleStates(await first.takeChanges())

        let second = try await StoredThrottle(store: store, configuration: configuration)
        #expect(await second.states.keys.sorted() == ["match-waiting"])
        #expect(await second.pendingCount == 1)
        // The spent budget comes back with the activity's next push: it goes out downgraded.
        _ = try await second.submit([Self.push("match-spent", at: 130)], now: 130)
        #expect(await second.states.keys.sorted() == ["match-spent", "match-waiting"])
        let decisions = await second.release(now: 130)
        let spent = decisions.compactMap { d -> Bool? in
            if case .send(let p, let downgraded) = d, p.activity == "match-spent" { return downgraded }
            return nil
        }
        #expect(spent == [true])
        #expect(try await second.state(for: "match-spent")?.stats.sentHigh == 2)
        #expect(try await second.state(for: "nobody") == nil)
    }
}

/// The reads of one decision (the activity view's budget, the decider's load, the submit) ask the store once
/// for an activity that has no saved state; after a save it is asked again, so a state saved meanwhile by
/// another process is read.
@Suite struct StoredThrottleAbsentStatesTests {
    @Test func anActivityWithNoSavedStateIsAskedForOnceUntilTheNextSave() async throws {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = CountingThrottleStore(try SQLiteStore(path: dir.appendingPathComponent("state.sqlite").path))
        let throttle = try await StoredThrottle(store: store, configuration: ThrottleConfiguration())
        try await throttle.load(["match-new"], deciding: true)
        try await throttle.load(["match-new"], deciding: true)
        _ = try await throttle.submit([StoredThrottleLoadingTests.push("match-new", at: 100)], now: 100)
        #expect(store.asked == [["match-new"]], "once for the view, the decider's load and the submit")

        // A load outside a decision (the API's) asks each time.
        try await throttle.load(["match-api"])
        try await throttle.load(["match-api"])
        #expect(store.asked.suffix(2) == [["match-api"], ["match-api"]])

        try await throttle.load(["match-later"], deciding: true)
        #expect(store.asked.last == ["match-later"])
        // Another process saves a state for it; once this one has saved (the end of its decision), it reads it.
        let other = try await StoredThrottle(store: store, configuration: ThrottleConfiguration())
        _ = try await other.submit([StoredThrottleLoadingTests.push("match-later", at: 105)], now: 105)
        try await store.saveThrottleStates(await other.takeChanges())
        try await store.saveThrottleStates(await throttle.takeChanges())
        let asked = store.asked.count
        try await throttle.load(["match-later"], deciding: true)
        #expect(store.asked.count == asked + 1, "asked again after the save")
        #expect(try await throttle.state(for: "match-later")?.pending?.push.timestamp == 105)
    }
}

/// A throttle store that records each read of named states.
private final class CountingThrottleStore: ThrottleStore {
    private let base: SQLiteStore
    private let reads = Mutex<[[ActivityKey]]>([])
    init(_ base: SQLiteStore) { self.base = base }

    /// The keys of each read of named states, in order.
    var asked: [[ActivityKey]] { reads.withLock { $0 } }

    var location: String { base.location }
    func throttleStates(pendingOnly: Bool) async throws(StoreFailure) -> [ActivityKey: Data] {
        try await base.throttleStates(pendingOnly: pendingOnly)
    }
    func throttleStates(_ keys: [ActivityKey]) async throws(StoreFailure) -> [ActivityKey: Data] {
        reads.withLock { $0.append(keys.sorted()) }
        return try await base.throttleStates(keys)
    }
    func saveThrottleStates(_ states: [(key: ActivityKey, json: Data, pending: Bool)]) async throws(StoreFailure) {
        try await base.saveThrottleStates(states)
    }
    func startPaces(_ keys: [String]) async throws(StoreFailure) -> [String: [Int]] {
        try await base.startPaces(keys)
    }
}

/// Push-to-start pacing holds across processes (a cron `tick` after another) and workers: the windows are
/// saved with each release and read before a device's next start is admitted.
@Suite struct StartPaceAcrossProcessesTests {
    @Test func aSecondProcessPacesStartsFromTheFirstOnesWindows() async throws {
        let dir = try Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteStore(path: dir.appendingPathComponent("state.sqlite").path)
        let configuration = ThrottleConfiguration()
        let first = try await StoredThrottle(
            store: store, configuration: configuration, pushToStart: PushToStartPacer(limit: 1, window: 3600))
        try await first.loadStartPaces([(token: "t1", attributesType: "MatchAttributes")])
        #expect(await first.admitStart(token: "t1", attributesType: "MatchAttributes", now: 1000) == 1000)
        try await store.commitRelease(
            throttleStates: [], outbox: [], rewrites: [], drops: [], history: nil,
            paces: await first.takeStartPaces(now: 1000))

        let second = try await StoredThrottle(
            store: store, configuration: configuration, pushToStart: PushToStartPacer(limit: 1, window: 3600))
        try await second.loadStartPaces([
            (token: "t1", attributesType: "MatchAttributes"), (token: "t2", attributesType: "MatchAttributes"),
        ])
        #expect(
            await second.admitStart(token: "t1", attributesType: "MatchAttributes", now: 1500) == 4600,
            "the first process's start counts: the next waits for its window")
        #expect(await second.admitStart(token: "t2", attributesType: "MatchAttributes", now: 1500) == 1500)
        #expect(await second.takeStartPaces(now: 1500).windows == ["MatchAttributes t2": [1500]])
    }
}
