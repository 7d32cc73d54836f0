/// Where a Live Activity is in its life, as LiveRelay knows it.
public enum ActivityPhase: String, Sendable, Hashable, Codable {
    /// A start was decided and handed to the sender, not yet delivered.
    case pending
    /// Started; updates go to it.
    case active
    /// Ended; further updates are dropped until a new start.
    case ended
}

/// What LiveRelay remembers of one Live Activity between changes (and between cron ticks): the last full
/// content-state it sent and the last timestamp it used, and what rules read of it as `activity`.
///
/// Its fields sit behind one reference (``CopyOnWrite``), as a ``LiveActivityPush``'s do: a record is
/// copied from the store to the views, the ledger and the commit.
public struct ActivityRecord: Sendable, Hashable, Codable {
    /// The stored fields (their names are the record's JSON keys).
    struct Fields: Sendable, Hashable, Codable {
        var key: ActivityKey
        var attributesType: String
        var phase: ActivityPhase
        var state: JSONValue
        var lastTimestamp: Int
        var entity: EntityKey?
        var startedAt: Int?
        var facts: JSONValue?
        var sentAt: Int?
        var timers: [String: Int]
        var changedAt: Int?
        var delivered: DeliveredState?
        var start: ActivityStart?
    }

    @CopyOnWrite private var fields: Fields

    public var key: ActivityKey {
        get { fields.key }
        _modify { yield &fields.key }
    }
    public var attributesType: String {
        get { fields.attributesType }
        _modify { yield &fields.attributesType }
    }
    public var phase: ActivityPhase {
        get { fields.phase }
        _modify { yield &fields.phase }
    }
    /// The full content-state last handed to the sender.
    public var state: JSONValue {
        get { fields.state }
        _modify { yield &fields.state }
    }
    /// The `timestamp` of the last push; the next one must be greater.
    public var lastTimestamp: Int {
        get { fields.lastTimestamp }
        _modify { yield &fields.lastTimestamp }
    }
    /// The entity whose change made the last push (what timer rules read as `entity`); `nil` for records
    /// written before LiveRelay kept it.
    public var entity: EntityKey? {
        get { fields.entity }
        _modify { yield &fields.entity }
    }
    /// The timestamp of the start push of the activity's current life.
    public var startedAt: Int? {
        get { fields.startedAt }
        _modify { yield &fields.startedAt }
    }
    /// The entity's facts when the last push was decided.
    public var facts: JSONValue? {
        get { fields.facts }
        _modify { yield &fields.facts }
    }
    /// When (UNIX seconds) a push of this activity last reached a device or the provider, as its receipt was
    /// written; the store sets it, the ledger only reads it.
    public var sentAt: Int? {
        get { fields.sentAt }
        _modify { yield &fields.sentAt }
    }
    /// When each timer rule last came due for this activity, by rule id.
    public var timers: [String: Int] {
        get { fields.timers }
        _modify { yield &fields.timers }
    }
    /// The timestamp of the last push that changed the content-state (its start included): a push that
    /// repeats the state (a refresh renewing the stale date) leaves it. `nil` for records written before
    /// LiveRelay kept it.
    public var changedAt: Int? {
        get { fields.changedAt }
        _modify { yield &fields.changedAt }
    }
    /// The newest push of this activity that reached a device or the provider: its timestamp and
    /// content-state. The store sets it with ``sentAt``; the ledger only carries it.
    public var delivered: DeliveredState? {
        get { fields.delivered }
        _modify { yield &fields.delivered }
    }
    /// What the start of the activity's current life carried that a late joiner's start carries again (its
    /// attributes and alert), and whether its rule file starts late joiners; `nil` for records written
    /// before LiveRelay kept it.
    public var start: ActivityStart? {
        get { fields.start }
        _modify { yield &fields.start }
    }

    public init(
        key: ActivityKey, attributesType: String, phase: ActivityPhase, state: JSONValue, lastTimestamp: Int,
        entity: EntityKey? = nil, startedAt: Int? = nil, facts: JSONValue? = nil, sentAt: Int? = nil,
        timers: [String: Int] = [:], changedAt: Int? = nil, delivered: DeliveredState? = nil,
        start: ActivityStart? = nil
    ) {
        fields = Fields(
            key: key, attributesType: attributesType, phase: phase, state: state, lastTimestamp: lastTimestamp,
            entity: entity, startedAt: startedAt, facts: facts, sentAt: sentAt, timers: timers,
            changedAt: changedAt, delivered: delivered, start: start)
    }

    public init(from decoder: any Decoder) throws { fields = try Fields(from: decoder) }

    public func encode(to encoder: any Encoder) throws { try fields.encode(to: encoder) }

    public static func == (a: ActivityRecord, b: ActivityRecord) -> Bool {
        a.$fields.shares(b.$fields) || a.fields == b.fields
    }

    public func hash(into hasher: inout Hasher) { fields.hash(into: &hasher) }

    /// The content-state of the newest push of the activity's current life that got through (`nil` when none
    /// has since its start).
    public var deliveredState: JSONValue? {
        guard let delivered, delivered.timestamp >= (startedAt ?? Int.min) else { return nil }
        return delivered.state
    }
}

/// A push that got through, as an activity's record keeps it: its timestamp and content-state.
public struct DeliveredState: Sendable, Hashable, Codable {
    public var timestamp: Int
    public var state: JSONValue

    public init(timestamp: Int, state: JSONValue) {
        self.timestamp = timestamp
        self.state = state
    }
}

/// What an activity's start carried, kept with its record so a device that subscribes to the entity after
/// the start (a late joiner) can be started with the same attributes, beside the current content-state.
public struct ActivityStart: Sendable, Hashable, Codable {
    /// The static attributes of the start.
    public var attributes: JSONValue
    /// The start's alert (a push-to-start shows one).
    public var alert: LiveActivityAlert?
    /// Whether the rule file of the rule that started the activity starts late joiners (`late-join`).
    public var lateJoin: Bool
    /// The subscription whose rules started the activity (a rule file that declares `subscription`): the
    /// activity is that subscription's own, on its device alone.
    public var subscription: SubscriptionOwner?

    public init(
        attributes: JSONValue, alert: LiveActivityAlert?, lateJoin: Bool, subscription: SubscriptionOwner? = nil
    ) {
        self.attributes = attributes
        self.alert = alert
        self.lateJoin = lateJoin
        self.subscription = subscription
    }

    enum CodingKeys: String, CodingKey {
        case attributes, alert, subscription
        case lateJoin = "late-join"
    }
}
