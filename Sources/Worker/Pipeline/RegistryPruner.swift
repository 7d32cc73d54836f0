import Delivery
import LiveRelayCore
import Store

/// Keeps the registry free of tokens a provider declared dead: the `Sender` calls it on `dropToken`.
struct RegistryPruner: TokenPruning {
    var store: SQLiteStore
    /// The provider registry whose addresses the targets carry (its addressing's); its address is what gets
    /// dropped (FCM's `UNREGISTERED` is about the registration token, not the APNs token beside it).
    var registry: String?
    var now: @Sendable () -> Int

    func dropToken(_ target: PushTarget, reason: String) async {
        // A failed write leaves the token registered; the next send gets the same answer and tries again.
        if let registry {
            guard let address = target.address.device else { return }
            try? await store.dropAddress(address, provider: registry, reason: reason, now: now())
            return
        }
        guard let token = target.token else { return }
        try? await store.dropToken(token, reason: reason, now: now())
    }
}
