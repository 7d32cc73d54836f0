public import LiveRelayCore

/// Which provider a push goes to, by provider id: the config's `routes` by attributes type first, then by
/// the rules that made the push (a `rule-file` route names the rules of a file), else the default provider.
/// Pure; rebuilt with the rules on every reload.
public struct ProviderRoutes: Sendable, Hashable {
    /// The id of the provider of unrouted pushes.
    public var defaultProvider: String
    /// Provider ids by attributes type.
    public var byAttributesType: [String: String]
    /// Provider ids by rule id.
    public var byRule: [String: String]
    /// Activity modes by attributes type (`activity-modes`).
    public var modeByAttributesType: [String: ActivityMode] = [:]
    /// Activity modes by rule id.
    public var modeByRule: [String: ActivityMode] = [:]
    /// The modes of personal activities that share their entity's channel, by attributes type: those of
    /// personal rules in `channel` mode (``EntityChannel``). Their pushes, a deleted
    /// subscription's end included, take this mode.
    public var entityChannels: [String: ActivityMode] = [:]

    /// Routes; by default everything goes to `defaultProvider`.
    public init(defaultProvider: String, byAttributesType: [String: String] = [:], byRule: [String: String] = [:]) {
        self.defaultProvider = defaultProvider
        self.byAttributesType = byAttributesType
        self.byRule = byRule
    }

    /// The id of the provider `push` goes to.
    public func provider(for push: LiveActivityPush) -> String {
        if let id = byAttributesType[push.attributesType] { return id }
        return push.ruleIDs.lazy.compactMap { byRule[$0] }.first ?? defaultProvider
    }

    /// How `push`'s activity reaches devices: by its attributes type first, then by the rules that made it,
    /// else by tokens.
    public func mode(for push: LiveActivityPush) -> ActivityMode {
        if push.entity != nil, let mode = entityChannels[push.attributesType] { return mode }
        if let mode = modeByAttributesType[push.attributesType] { return mode }
        return push.ruleIDs.lazy.compactMap { modeByRule[$0] }.first ?? .token
    }

    /// Whether `push` belongs to a personal activity that shares its entity's channel.
    public func sharesEntityChannel(_ push: LiveActivityPush) -> Bool {
        push.entity != nil && entityChannels[push.attributesType] != nil
    }

    /// The key of the channel record `push` goes by: its entity's (``EntityChannel``) for a personal
    /// activity sharing one, else its activity's.
    public func channelOwner(for push: LiveActivityPush) -> ActivityKey {
        guard let entity = push.entity, entityChannels[push.attributesType] != nil else { return push.activity }
        return EntityChannel.key(attributesType: push.attributesType, entity: entity)
    }
}
