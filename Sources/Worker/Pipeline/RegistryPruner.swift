import Delivery
import Store

/// Keeps the registry free of tokens a provider declared dead: the `Sender` calls it on `dropToken`.
struct RegistryPruner: TokenPruning {
    var store: SQLiteStore
    /// The provider type whose addresses the targets carry; its address is what gets dropped (FCM's
    /// `UNREGISTERED` is about the registration token, not the APNs token beside it).
    var addresses: String? = nil
    var now: @Sendable () -> Int

    func dropToken(_ target: PushTarget, reason: String) async {
        if let provider = addresses {
            guard let address = target.address.device else { return }
            try? await store.dropAddress(address, provider: provider, reason: reason, now: now())
            return
        }
        guard let token = target.token else { return }
        // A failed write leaves the token registered; the next send gets the same answer and tries again.
        try? await store.dropToken(token, reason: reason, now: now())
    }
}
