public import LiveRelayCore

/// What one alert's update or end means for the other personal activities on its entity's channel (the
/// attributes types in `channel` mode, ``shared``): a broadcast reaches every activity on the
/// channel, so the update or end a personal rule decided for one alert is decided for each alert of the same
/// entity and type still running. Their records then say what their devices show, and the outbox sends the
/// copies as one broadcast. A deleted subscription's end stays its own (the device ends it; see
/// ``lastOnChannel(_:activities:)``). Pure.
public enum ChannelShare {
    /// For each look's intents, in order, the intents to add: for each entity, type and event (update, end)
    /// a personal rule decided for an alert of a shared type, a copy of the first such intent for each other
    /// alert of that entity and type still running (`activities`: the entities' records) that has no intent
    /// of that event yet in this look or an earlier one, in key order. Empty when nothing is shared.
    public static func copies(
        of looks: [[ActivityIntent]], shared: Set<String>, activities: [EntityKey: [ActivityRecord]]
    ) -> [[ActivityIntent]] {
        var told = Set<Told>()
        // Once a group is done every alert of it running is told: it is never looked at again.
        var done = Set<Group>()
        return looks.map { intents in
            for intent in intents { told.insert(Told(activity: intent.activity, event: intent.event)) }
            var copies: [ActivityIntent] = []
            for intent in intents where spreads(intent, shared: shared) {
                guard
                    done.insert(
                        Group(entity: intent.entity, attributesType: intent.attributesType, event: intent.event)
                    )
                    .inserted
                else { continue }
                for record in running(activities[intent.entity] ?? [], attributesType: intent.attributesType)
                where told.insert(Told(activity: record.key, event: intent.event)).inserted {
                    var copy = intent
                    copy.activity = record.key
                    copy.subscription = record.start?.subscription
                    copies.append(copy)
                }
            }
            return copies
        }
    }

    /// The entities whose records ``copies(of:shared:activities:)`` needs for `intents`.
    public static func entities(of intents: [ActivityIntent], shared: Set<String>) -> Set<EntityKey> {
        Set(intents.filter { spreads($0, shared: shared) }.map(\.entity))
    }

    /// Whether the end of a deleted subscription's `activity` goes to its channel: only when no other alert
    /// of its entity and type runs there (`running`: the entity's activities not ended; a broadcast would end
    /// them all). Otherwise it is recorded ended and not sent: the app that deleted the subscription ends the
    /// activity on its device.
    public static func lastOnChannel(_ activity: ActivityKey, attributesType: String, running: [ActivityRecord])
        -> Bool
    {
        !Self.running(running, attributesType: attributesType).contains { $0.key != activity }
    }

    static func spreads(_ intent: ActivityIntent, shared: Set<String>) -> Bool {
        intent.subscription != nil && intent.event != .start && intent.ruleID != ReservedRuleID.subscriptionDeleted
            && shared.contains(intent.attributesType)
    }

    static func running(_ records: [ActivityRecord], attributesType: String) -> [ActivityRecord] {
        records.filter { $0.attributesType == attributesType && $0.phase != .ended && $0.start?.subscription != nil }
            .sorted { $0.key < $1.key }
    }

    struct Group: Hashable {
        var entity: EntityKey
        var attributesType: String
        var event: PushEvent
    }

    struct Told: Hashable {
        var activity: ActivityKey
        var event: PushEvent
    }
}
