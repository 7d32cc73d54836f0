public import Foundation
public import LiveRelayCore

/// What every part of a store has: where it is, for messages (a file path, or `PostgreSQL host:port/db`).
///
/// A store is one object in several roles (``StateStore``): each stage of the pipeline takes only the roles
/// it uses, so what it may read and write is in its type.
public protocol StoreRole: AnyObject, Sendable {
    /// Where it is, for messages: a file path, or `PostgreSQL host:port/db`.
    var location: String { get }
}

/// A feed's memory between polls: its facts, validators and schedule, and the commit of one poll.
public protocol FeedStore: StoreRole {
    /// The last facts seen for every entity of a feed.
    func facts(feed: String) async throws(StoreFailure) -> [String: Facts]
    /// The last facts of these entities (those the feeds still have).
    func facts(of entities: Set<EntityKey>) async throws(StoreFailure) -> [EntityKey: Facts]
    /// The HTTP validators saved for a feed's last successful poll.
    func validators(feed: String) async throws(StoreFailure) -> (etag: String?, lastModified: String?)
    /// Saves one poll's outcome in one transaction (facts, validators, activities, throttle states, history).
    func commit(_ commit: FeedCommit) async throws(StoreFailure)
    /// A feed's saved schedule (failures, not-before and why); `nil` when none was saved.
    func feedSchedule(feed: String) async throws(StoreFailure) -> SavedFeedSchedule?
    /// Saves a feed's schedule after a poll.
    func saveFeedSchedule(feed: String, _ schedule: SavedFeedSchedule) async throws(StoreFailure)
}

/// Activity records, their devices and their history.
public protocol ActivityStore: StoreRole {
    /// The records of the given activities (absent ones are left out).
    func activities(_ keys: [ActivityKey]) async throws(StoreFailure) -> [ActivityKey: ActivityRecord]
    /// Every activity record, by key.
    func allActivities() async throws(StoreFailure) -> [ActivityRecord]
    /// Saves records whole, except `sent_at` (only receipts set it); their timer rules are looked at again.
    func save(_ records: [ActivityRecord]) async throws(StoreFailure)
    /// Makes pending activities active (their start was delivered).
    func markActive(_ keys: [ActivityKey]) async throws(StoreFailure)
    /// What is known of these starts: when each was started, and when the device reported a token.
    func deviceStates(_ starts: [DeviceStart]) async throws(StoreFailure) -> [DeviceStart: ActivityDevice]
    /// Every device an activity was started on or reported a token from, by device.
    func activityDevices(_ activity: ActivityKey) async throws(StoreFailure) -> [ActivityDevice]
    /// An activity's history from `from` on, the newest `limit` rows when there are more.
    func history(activity: String, from: Int, limit: Int) async throws(StoreFailure) -> (
        rows: [HistoryRow], truncated: Bool
    )
    /// The records of the activities whose entity (``ActivityRecord/entity``) is one of `entities`, by entity.
    func activities(of entities: [EntityKey]) async throws(StoreFailure) -> [EntityKey: [ActivityRecord]]
    /// As ``activities(of:)``, only those not ended (pending or active): an entity keeps every alert it ever
    /// had, and what runs is read from an index of its own.
    func runningActivities(of entities: [EntityKey]) async throws(StoreFailure) -> [EntityKey: [ActivityRecord]]
    /// The activities subscriptions started for `entities`, counted by owner, by entity (an entity with none
    /// is absent): ``SubscriptionAlerts/tally(_:)`` of ``activities(of:)``, without reading the records (an
    /// entity keeps every alert it ever had).
    func subscriptionAlerts(of entities: [EntityKey]) async throws(StoreFailure) -> [EntityKey: [SubscriptionAlerts]]
}

