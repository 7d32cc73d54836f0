import Delivery
import LiveRelayCore
import Logging
import StoreCore

/// Personal activities that share their entity's channel (``EntityChannel``, ``ChannelShare``): what one
/// alert's rule decides for the channel is decided for every alert on it (the release sends it as one
/// broadcast: ``ReleaseStage``).
extension Decider {
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
}
