import Delivery
import LiveRelayCore
import Store

/// Resolves where a push goes from the token registry: a `start` goes to the push-to-start tokens (for the
/// push's attributes type) of the devices subscribed to the push's entity; an `update` or `end` goes to the
/// update tokens the app reported for the activity.
///
/// For a provider with its own addresses (``DeliveryOptions/addresses``):
/// - `fcm`: the same tokens, each with the device's FCM registration token; devices without one are left out;
/// - `pushwoosh`: a start goes to the subscribed devices with a Pushwoosh device or user, or, when starts
///   go to a segment (``DeliveryOptions/startsToSegment``), is one target like an update; an update or an
///   end is one target, the activity's `live_activity_id`;
/// - `getui`: the subscribed devices (and those with an update token) with a Getui `cid`, with the
///   activity's `laId`.
///
/// Activity ids default to the activity key when none was registered.
struct PushTargets {
    var store: SQLiteStore
    var options: DeliveryOptions

    func targets(for push: LiveActivityPush) async throws(SQLiteStore.Failure) -> [PushTarget] {
        let kind = PushTarget.kind(for: push.event)
        switch options.addresses {
        case "pushwoosh"?, "getui"?:
            return try await addressedTargets(for: push, provider: options.addresses!, kind: kind)
        default:
            break
        }
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
        if let provider = options.addresses {
            let addresses = try await store.addresses(provider: provider, devices: tokens.map(\.device))
            return tokens.compactMap { token in
                guard let address = addresses[token.device]?.address else { return nil }
                return PushTarget(
                    kind: kind, token: token.token, environment: token.environment, device: token.device,
                    address: ProviderAddress(device: address))
            }
        }
        if tokens.isEmpty, options.placeholderWhenNoTokens { return [PushTarget(kind: kind, token: nil)] }
        return tokens.map { PushTarget(kind: kind, token: $0.token, environment: $0.environment, device: $0.device) }
    }

    private func addressedTargets(for push: LiveActivityPush, provider: String, kind: PushTarget.TokenKind)
        async throws(SQLiteStore.Failure) -> [PushTarget]
    {
        let activityID =
            try await store.activityAddress(activity: push.activity, provider: provider) ?? push.activity.rawValue
        if provider == "pushwoosh", kind == .activity || options.startsToSegment {
            return [PushTarget(kind: kind, token: nil, address: ProviderAddress(activity: activityID))]
        }
        var devices: [String] = []
        if let entity = push.entity { devices = try await store.subscribedDevices(entity: entity) }
        if kind == .activity {
            for token in try await store.activityTokens(activity: push.activity, environment: nil)
            where !devices.contains(token.device) {
                devices.append(token.device)
            }
        }
        let addresses = try await store.addresses(provider: provider, devices: devices)
        return devices.compactMap { device in
            guard let address = addresses[device], address.address != nil || address.user != nil else { return nil }
            return PushTarget(
                kind: kind, token: nil, device: device,
                address: ProviderAddress(device: address.address, user: address.user, activity: activityID))
        }
    }
}

extension PushTarget {
    /// The target's key in the outbox: its APNs token, else its provider address (`@`-prefixed), else `""`
    /// (the console's placeholder).
    var outboxKey: String {
        if let token, !token.isEmpty { return token }
        if let d = address.device { return "@device:" + d }
        if let u = address.user { return "@user:" + u }
        if let a = address.activity { return "@activity:" + a }
        return ""
    }
}