/// What the timer rules look at: live activities and when their rules are next due.
public protocol TimerStore: StoreRole {
    /// Live activities whose timer rules may be due at `now` (every live one when `now` is nil).
    func timerSubjects(attributesTypes: Set<String>, now: Int?, rules: String, limit: Int?)
        async throws(StoreFailure) -> [TimerSubject]
    /// The earliest due time of a live activity's timer rules (`0`: one is not looked at yet).
    func nextTimerDue() async throws(StoreFailure) -> Int?
    /// Saves what a timer pass changed in one transaction.
    func saveTimerPass(
        activities: [ActivityRecord], looks: [(key: ActivityKey, looks: [String: Int], due: Int?)],
        due: [(key: ActivityKey, at: Int?)], throttleStates: [(key: ActivityKey, json: Data, pending: Bool)],
        history: HistoryWrite?
    ) async throws(StoreFailure)
}

/// The throttle's saved states (JSON) and the push-to-start windows.
public protocol ThrottleStore: StoreRole {
    /// Saved throttle states (JSON): every one, or only those with a pending push.
    func throttleStates(pendingOnly: Bool) async throws(StoreFailure) -> [ActivityKey: Data]
    /// The saved throttle states of these activities.
    func throttleStates(_ keys: [ActivityKey]) async throws(StoreFailure) -> [ActivityKey: Data]
    /// Saves throttle states, noting which have a pending push.
    func saveThrottleStates(_ states: [(key: ActivityKey, json: Data, pending: Bool)]) async throws(StoreFailure)
    /// The saved push-to-start windows (send times) of these keys (see `PushToStartPacer.key`).
    func startPaces(_ keys: [String]) async throws(StoreFailure) -> [String: [Int]]
}

/// Released pushes waiting for their receipts: rows, fan-outs and their cursors.
public protocol OutboxStore: StoreRole {
    /// Saves released pushes with the throttle states that released them, in one transaction (see
    /// ``SQLiteStore/commitRelease(throttleStates:outbox:fanOuts:rewrites:drops:history:paces:)``).
    /// `paces` are the push-to-start windows the release changed (their send times; a window empty by
    /// `paces.keepFrom` is removed), saved in the same transaction, so the next process, or another worker,
    /// paces starts from them.
    /// `fanOuts` are pushes to every update token of their activities, stored once (``OutboxFanOut``).
    func commitRelease(
        throttleStates: [(key: ActivityKey, json: Data, pending: Bool)], outbox entries: [OutboxEntry],
        fanOuts: [OutboxFanOut], rewrites: [OutboxRewrite], drops: [OutboxEntry], history: HistoryWrite?,
        paces: StartPaces
    ) async throws(StoreFailure)
    /// Rows due now for this worker to send, in release order. On a shared store they are claimed: no other
    /// worker gets them until they are settled or the claim expires.
    ///
    /// `inFlight` is a round this worker has out, read before and not settled yet: the rows read now are
    /// the next round's, none of its rows and none of its fan-outs' targets up to the last it holds (on a
    /// shared store its claims already keep them out). A fan-out whose last target it holds is left for its
    /// receipts to finish.
    func dueOutbox(now: Int, limit: Int, after inFlight: OutboxInFlight) async throws(StoreFailure) -> [OutboxEntry]
    /// Every row waiting for these activities, due or not.
    func waitingOutbox(activities: [ActivityKey]) async throws(StoreFailure) -> [OutboxEntry]
    /// Removes rows after their final receipts, unless a newer push replaced one meanwhile.
    func completeOutbox(_ rows: [OutboxEntry]) async throws(StoreFailure)
    /// Records final and temporary receipts, starts, last-sent times and fan-outs' cursors in one transaction.
    func settleOutbox(
        done: [OutboxEntry], later: [OutboxEntry], started: [DeviceStart], sent: [SentPush],
        cursors: [FanOutCursor], now: Int)
        async throws(StoreFailure)
    /// How many rows wait, and when the earliest is due.
    func outboxStatus() async throws(StoreFailure) -> (depth: Int, nextAttempt: Int?)
}

