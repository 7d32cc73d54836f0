import Delivery
import LiveRelayCore
import Logging
import Store
import StoreCore

/// Personal activities that share their entity's channel (``EntityChannel``, ``ChannelShare``): what one
/// alert's rule decides for the channel is decided for every alert on it, and goes out as one broadcast.
extension Pipeline {
    /// For each look's intents, the copies its entities' channels add (``ChannelShare/copies(of:shared:activities:)``),
    /// and the records of the alerts they are for, read in one trip; nothing when no type shares a channel.
    func channelShareCopies(_ intents: [[ActivityIntent]]) async throws(StoreFailure)
        -> (copies: [[ActivityIntent]], records: [ActivityKey: ActivityRecord])
    {
        let shared = Set(rules.routes.entityChannels.keys)
        let entities =
            shared.isEmpty
            ? []
            : intents.reduce(into: Set<EntityKey>()) {
                $0.formUnion(ChannelShare.entities(of: $1, shared: shared))
            }
        guard !entities.isEmpty else { return ([], [:]) }
        let activities = try await store.runningActivities(of: entities.sorted())
        let copies = ChannelShare.copies(of: intents, shared: shared, activities: activities)
        let keys = Set(copies.joined().map(\.activity))
        var records: [ActivityKey: ActivityRecord] = [:]
        for record in activities.values.joined() where keys.contains(record.key) { records[record.key] = record }
        return (copies, records)
    }

    /// The ends of deleted subscriptions' alerts that are not broadcast: each shares its entity's channel with
    /// an alert still running, which a broadcast end would end too. Recorded ended already; the app that
    /// deleted the subscription ends the activity on its device. Logged.
    func unsentChannelEnds(_ pushes: [LiveActivityPush], routes: ProviderRoutes) async throws(StoreFailure)
        -> Set<PushID>
    {
        let deleted = pushes.filter {
            $0.event == .end && $0.ruleIDs == [ReservedRuleID.subscriptionDeleted] && routes.sharesEntityChannel($0)
        }
        guard !deleted.isEmpty else { return [] }
        let running = try await store.runningActivities(of: Array(Set(deleted.compactMap(\.entity))).sorted())
        var unsent = Set<PushID>()
        for push in deleted {
            guard
                !ChannelShare.lastOnChannel(
                    push.activity, attributesType: push.attributesType, running: running[push.entity!] ?? [])
            else { continue }
            unsent.insert(push.id)
            logger.info(
                "subscription deleted: its alert shares the entity's channel with others, so no end is broadcast; the app ends it on the device",
                metadata: ["activity.key": "\(push.activity)", "channel": "\(routes.channelOwner(for: push))"])
        }
        return unsent
    }
}
