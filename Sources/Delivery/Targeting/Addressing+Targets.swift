public import LiveRelayCore

extension Addressing {
    /// What to read from the registry to address `push`.
    public func query(for push: LiveActivityPush) -> RegistryQuery {
        let start = push.event == .start
        var query = RegistryQuery(activity: push.activity, registry: registry)
        if start { query.device = push.device }
        switch self {
        case .apnsTokens(let environment):
            query.tokens = tokens(for: push)
            query.environment = environment
        case .apnsTokensWithAddress:
            query.tokens = tokens(for: push)
        case .deviceAddresses:
            query.subscribers = push.entity
            if !start { query.tokens = .activity(push.activity) }
        case .activityAddress(_, let startsToSegment):
            if start, !startsToSegment { query.subscribers = push.entity }
        }
        return query
    }

    private func tokens(for push: LiveActivityPush) -> RegistryQuery.Tokens? {
        guard push.event == .start else { return .activity(push.activity) }
        return push.entity.map { .pushToStart(entity: $0, attributesType: push.attributesType) }
    }

    /// Whether the targets of `push` include every update token of its activity (those of ``environment``
    /// when it is set), each a plain token push: an update or end of APNs tokens, in token mode, in `both`
    /// mode (beside the broadcast), or with no channel in force; never with a placeholder. Such a push goes
    /// to its tokens as a fan-out, stored once, its tokens read as it goes; its other targets are
    /// ``targets(for:rows:deliversWithoutTargets:channel:channelPolicy:mode:)`` of no registry rows. Pure.
    public func fansOut(
        _ push: LiveActivityPush, deliversWithoutTargets: Bool, channel: String?, mode: ActivityMode
    ) -> Bool {
        guard case .apnsTokens = self, !deliversWithoutTargets, PushTarget.kind(for: push.event) == .activity else {
            return false
        }
        return mode != .channel || channel == nil
    }

    /// The targets of `push`, from the rows the registry returned for ``query(for:)``. Pure. With no target
    /// and `deliversWithoutTargets`, one target without a token (the console's placeholder). A start with a
    /// ``LiveActivityPush/device`` (a late joiner's) has only that device's targets.
    ///
    /// With a `channel` (APNs tokens only) and a `mode` other than `token`: a start goes to the push-to-start
    /// tokens, those of channel subscribers (every one in `channel` mode) asking for the channel; an update
    /// or end is one broadcast to the channel, plus (in `both` mode) a push to each update token registered
    /// for the activity (activities started on the channel have none).
    public func targets(
        for push: LiveActivityPush, rows: RegistryRows, deliversWithoutTargets: Bool = false, channel: String? = nil,
        channelPolicy: Int? = nil, mode: ActivityMode = .token
    ) -> [PushTarget] {
        let kind = PushTarget.kind(for: push.event)
        let activityID = rows.activityAddress ?? push.activity.rawValue
        var targets: [PushTarget]
        switch self {
        case .apnsTokens:
            let channel = mode == .token ? nil : channel
            if let channel, kind == .activity {
                targets = [.broadcast(channel, policy: channelPolicy)]
                // An activity started on the channel has no update token: every token belongs to one that
                // runs by tokens (started before its device subscribed by channel, or not on iOS 18).
                if mode == .both {
                    for token in rows.tokens {
                        targets.append(
                            PushTarget(
                                kind: kind, token: token.token, environment: token.environment, device: token.device))
                    }
                }
                return targets
            }
            targets = rows.tokens.map {
                PushTarget(
                    kind: kind, token: $0.token, environment: $0.environment, device: $0.device,
                    channel: mode == .channel || $0.channelSubscriber ? channel : nil)
            }
        case .apnsTokensWithAddress:
            targets = rows.tokens.compactMap { token in
                guard let address = rows.addresses[token.device]?.address else { return nil }
                return PushTarget(
                    kind: kind, token: token.token, environment: token.environment, device: token.device,
                    address: ProviderAddress(device: address))
            }
        case .activityAddress(_, let startsToSegment) where kind == .activity || startsToSegment:
            targets = [PushTarget(kind: kind, token: nil, address: ProviderAddress(activity: activityID))]
        case .deviceAddresses, .activityAddress:
            var devices = rows.subscribers
            var seen = Set(devices)
            for token in rows.tokens where seen.insert(token.device).inserted { devices.append(token.device) }
            targets = devices.compactMap { device in
                guard let address = rows.addresses[device], address.address != nil || address.user != nil else {
                    return nil
                }
                return PushTarget(
                    kind: kind, token: nil, device: device,
                    address: ProviderAddress(device: address.address, user: address.user, activity: activityID))
            }
        }
        if targets.isEmpty, deliversWithoutTargets {
            // The console's placeholder device, started on the channel when the mode says so.
            let channel = kind == .pushToStart && mode != .token ? channel : nil
            targets = [PushTarget(kind: kind, token: nil, channel: channel)]
        }
        // A late joiner's start goes to its device alone (never to a segment or the console's placeholder).
        if let device = push.device, push.event == .start { return targets.filter { $0.device == device } }
        return targets
    }
}