/// The token registry: push-to-start and update tokens, plain subscriptions, late joins, dropped tokens, and
/// the registry reads a release makes.
public protocol RegistryStore: StoreRole {
    /// Stores (or rotates) a push-to-start token; `false` when it was dropped before.
    @discardableResult
    func registerPushToStartToken(
        device: String, attributesType: String, token: String, environment: PushEnvironment, now: Int
    ) async throws(StoreFailure) -> Bool
    /// Stores (or rotates) an activity's update token from a device.
    @discardableResult
    func registerActivityToken(
        activity: ActivityKey, device: String, token: String, environment: PushEnvironment, now: Int
    ) async throws(StoreFailure) -> ActivityTokenRegistration
    func removePushToStartToken(device: String, attributesType: String) async throws(StoreFailure)
    func removeActivityToken(activity: ActivityKey, device: String) async throws(StoreFailure)
    /// Imports many activity tokens in one transaction, as registering each would (``ActivityTokenAdmission``:
    /// dropped tokens and tokens of ended activities are skipped). Returns how many were stored.
    @discardableResult
    func importActivityTokens(
        _ tokens: [(activity: ActivityKey, device: String, token: String, environment: PushEnvironment)], now: Int
    ) async throws(StoreFailure) -> Int
    /// Makes a device follow an entity at `now`. A new subscription is also a ``LateJoin`` (as is a
    /// push-to-start token registered or rotated for a device that follows entities), until
    /// ``finishLateJoins(_:)``.
    func subscribe(device: String, to entity: EntityKey, now: Int) async throws(StoreFailure)
    /// Stops a device following an entity (and forgets its late join there).
    func unsubscribe(device: String, from entity: EntityKey) async throws(StoreFailure)
    /// The late joins not yet looked at, oldest entity first, at most `limit`.
    func lateJoins(limit: Int) async throws(StoreFailure) -> [LateJoin]
    /// Forgets late joins that were looked at.
    func finishLateJoins(_ joins: [LateJoin]) async throws(StoreFailure)
    /// The devices that follow `entity` (plain subscriptions), in device order.
    func subscribedDevices(entity: EntityKey) async throws(StoreFailure) -> [String]
    func pushToStartTokens(entity: EntityKey, attributesType: String, environment: PushEnvironment?)
        async throws(StoreFailure) -> [RegisteredToken]
    func activityTokens(activity: ActivityKey, environment: PushEnvironment?) async throws(StoreFailure)
        -> [RegisteredToken]
    /// Removes a token wherever it is registered and remembers it, so it is never stored again.
    func dropToken(_ token: String, reason: String, now: Int) async throws(StoreFailure)
    func isDropped(_ token: String) async throws(StoreFailure) -> Bool
    /// Answers a provider's registry query in one read.
    func registryRows(_ query: RegistryQuery) async throws(StoreFailure) -> RegistryRows
    /// Answers many registry queries, in order (a release round's pushes); a store that can reads them in
    /// one go.
    func registryRows(_ queries: [RegistryQuery]) async throws(StoreFailure) -> [RegistryRows]
}

/// Personal subscriptions: a device following an entity with its own parameters.
public protocol SubscriptionStore: StoreRole {
    /// Creates a subscription, or changes its parameters (its device and entity stay: a write naming others
    /// is a ``SubscriptionWrite/conflict(_:)`` and writes nothing). A subscription follows its entity for its
    /// own activities only: it is not a plain subscription and records no late join.
    func putSubscription(_ subscription: Subscription, now: Int) async throws(StoreFailure) -> SubscriptionWrite
    /// Writes many subscriptions, each as ``putSubscription(_:now:)`` would (SQLite: one transaction per
    /// 50,000); returns how many were refused as conflicts.
    @discardableResult
    func importSubscriptions(_ subscriptions: [Subscription], now: Int) async throws(StoreFailure) -> Int
    /// The subscription of this id, if there is one.
    func subscription(id: String) async throws(StoreFailure) -> Subscription?
    /// Deletes a subscription and keeps it as a ``DeletedSubscription`` until ``finishDeletedSubscriptions(_:)``
    /// (its activities are to end); `false` when there was none.
    @discardableResult
    func deleteSubscription(id: String, now: Int) async throws(StoreFailure) -> Bool
    /// The subscriptions of these entities, by entity, each entity's in id order.
    func subscriptions(of entities: [EntityKey]) async throws(StoreFailure) -> [EntityKey: [Subscription]]
    /// How many times the subscriptions of each entity were written (created, changed or deleted), by entity;
    /// an entity never subscribed to is absent. A reader that keeps an entity's subscriptions reads them
    /// again when this moved.
    func subscriptionGenerations(of entities: [EntityKey]) async throws(StoreFailure) -> [EntityKey: Int]
    /// The deleted subscriptions of `feed` whose activities are still to end, oldest first, at most `limit`.
    func deletedSubscriptions(feed: String, limit: Int) async throws(StoreFailure) -> [DeletedSubscription]
    /// Forgets deletions whose activities were ended.
    func finishDeletedSubscriptions(_ deleted: [DeletedSubscription]) async throws(StoreFailure)
    /// What a poll of `feed` asks of its subscriptions, in one read where the store can: the generations of
    /// `entities` (``subscriptionGenerations(of:)``) and the deletions still to end
    /// (``deletedSubscriptions(feed:limit:)``).
    func subscriptionChanges(of entities: [EntityKey], feed: String, limit: Int) async throws(StoreFailure)
        -> (generations: [EntityKey: Int], deleted: [DeletedSubscription])
}

