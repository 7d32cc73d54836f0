import Delivery
import Foundation
import LiveRelayCore
import StoreCore

extension OutboxEntry {
    /// The row of one released push to one target, due at `nextAttempt`, for the provider with id `provider`.
    init(_ push: LiveActivityPush, json: Data, to target: PushTarget, provider: String, nextAttempt: Int) {
        self.init(
            key: OutboxKey(activity: push.activity, target: target.outboxTarget), kind: target.kind.rawValue,
            device: target.device, environment: target.environment?.rawValue, push: json, timestamp: push.timestamp,
            nextAttempt: nextAttempt, address: target.address, provider: provider, channel: target.channel,
            channelPolicy: target.channelPolicy)
    }

    /// The target the row was written for.
    var target: PushTarget {
        // A fan-out's target is an update token: nothing to parse (a goal's ten thousand a round).
        let kind = fanOut != nil ? .activity : PushTarget.TokenKind(rawValue: kind) ?? .activity
        let isToken = fanOut != nil || (key.target.utf8.first.map { $0 != UInt8(ascii: "@") } ?? false)
        return PushTarget(
            kind: kind, token: isToken ? key.target : nil,
            environment: environment.map(PushEnvironment.init(rawValue:)),
            device: device, address: address, channel: channel, channelPolicy: channelPolicy)
    }
}

extension OutboxEntry {
    /// The device and activity of a start to a known device; `nil` for other rows (updates, a segment, the
    /// console's placeholder).
    var deviceStart: DeviceStart? {
        guard kind == PushTarget.TokenKind.pushToStart.rawValue, let device else { return nil }
        return DeviceStart(activity: key.activity, device: device)
    }
}

extension PushTarget {
    /// The target's part of its outbox key: `@channel:<id>` for a broadcast, its APNs token, else its provider address (`@`-prefixed), else
    /// `""` (the console's placeholder).
    var outboxTarget: String {
        if kind == .channel, let channel { return "@channel:" + channel }
        if let token, !token.isEmpty { return token }
        if let d = address.device { return "@device:" + d }
        if let u = address.user { return "@user:" + u }
        if let a = address.activity { return "@activity:" + a }
        return ""
    }
}

extension OutboxFanOut {
    /// The fan-out that carries `push` when its provider's addressing says it goes to every update token of
    /// its activity (``Addressing/fansOut(_:deliversWithoutTargets:channel:mode:)``); `nil` when its targets
    /// are written out one row each.
    static func of(
        _ push: LiveActivityPush, json: Data, traits: ProviderTraits, provider: String, channel: String?,
        mode: ActivityMode, now: Int
    ) -> OutboxFanOut? {
        guard
            traits.addressing.fansOut(
                push, deliversWithoutTargets: traits.deliversWithoutTargets, channel: channel, mode: mode)
        else { return nil }
        return OutboxFanOut(
            activity: push.activity, push: json, timestamp: push.timestamp, provider: provider,
            environment: traits.addressing.environment, nextAttempt: now)
    }
}
