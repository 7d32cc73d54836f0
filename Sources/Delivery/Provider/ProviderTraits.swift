/// What the worker needs to know about a provider, declared by the provider itself instead of being
/// recognised by its type: how its pushes are addressed, how many targets one request carries, how many
/// requests may be in flight, and whether a push with no registered target still goes out.
public struct ProviderTraits: Sendable, Hashable {
    /// The provider's kind.
    public var kind: ProviderKind
    /// How its pushes find their targets in the registry.
    public var addressing: Addressing
    /// How many targets one request can carry: Pushwoosh 1000, Getui 200, 1 for APIs without a batch form.
    public var maxBatchSize: Int
    /// The most requests in flight at once (targets, when ``concurrencyCountsTargets``).
    public var maxConcurrentDeliveries: Int
    /// Whether ``maxConcurrentDeliveries`` counts targets rather than requests: a provider that sends each
    /// target of a batch as a request of its own (APNs over the push lane) keeps about that many targets in
    /// flight, whether a call brings one fan-out to many targets or many pushes to one target each.
    public var concurrencyCountsTargets: Bool
    /// With no target registered, send once to a target without a token: the console then still prints
    /// the request (with a placeholder). A real provider leaves it off and sends nothing.
    public var deliversWithoutTargets: Bool

    /// Traits; by default one target per request, 64 in flight, nothing sent without a target.
    public init(
        kind: ProviderKind, addressing: Addressing, maxBatchSize: Int = 1, maxConcurrentDeliveries: Int = 64,
        concurrencyCountsTargets: Bool = false, deliversWithoutTargets: Bool = false
    ) {
        self.concurrencyCountsTargets = concurrencyCountsTargets
        self.kind = kind
        self.addressing = addressing
        self.maxBatchSize = max(1, maxBatchSize)
        self.maxConcurrentDeliveries = max(1, maxConcurrentDeliveries)
        self.deliversWithoutTargets = deliversWithoutTargets
    }
}
