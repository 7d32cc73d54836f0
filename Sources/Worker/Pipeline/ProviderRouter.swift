import Delivery
import LiveRelayCore

/// A provider's sender and how its pushes find their targets.
public struct ProviderRoute: Sendable {
    /// The provider's `id` in the config: the request-rate bucket its pushes draw from.
    public var id: String
    /// The sender in front of the provider (its own retries and health).
    public var sender: Sender
    /// How targets are resolved for it.
    public var delivery: DeliveryOptions

    /// Creates a route.
    public init(id: String = "", sender: Sender, delivery: DeliveryOptions) {
        self.id = id
        self.sender = sender
        self.delivery = delivery
    }
}

/// Chooses the provider of a push from the config's `routes`: by the push's attributes type first, then by
/// the rule file of the rules that made it; `nil` sends it to the default provider. A configuration error
/// stops only the provider it came from: each route has its own sender.
public struct ProviderRouter: Sendable {
    /// Routes by attributes type.
    public var byAttributesType: [String: ProviderRoute] = [:]
    /// Routes by rule id (from `rule-file` routes).
    public var byRule: [String: ProviderRoute] = [:]
    /// Every entry of `providers`, by id.
    public var byProvider: [String: ProviderRoute] = [:]

    /// An empty router: everything goes to the default provider.
    public init() {}

    /// The route of a push, or `nil` for the default provider.
    public func route(for push: LiveActivityPush) -> ProviderRoute? {
        if let route = byAttributesType[push.attributesType] { return route }
        return push.ruleIDs.lazy.compactMap { byRule[$0] }.first
    }
}
