import Delivery
import LiveRelayCore
import Store

/// Resolves where a push goes from the token registry: a `start` goes to the push-to-start tokens (for the
/// push's attributes type) of the devices subscribed to the push's entity; an `update` or `end` goes to the
/// update tokens the app reported for the activity.
struct PushTargets {
    var store: SQLiteStore
    var options: DeliveryOptions

    func targets(for push: LiveActivityPush) async throws(SQLiteStore.Failure) -> [PushTarget] {
        let kind = PushTarget.kind(for: push.event)
        let tokens: [RegisteredToken]
        switch kind {
        case .pushToStart:
            if let entity = push.entity {
                tokens = try await store.pushToStartTokens(
                    entity: entity, attributesType: push.attributesType, environment: options.environment)
            } else {
                tokens = []
            }
        case .activity:
            tokens = try await store.activityTokens(activity: push.activity, environment: options.environment)
        }
        if tokens.isEmpty, options.placeholderWhenNoTokens { return [PushTarget(kind: kind, token: nil)] }
        return tokens.map { PushTarget(kind: kind, token: $0.token, environment: $0.environment, device: $0.device) }
    }
}
