import Delivery
import Store

/// Keeps the registry free of tokens a provider declared dead: the `Sender` calls it on `dropToken`.
struct RegistryPruner: TokenPruning {
    var store: SQLiteStore
    var now: @Sendable () -> Int

    func dropToken(_ target: PushTarget, reason: String) async {
        guard let token = target.token else { return }
        // A failed write leaves the token registered; the next send gets the same answer and tries again.
        try? await store.dropToken(token, reason: reason, now: now())
    }
}
