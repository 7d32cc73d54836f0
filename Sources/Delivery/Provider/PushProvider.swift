public import LiveRelayCore

/// A way of delivering Live Activity pushes (APNs, FCM, Pushwoosh, Getui, the console). A provider encodes,
/// sends and classifies; retries, logging and metrics live once in the `Sender`, and what the worker must
/// know about it (how its pushes are addressed, how many targets a request carries, how many requests may
/// be in flight) it declares in its ``traits``.
public protocol PushProvider: Sendable {
    /// What the worker needs to know to address, batch and pace this provider's pushes.
    var traits: ProviderTraits { get }
    /// Delivers one push to up to ``ProviderTraits/maxBatchSize`` targets; one outcome per target, in the
    /// same order.
    func deliver(_ push: LiveActivityPush, to targets: [PushTarget]) async -> [DeliveryOutcome]
    /// Called by the `Sender` after a `.refreshCredentials` outcome, before it retries once.
    func refreshCredentials() async
    /// Its broadcast channels, when it has them and they are configured (APNs); `nil`: tokens only.
    var channels: BroadcastChannels? { get }
}

extension PushProvider {
    /// Providers without renewable credentials have nothing to refresh.
    public func refreshCredentials() async {}
    /// Most providers have no broadcast channels.
    public var channels: BroadcastChannels? { nil }
}

/// A provider whose API takes one target per request (APNs, FCM, the console): it delivers to one target,
/// and a batch is those deliveries one after the other (its ``ProviderTraits/maxBatchSize`` is 1, so the
/// `Sender` hands it one target at a time and runs several such calls at once).
public protocol SingleTargetProvider: PushProvider {
    /// Delivers one push to one target.
    func deliver(_ push: LiveActivityPush, to target: PushTarget) async -> DeliveryOutcome
}

extension SingleTargetProvider {
    /// Each target in turn.
    public func deliver(_ push: LiveActivityPush, to targets: [PushTarget]) async -> [DeliveryOutcome] {
        var outcomes: [DeliveryOutcome] = []
        outcomes.reserveCapacity(targets.count)
        for target in targets { outcomes.append(await deliver(push, to: target)) }
        return outcomes
    }
}
