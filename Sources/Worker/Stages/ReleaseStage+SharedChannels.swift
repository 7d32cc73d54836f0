import Delivery
import LiveRelayCore
import Logging
import StoreCore

/// The release's part in an entity's shared channel (``ChannelShare``): a deleted subscription's end that
/// the alerts still running there must not receive.
extension ReleaseStage {
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