/// The addresses of providers other than APNs (FCM tokens, Pushwoosh hwids, Getui client ids).
public protocol AddressStore: StoreRole {
    @discardableResult
    func registerAddress(_ record: RegisteredAddress, now: Int) async throws(StoreFailure) -> Bool
    func removeAddress(device: String, provider: String) async throws(StoreFailure)
    func addresses(provider: String, devices: [String]) async throws(StoreFailure) -> [String: RegisteredAddress]
    func addresses(provider: String) async throws(StoreFailure) -> [RegisteredAddress]
    func registerActivityAddress(activity: ActivityKey, provider: String, address: String) async throws(StoreFailure)
    func removeActivityAddress(activity: ActivityKey, provider: String) async throws(StoreFailure)
    func activityAddress(activity: ActivityKey, provider: String) async throws(StoreFailure) -> String?
    func dropAddress(_ address: String, provider: String, reason: String, now: Int) async throws(StoreFailure)
}

/// APNs broadcast channels and their subscribers.
public protocol ChannelStore: StoreRole {
    func addChannelSubscribers(_ started: [ActivityKey: Int]) async throws(StoreFailure)
    func channel(for activity: ActivityKey) async throws(StoreFailure) -> ActivityChannel?
    func channels() async throws(StoreFailure) -> [ActivityChannel]
    func channelsDue(now: Int) async throws(StoreFailure) -> [ActivityChannel]
    func channelCount() async throws(StoreFailure) -> Int
    func saveChannel(_ channel: ActivityChannel) async throws(StoreFailure)
    func scheduleChannelDeletion(activity: ActivityKey, at time: Int) async throws(StoreFailure)
    @discardableResult
    func removeChannel(_ id: String) async throws(StoreFailure) -> ActivityKey?
    func removeChannels(_ ids: [String]) async throws(StoreFailure)
    func setChannelSubscriber(device: String, _ subscriber: Bool, now: Int) async throws(StoreFailure)
}

/// Provider tokens (signed JWTs) shared by the workers of a store.
public protocol ProviderTokenStore: StoreRole {
    /// The saved provider token (a signed JWT) for `key`; read once, at a provider's first request.
    func providerToken(key: String) async -> (token: String, issuedAt: Int)?
    /// Saves a newly minted provider token and returns the token to use: this one, or one another worker
    /// sharing the store minted less than 20 minutes before it (APNs refuses a new token sooner).
    @discardableResult
    func saveProviderToken(key: String, token: String, issuedAt: Int) async -> (token: String, issuedAt: Int)
}

/// The schema steps a store applied.
public protocol SchemaStore: StoreRole {
    /// The schema steps applied, in order.
    func appliedMigrations() async throws(StoreFailure) -> [String]
}

extension ActivityStore {
    public func history(activity: String, from: Int) async throws(StoreFailure) -> (
        rows: [HistoryRow], truncated: Bool
    ) {
        try await history(activity: activity, from: from, limit: 20_000)
    }

