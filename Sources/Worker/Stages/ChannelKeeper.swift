import Delivery
import LiveRelayCore
import Logging
import StoreCore
import Throttling

/// The broadcast channels of the activities in `channel` or `both` mode (iOS 18): created for a start by
/// the release, counted and scheduled for deletion after delivery, deleted when their time comes, and
/// collected when stale (``ChannelKeeper/collect(dryRun:now:)``).
struct ChannelKeeper: Sendable {
    let store: any ChannelStore & ActivityStore & OutboxStore
    let rules: RuleBook
    let queue: StoredThrottle
    let senders: [String: Sender]
    let metrics: LiveRelayMetrics
    let logger: Logger

    /// The channel `push` goes by in `mode`: its activity's channel; for a start without one, a channel
    /// created now with the provider's channel client and saved before the start is written (a crash in
    /// between leaves a channel no row names, which the collector finds). `nil` means tokens: the mode is
    /// `token`, the provider has no channels, or the channel could not be created (logged and counted as a
    /// fallback: the start and the rest of the activity go by tokens).
    ///
    /// A personal activity that shares its entity's channel (`routes`) goes by that one: its start, addressed
    /// to its subscription's device, creates it when the entity has none open.
    func channel(for push: LiveActivityPush, provider: String, mode: ActivityMode, routes: ProviderRoutes, now: Int)
        async throws(StoreFailure) -> ActivityChannel?
    {
        guard mode != .token, let channels = senders[provider]?.provider.channels else { return nil }
        let owner = routes.channelOwner(for: push)
        let existing = try await store.channel(for: owner)
        if let existing, existing.deleteAt == nil { return existing }
        // A late joiner's start joins the activity as it runs: on its channel, or by tokens when it has none.
        guard push.event == .start, !push.isLateJoin, push.device == nil || owner != push.activity else { return nil }
        if var existing {
            // The activity starts again after an end whose channel waits for deletion: that one goes now; if
            // APNs cannot delete it now, it serves the new start (it still exists, and is not forgotten).
            guard try await deleteChannel(existing, with: channels) else {
                existing.deleteAt = nil
                try await store.saveChannel(existing)
                return existing
            }
        }
        let id: String
        do throws(ChannelFailure) {
            id = try await channels.create()
        } catch {
            reportFallback(owner, provider: provider, failure: error)
            return nil
        }
        let record = ActivityChannel(
            activity: owner, provider: provider, id: id, storagePolicy: channels.storagePolicy.rawValue,
            createdAt: now)
        try await store.saveChannel(record)
        metrics.channelCreated(provider: provider)
        metrics.channelsOpen(try await store.channelCount())
        logger.info(
            "channel created",
            metadata: ["activity.key": "\(owner)", "channel": "\(id)", "provider": "\(provider)"])
        return record
    }

    private func reportFallback(_ activity: ActivityKey, provider: String, failure: ChannelFailure) {
        let metadata: Logger.Metadata = [
            "activity.key": "\(activity)", "provider": "\(provider)", "reason": "\(failure.message)",
        ]
        switch failure.kind {
        case .limitReached:
            logger.warning("channel limit reached: the activity goes by tokens", metadata: metadata)
            metrics.channelFallback(reason: "limit")
        case .configuration:
            logger.error(
                "cannot create a channel (configuration): the activity goes by tokens until it is fixed",
                metadata: metadata)
            metrics.channelFallback(reason: "configuration")
        case .retry, .channelGone, .rejected:
            logger.warning("cannot create a channel: the activity goes by tokens", metadata: metadata)
            metrics.channelFallback(reason: "unavailable")
        }
    }

    /// After delivery: counts the devices started on a channel, tells each broadcast whom it reached, and
    /// schedules the deletion of the channel of an activity whose end went to it (a final receipt: delivered,
    /// or given up), once the activity has left the lock screen (its dismissal date, else the provider's
    /// `delete-after` past the end).
    func recordDeliveries(_ deliveries: inout [PushDelivery], now: Int) async throws(StoreFailure) {
        // Channels are kept by their owner: the activity, or the entity whose personal activities share one.
        let routes = rules.routes
        var started: [ActivityKey: Int] = [:]
        var broadcast = Set<ActivityKey>()
        for delivery in deliveries {
            let owner = routes.channelOwner(for: delivery.push)
            if delivery.push.event == .start {
                let count = delivery.receipts.filter { $0.delivered && $0.target.channel != nil }.count
                if count > 0 { started[owner, default: 0] += count }
            }
            // A broadcast that will be tried again is not done with its channel yet; one given up is.
            if delivery.receipts.contains(where: {
                $0.target.kind == .channel && (!$0.outcome.isRetry || delivery.lost > 0)
            }) {
                broadcast.insert(owner)
            }
        }
        try await store.addChannelSubscribers(started)
        guard !broadcast.isEmpty else { return }
        var subscribers: [ActivityKey: Int] = [:]
        for owner in broadcast { subscribers[owner] = try await store.channel(for: owner)?.subscribers }
        for i in deliveries.indices {
            let delivery = deliveries[i]
            let owner = routes.channelOwner(for: delivery.push)
            let requests = delivery.deliveredRequests
            metrics.broadcasts(requests.broadcasts, provider: delivery.provider)
            if requests.broadcasts > 0 { deliveries[i].reach = subscribers[owner] ?? 0 }
            guard delivery.push.event == .end, broadcast.contains(owner),
                let channels = senders[delivery.provider]?.provider.channels
            else { continue }
            // An entity's channel serves an alert that started on it while the end waited in the outbox (its
            // device drops the end: its start is newer): it is kept for that one.
            if let shared = EntityChannel.parse(owner),
                try await store.runningActivities(of: [shared.entity])[shared.entity, default: []].contains(where: {
                    $0.attributesType == shared.attributesType && $0.phase != .ended && $0.start?.subscription != nil
                })
            {
                continue
            }
            let at = max(now, delivery.push.dismissalDate ?? (delivery.push.timestamp + channels.deleteAfter))
            try await store.scheduleChannelDeletion(activity: owner, at: at)
        }
    }

    /// Deletes the channels whose time has come. A channel APNs no longer has counts as deleted; one APNs
    /// could not delete now stays for the next round. Returns the ids deleted.
    @discardableResult
    func deleteDue(now: Int) async throws(StoreFailure) -> [String] {
        guard senders.values.contains(where: { $0.provider.channels != nil }) else { return [] }
        var deleted: [String] = []
        for channel in try await store.channelsDue(now: now) {
            guard let channels = senders[channel.provider]?.provider.channels else { continue }
            if try await deleteChannel(channel, with: channels) { deleted.append(channel.id) }
        }
        if !deleted.isEmpty { metrics.channelsOpen(try await store.channelCount()) }
        return deleted
    }

    /// Deletes one channel at APNs and forgets it; `false` (logged) when APNs could not delete it now.
    @discardableResult
    func deleteChannel(_ channel: ActivityChannel, with channels: BroadcastChannels)
        async throws(StoreFailure) -> Bool
    {
        do throws(ChannelFailure) {
            try await channels.delete(channel.id)
        } catch {
            logger.warning(
                "channel not deleted yet",
                metadata: ["activity.key": "\(channel.activity)", "channel": "\(channel.id)", "reason": "\(error)"])
            return false
        }
        try await store.removeChannel(channel.id)
        await queue.forgetChannel(channel.id)
        metrics.channelDeleted(provider: channel.provider)
        logger.info("channel deleted", metadata: ["activity.key": "\(channel.activity)", "channel": "\(channel.id)"])
        return true
    }
}
