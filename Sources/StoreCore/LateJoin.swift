public import LiveRelayCore

/// A device that may have joined an entity late: it subscribed to the entity, or registered a push-to-start
/// token while subscribed to it. The store keeps one per device and entity until a release round has looked
/// whether the entity has a running activity to start on the device.
public struct LateJoin: Sendable, Hashable {
    public var device: String
    public var entity: EntityKey
    /// When (UNIX seconds) the device subscribed, or registered the token.
    public var at: Int

    /// A join.
    public init(device: String, entity: EntityKey, at: Int) {
        self.device = device
        self.entity = entity
        self.at = at
    }
}

/// What a late join comes to: a start for the device of each activity of its entity that runs, with the
/// activity's attributes as at its start and its content-state as last handed to the sender; or, for each
/// activity it does not start and for a join with no activity at all, the reason. Pure.
///
/// Whether the device runs the activity already (it reported the activity's token) or was started on it
/// is not decided here: the delivery round's ``StartGuard`` looks at every start, a late joiner's too.
public enum LateJoinDecision: Sendable, Hashable {
    case start(LiveActivityPush)
    case skip(LateJoin, activity: ActivityKey?, reason: Reason)

    /// Why a late join started nothing.
    public enum Reason: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// No activity of the entity is known.
        case noActivity = "no activity runs for the entity"
        /// The activity has ended: it is never started anew this way.
        case ended = "the activity has ended"
        /// The rule file that started the activity says `late-join: none`.
        case turnedOff = "its rule file says late-join: none"
        /// The device joined before the activity started: the start itself goes to it.
        case beforeStart = "the device joined before the activity started, and its start goes to it"
        /// The record predates what a late start needs (its start's attributes).
        case startUnknown = "the activity's start is not known (it began before LiveRelay kept it)"
        /// The activity is a subscription's own (a personal rule's): it runs on that subscription's device alone.
        case personal = "the activity is another subscription's own"

        public var description: String { rawValue }

        /// The reason's name in metrics (`outcome`).
        public var label: String {
            switch self {
            case .noActivity: "no-activity"
            case .ended: "ended"
            case .beforeStart: "before-start"
            case .turnedOff: "turned-off"
            case .startUnknown: "start-unknown"
            case .personal: "personal"
            }
        }
    }

    /// The rule ids a late joiner's start carries.
    public static let ruleIDs = [ReservedRuleID.lateJoin]

    /// The decisions for `joins`, given the activities of their entities (each activity's record whose
    /// ``ActivityRecord/entity`` is the join's entity), in join order, then activity-key order.
    public static func decide(_ joins: [LateJoin], activities: [EntityKey: [ActivityRecord]]) -> [LateJoinDecision] {
        var out: [LateJoinDecision] = []
        for join in joins {
            let records = (activities[join.entity] ?? []).sorted { $0.key < $1.key }
            if records.isEmpty { out.append(.skip(join, activity: nil, reason: .noActivity)) }
            for record in records {
                out.append(decide(join, record))
            }
        }
        return out
    }

    private static func decide(_ join: LateJoin, _ record: ActivityRecord) -> LateJoinDecision {
        guard record.phase != .ended else { return .skip(join, activity: record.key, reason: .ended) }
        // The start's targets are read when the throttle releases it, at or after its decision: a device that
        // joined before the decision is among them.
        guard join.at >= record.startedAt ?? Int.min else {
            return .skip(join, activity: record.key, reason: .beforeStart)
        }
        guard let start = record.start else { return .skip(join, activity: record.key, reason: .startUnknown) }
        guard start.subscription == nil else { return .skip(join, activity: record.key, reason: .personal) }
        guard start.lateJoin else { return .skip(join, activity: record.key, reason: .turnedOff) }
        var push = LiveActivityPush(
            activity: record.key, attributesType: record.attributesType, event: .start,
            timestamp: record.lastTimestamp, contentState: record.state, attributes: start.attributes,
            alert: start.alert, priority: .high, ruleIDs: ruleIDs, entity: join.entity)
        push.device = join.device
        return .start(push)
    }
}