    public func activities(_ keys: some Collection<ActivityKey>) async throws(StoreFailure)
        -> [ActivityKey: ActivityRecord]
    {
        try await activities(Array(keys))
    }
}

extension TimerStore {
    public func timerSubjects(attributesTypes: Set<String>) async throws(StoreFailure) -> [TimerSubject] {
        try await timerSubjects(attributesTypes: attributesTypes, now: nil, rules: "", limit: nil)
    }

    public func saveTimerPass(
        activities: [ActivityRecord], looks: [(key: ActivityKey, looks: [String: Int], due: Int?)] = [],
        due: [(key: ActivityKey, at: Int?)] = [], throttleStates: [(key: ActivityKey, json: Data, pending: Bool)]
    ) async throws(StoreFailure) {
        try await saveTimerPass(
            activities: activities, looks: looks, due: due, throttleStates: throttleStates, history: nil)
    }
}

extension ThrottleStore {
    public func throttleStates() async throws(StoreFailure) -> [ActivityKey: Data] {
        try await throttleStates(pendingOnly: false)
    }

    public func throttleStates(_ keys: some Collection<ActivityKey>) async throws(StoreFailure) -> [ActivityKey: Data] {
        try await throttleStates(Array(keys))
    }
}

extension OutboxStore {
    /// Rows due now, at most 10,000.
    public func dueOutbox(now: Int) async throws(StoreFailure) -> [OutboxEntry] {
        try await dueOutbox(now: now, limit: 10_000)
    }

    /// Rows due now, at most `limit`, with no round out.
    public func dueOutbox(now: Int, limit: Int) async throws(StoreFailure) -> [OutboxEntry] {
        try await dueOutbox(now: now, limit: limit, after: OutboxInFlight())
    }

    public func settleOutbox(done: [OutboxEntry], later: [OutboxEntry], started: [DeviceStart], now: Int)
        async throws(StoreFailure)
    {
        try await settleOutbox(done: done, later: later, started: started, sent: [], cursors: [], now: now)
    }

    public func settleOutbox(
        done: [OutboxEntry], later: [OutboxEntry], started: [DeviceStart], sent: [SentPush], now: Int
    ) async throws(StoreFailure) {
        try await settleOutbox(done: done, later: later, started: started, sent: sent, cursors: [], now: now)
    }

    public func commitRelease(
        throttleStates: [(key: ActivityKey, json: Data, pending: Bool)], outbox entries: [OutboxEntry],
        history: HistoryWrite? = nil
    ) async throws(StoreFailure) {
        try await commitRelease(
            throttleStates: throttleStates, outbox: entries, fanOuts: [], rewrites: [], drops: [], history: history,
            paces: StartPaces())
    }

    public func commitRelease(
        throttleStates: [(key: ActivityKey, json: Data, pending: Bool)], outbox entries: [OutboxEntry],
        rewrites: [OutboxRewrite], drops: [OutboxEntry], history: HistoryWrite?
    ) async throws(StoreFailure) {
        try await commitRelease(
            throttleStates: throttleStates, outbox: entries, fanOuts: [], rewrites: rewrites, drops: drops,
            history: history, paces: StartPaces())
    }

    public func waitingOutbox(activities: some Collection<ActivityKey>) async throws(StoreFailure) -> [OutboxEntry] {
        try await waitingOutbox(activities: Array(activities))
    }
}

extension RegistryStore {
    /// One query at a time.
    public func registryRows(_ queries: [RegistryQuery]) async throws(StoreFailure) -> [RegistryRows] {
        var rows: [RegistryRows] = []
        for query in queries { rows.append(try await registryRows(query)) }
        return rows
    }
}

extension SubscriptionStore {
    public func subscriptionChanges(of entities: [EntityKey], feed: String, limit: Int) async throws(StoreFailure)
        -> (generations: [EntityKey: Int], deleted: [DeletedSubscription])
    {
        let generations = entities.isEmpty ? [:] : try await subscriptionGenerations(of: entities)
        return (generations, try await deletedSubscriptions(feed: feed, limit: limit))
    }
}
