import Foundation
import LiveRelayCore
import Store
import Throttling

/// The throttle between the ledger and the sender, with the provider's request rate, kept in SQLite so a
/// cron tick continues the budget and the held pushes of the previous one.
public actor PushQueue {
    private var throttle: Throttle
    /// The throttle's settings.
    public nonisolated let configuration: ThrottleConfiguration
    private var bucket: TokenBucket
    /// Push-to-start pacing per device token and attributes type (kept in memory: a new process starts afresh).
    private var pacer: PushToStartPacer
    private let store: SQLiteStore
    private var dirty = Set<ActivityKey>()

    /// Loads the saved throttle states from the store.
    public init(
        store: SQLiteStore, configuration: ThrottleConfiguration, providerRate: Double, providerBurst: Double,
        pushToStart: PushToStartPacer = PushToStartPacer()
    ) async throws(SQLiteStore.Failure) {
        pacer = pushToStart
        self.store = store
        self.configuration = configuration
        throttle = Throttle(configuration: configuration)
        bucket = TokenBucket(rate: providerRate, burst: providerBurst, now: 0)
        let decoder = JSONDecoder()
        var saved: [ActivityKey: ActivityThrottleState] = [:]
        for (key, json) in try await store.throttleStates() {
            guard let state = try? decoder.decode(ActivityThrottleState.self, from: json) else {
                throw SQLiteStore.Failure(path: store.path, message: "throttle state of \(key) is corrupt")
            }
            saved[key] = state
        }
        throttle.restore(saved)
    }

    /// Hands pushes to the throttle; a push for an activity with one pending merges into it.
    public func submit(_ pushes: [PendingPush], now: Int) -> [SubmitOutcome] {
        pushes.map { p in
            dirty.insert(p.push.activity)
            return throttle.submit(p, now: now)
        }
    }

    /// Releases what may go now, within the provider's rate.
    public func release(now: Int) -> [ThrottleDecision] {
        let allowed = bucket.available(now: Double(now))
        let decisions = throttle.release(now: now, limit: allowed)
        var sent = 0
        for d in decisions {
            switch d {
            case .send(let push, _):
                sent += 1
                dirty.insert(push.activity)
            case .held(let key, _, _): dirty.insert(key)
            }
        }
        bucket.take(sent, now: Double(now))
        return decisions
    }

    /// When a start may go to this device: now, or once its push-to-start window allows another.
    public func admitStart(token: String, attributesType: String, now: Int) -> Int {
        switch pacer.admit(token: token, attributesType: attributesType, now: now) {
        case .allow: return now
        case .deferUntil(let t): return t
        }
    }

    /// Records what the app reported: the user enabled frequent updates for this activity (a larger budget).
    public func setFrequentUpdates(_ on: Bool, for activity: ActivityKey) {
        throttle.setFrequentUpdates(on, for: activity, attributesType: throttle.states[activity]?.attributesType ?? "")
        dirty.insert(activity)
    }

    /// The earliest moment a pending push can go, if any is pending.
    public func nextWakeup() -> Int? { throttle.nextWakeup() }

    /// Number of pending pushes.
    public var pendingCount: Int { throttle.pendingCount }

    /// Every activity's throttle state, by key.
    public var states: [ActivityKey: ActivityThrottleState] { throttle.states }

    /// Saves the states changed since the last save.
    public func save() async throws(SQLiteStore.Failure) {
        try await store.saveThrottleStates(takeChanges())
    }

    /// The states changed since the last save, encoded, for the caller to save in its own transaction.
    public func takeChanges() -> [(key: ActivityKey, json: Data, pending: Bool)] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var rows: [(key: ActivityKey, json: Data, pending: Bool)] = []
        for key in dirty.sorted() {
            guard let state = throttle.states[key], let json = try? encoder.encode(state) else { continue }
            rows.append((key, json, state.pending != nil))
        }
        dirty.removeAll()
        return rows
    }
}
