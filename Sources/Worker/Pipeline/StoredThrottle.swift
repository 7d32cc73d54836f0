public import Foundation
public import LiveRelayCore
public import StoreCore
public import Throttling

/// The throttle between the ledger and the sender: the pure ``Throttle`` as an actor whose state is loaded
/// from and saved to the store (SQLite or PostgreSQL), so a cron tick continues the budget and the held pushes
/// of the previous one, and a worker taking the polls over continues the last poller's. Each push draws from the request rate of the provider it goes to
/// (its lane in the throttle).
public actor StoredThrottle {
    private var throttle: Throttle
    /// The throttle's settings.
    public nonisolated let configuration: ThrottleConfiguration
    /// Push-to-start pacing per device token and attributes type: the windows of the devices it has seen,
    /// read from the store before a device's next start and saved with each release.
    private var pacer: PushToStartPacer
    /// The windows a start was admitted to since the last release was saved.
    private var pacesChanged = Set<String>()
    /// Broadcast pacing per channel (in memory too).
    private var broadcasts = BroadcastPacer()
    private let store: any ThrottleStore
    private var dirty = Set<ActivityKey>()
    /// Activities a load of the poller's decision found no saved state for, since the last ``takeChanges()``:
    /// the reads of one decision (the activity view's budget, the decider's load, the submit) ask the store
    /// once (``load(_:deciding:)``). Forgotten at each save, at a reset and past ``absentLimit``, so a state
    /// another process saves later is read then.
    private var absent = Set<ActivityKey>()
    private static let absentLimit = 100_000
    private let loading = AsyncGate()

    /// Loads the saved throttle states that have a pending push; the others are read when a push or a
    /// frequent-updates report touches their activity, so a worker over many idle activities stays small.
    /// - Parameter loadPending: `false` for a worker that does not poll yet (another worker's throttle holds
    ///   those pushes): it starts empty, and ``reset(loadPending:)`` loads them when it takes over.
    public init(
        store: any ThrottleStore, configuration: ThrottleConfiguration,
        pushToStart: PushToStartPacer = PushToStartPacer(),
        loadPending: Bool = true
    ) async throws(StoreFailure) {
        pacer = pushToStart
        self.store = store
        self.configuration = configuration
        throttle = Throttle(configuration: configuration)
        if loadPending {
            throttle.restore(try Self.decode(try await store.throttleStates(pendingOnly: true), store: store))
        }
    }

    /// Forgets every state held in memory (they are saved) and, with `loadPending`, loads the saved states
    /// that have a pending push: what a worker does when it takes the feeds over from another (whose
    /// throttle moved on meanwhile), or hands them over (`loadPending` false: it holds nothing then).
    public func reset(loadPending: Bool) async throws(StoreFailure) {
        try await loading.through { () async throws(StoreFailure) in
            throttle = Throttle(configuration: configuration)
            pacer = PushToStartPacer(limit: pacer.limit, window: pacer.window)
            pacesChanged.removeAll()
            dirty.removeAll()
            absent.removeAll()
            if loadPending {
                throttle.restore(try Self.decode(try await store.throttleStates(pendingOnly: true), store: store))
            }
        }
    }

    private static func decode(_ rows: [ActivityKey: Data], store: any ThrottleStore) throws(StoreFailure)
        -> [ActivityKey: ActivityThrottleState]
    {
        let decoder = JSONValueDecoder()
        var states: [ActivityKey: ActivityThrottleState] = [:]
        for (key, json) in rows {
            guard let state = try? decoder.decode(ActivityThrottleState.self, stored: json) else {
                throw StoreFailure(path: store.location, message: "throttle state of \(key) is corrupt")
            }
            states[key] = state
        }
        return states
    }

    /// Reads the saved states of the activities the throttle does not hold yet. Loads go one at a time, and
    /// every path that makes a state loads first, so a state is never made while its saved row is on the way.
    public func load(_ keys: some Collection<ActivityKey>) async throws(StoreFailure) {
        try await load(keys, deciding: false)
    }

    /// As ``load(_:)``; with `deciding`, a load of the poller's decision (the activity view's budget, the
    /// decider's load, the submit), which ends with a save (``takeChanges()``): an activity a load of the same
    /// decision found no saved state for is not asked for again. Any other load (the API's, the channel
    /// collector's) asks, and on a worker that does not poll nothing is remembered.
    public func load(_ keys: some Collection<ActivityKey>, deciding: Bool) async throws(StoreFailure) {
        guard keys.contains(where: { !throttle.knows($0) && !(deciding && absent.contains($0)) }) else { return }
        try await loading.through { () async throws(StoreFailure) in
            let missing = Set(
                keys.lazy.filter { !self.throttle.knows($0) && !(deciding && self.absent.contains($0)) })
            guard !missing.isEmpty else { return }
            let saved = try Self.decode(try await store.throttleStates(missing), store: store)
            throttle.restore(saved)
            guard deciding else {
                absent.subtract(missing)
                return
            }
            if absent.count + missing.count > Self.absentLimit { absent.removeAll() }
            for key in missing where saved[key] == nil { absent.insert(key) }
        }
    }

    /// Hands pushes to the throttle; a push for an activity with one pending merges into it.
    public func submit(_ pushes: [PendingPush], now: Int) async throws(StoreFailure) -> [SubmitOutcome] {
        try await load(pushes.map(\.push.activity), deciding: true)
        return pushes.map { p in
            dirty.insert(p.push.activity)
            return throttle.submit(p, now: now)
        }
    }

    /// Releases what may go now, most relevant first, each push within the rate of the provider it goes to:
    /// `lane` names a push's provider id, whose rate in ``configuration``'s lanes it draws from.
    public func release(now: Int, lane: @Sendable (LiveActivityPush) -> String = { _ in "" }) -> [ThrottleDecision] {
        let decisions = throttle.release(now: now, lane: lane)
        for d in decisions {
            switch d {
            case .send(let push, _): dirty.insert(push.activity)
            case .held(let key, _, _): dirty.insert(key)
            }
        }
        return decisions
    }

    /// When a start may go to this device: now, or once its push-to-start window allows another. The
    /// device's saved window is read first (``loadStartPaces(_:)``).
    public func admitStart(token: String, attributesType: String, now: Int) -> Int {
        let key = PushToStartPacer.key(token: token, attributesType: attributesType)
        let verdict = pacer.admit(key: key, now: now)
        if case .allow = verdict { pacesChanged.insert(key) }
        switch verdict {
        case .allow: return now
        case .deferUntil(let t): return t
        }
    }

    /// What paces a target of a release round: its device's push-to-start window, its channel's broadcast
    /// pace, or nothing.
    public enum Pace: Sendable {
        case none
        case start(token: String, attributesType: String)
        case broadcast(channel: String, limit: Int, window: Int)
    }

    /// When each of a round's targets may go, in order (``admitStart(token:attributesType:now:)`` and
    /// ``admitBroadcast(channel:limit:window:now:)`` for each): one call for the round.
    public func admit(_ paces: [Pace], now: Int) -> [Int] {
        paces.map { pace in
            switch pace {
            case .none: now
            case .start(let token, let attributesType):
                admitStart(token: token, attributesType: attributesType, now: now)
            case .broadcast(let channel, let limit, let window):
                admitBroadcast(channel: channel, limit: limit, window: window, now: now)
            }
        }
    }

    /// Reads the saved push-to-start windows of these devices (`(token, attributes type)`) that the pacer
    /// does not hold yet: a previous process's starts, or another worker's, count.
    public func loadStartPaces(_ starts: [(token: String, attributesType: String)]) async throws(StoreFailure) {
        let keys = Set(starts.map { PushToStartPacer.key(token: $0.token, attributesType: $0.attributesType) })
            .filter { !pacer.knows($0) }
        guard !keys.isEmpty else { return }
        let saved = try await store.startPaces(Array(keys))
        for (key, sends) in saved where !pacer.knows(key) { pacer.restore(key, sends: sends) }
    }

    /// The push-to-start windows changed since the last call, to save with the release.
    public func takeStartPaces(now: Int) -> StartPaces {
        defer { pacesChanged.removeAll() }
        var windows: [String: [Int]] = [:]
        for key in pacesChanged { windows[key] = pacer.sends(of: key) }
        return StartPaces(windows: windows, keepFrom: now - pacer.window)
    }

    /// Holds a channel APNs throttled: what is released for it goes no sooner than `until`.
    public func holdBroadcasts(channel: String, until: Int) { broadcasts.hold(channel, until: until) }

    /// When a broadcast to this channel may go: now, or once the channel's pace allows another.
    public func admitBroadcast(channel: String, limit: Int, window: Int, now: Int) -> Int {
        switch broadcasts.admit(channel: channel, limit: limit, window: window, now: now) {
        case .allow: return now
        case .deferUntil(let t): return t
        }
    }

    /// Forgets a deleted channel's pace.
    public func forgetChannel(_ channel: String) { broadcasts.forget(channel) }

    /// Records what the app reported: the user enabled frequent updates for this activity (a larger budget).
    /// Saved at once (a worker that does not poll saves nothing else), and again with the next commit.
    public func setFrequentUpdates(_ on: Bool, for activity: ActivityKey) async throws(StoreFailure) {
        try await load([activity])
        throttle.setFrequentUpdates(
            on, for: activity, attributesType: throttle.state(for: activity)?.attributesType ?? "")
        dirty.insert(activity)
        if let state = throttle.state(for: activity) {
            try await store.saveThrottleStates([(activity, state.writtenJSON(), state.pending != nil)])
        }
    }

    /// The earliest moment a pending push can go, if any is pending.
    public func nextWakeup() -> Int? { throttle.nextWakeup() }

    /// Number of pending pushes.
    public var pendingCount: Int { throttle.pendingCount }

    /// The throttle states held in memory (those with a pending push at start, and every activity touched
    /// since), by key.
    public var states: [ActivityKey: ActivityThrottleState] { throttle.states }

    /// One activity's throttle state: held in memory, else saved.
    public func state(for key: ActivityKey) async throws(StoreFailure) -> ActivityThrottleState? {
        try await load([key])
        return throttle.state(for: key)
    }

    /// Puts the saved states of `keys` back after the transaction that was to save their changes failed, so
    /// the throttle goes on from what the state file holds (a push it released but could not write to the
    /// outbox is pending again). A key with no saved state starts afresh. When the states cannot be read
    /// either, the changes stay in memory and are saved with the next transaction.
    public func revert(_ keys: some Collection<ActivityKey>) async {
        let keys = Set(keys)
        guard !keys.isEmpty else { return }
        do {
            let saved = try Self.decode(try await store.throttleStates(keys), store: store)
            var restored = saved
            for key in keys where saved[key] == nil {
                if let attributesType = throttle.state(for: key)?.attributesType {
                    restored[key] = ActivityThrottleState(attributesType: attributesType)
                }
            }
            throttle.restore(restored)
            dirty.subtract(keys)
            absent.subtract(keys)
        } catch {
            dirty.formUnion(keys)
        }
    }

    /// The states changed since the last save, encoded, for the caller to save in its own transaction.
    public func takeChanges() -> [(key: ActivityKey, json: Data, pending: Bool)] {
        var rows: [(key: ActivityKey, json: Data, pending: Bool)] = []
        rows.reserveCapacity(dirty.count)
        for key in dirty.sorted() {
            guard let state = throttle.state(for: key) else { continue }
            rows.append((key, state.writtenJSON(), state.pending != nil))
        }
        dirty.removeAll()
        absent.removeAll()
        return rows
    }
}

extension StoredThrottle {
    /// The `budget` member of `activity` for these activities (key → attributes type), their saved states
    /// read first: in `views` for each one with a state, and in `untouched`, by attributes type, the one of
    /// every activity without (a thousand new alerts share it).
    func budgetViews(_ keys: [ActivityKey: String], now: Int) async throws(StoreFailure)
        -> (views: [ActivityKey: JSONValue], untouched: [String: JSONValue])
    {
        try await load(keys.keys, deciding: true)
        var views: [ActivityKey: JSONValue] = [:]
        var untouched: [String: JSONValue] = [:]
        for (key, attributesType) in keys {
            guard let state = throttle.state(for: key) else {
                if untouched[attributesType] == nil {
                    untouched[attributesType] = ActivityView.budget(
                        nil, policy: configuration.budget(for: attributesType), now: now)
                }
                continue
            }
            views[key] = ActivityView.budget(state, policy: configuration.budget(for: state.attributesType), now: now)
        }
        return (views, untouched)
    }
}
