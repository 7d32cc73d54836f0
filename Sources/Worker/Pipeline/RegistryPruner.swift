import Delivery
import LiveRelayCore
import Logging
import StoreCore

/// Keeps the registry free of tokens a provider declared dead: the `Sender` calls it on `dropToken`.
struct RegistryPruner: TokenPruning {
    var store: any RegistryStore & AddressStore & ChannelStore
    /// The provider registry whose addresses the targets carry (its addressing's); its address is what gets
    /// dropped (FCM's `UNREGISTERED` is about the registration token, not the APNs token beside it).
    var registry: String?
    var now: @Sendable () -> Int
    var logger = Logger(label: "liverelay", factory: { _ in SwiftLogNoOpLogHandler() })
    var metrics = LiveRelayMetrics.none

    func dropToken(_ target: PushTarget, reason: String) async {
        if target.kind == .channel, let channel = target.channel {
            await channelGone(channel, reason: reason)
            return
        }
        // A failed write leaves the token registered; the next send gets the same answer and tries again.
        if let registry {
            guard let address = target.address.device else { return }
            try? await store.dropAddress(address, provider: registry, reason: reason, now: now())
            return
        }
        guard let token = target.token else { return }
        try? await store.dropToken(token, reason: reason, now: now())
    }

    /// APNs no longer has the channel (deleted outside LiveRelay, or made in the other environment): the
    /// devices subscribed to it can no longer be reached through it. It is forgotten, so the activity's next
    /// pushes go to its tokens and a later start makes a new channel; never a silent stop.
    private func channelGone(_ channel: String, reason: String) async {
        let activity = try? await store.removeChannel(channel)
        logger.error(
            "broadcast channel gone: its subscribers get no more updates through it; the activity goes by tokens",
            metadata: [
                "activity.key": "\(activity.flatMap { $0 }?.rawValue ?? "?")", "channel": "\(channel)",
                "reason": "\(reason)",
            ])
        metrics.channelFallback(reason: "gone")
    }
}
