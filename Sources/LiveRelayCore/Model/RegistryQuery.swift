/// What a provider needs read from the registry to find one push's targets: which tokens, which
/// subscribers, which provider addresses. A provider's addressing writes it; the store answers it in one
/// read with ``RegistryRows``.
public struct RegistryQuery: Sendable, Hashable {
    /// Which APNs tokens to read.
    public enum Tokens: Sendable, Hashable {
        /// The push-to-start tokens for an attributes type of the devices subscribed to an entity.
        case pushToStart(entity: EntityKey, attributesType: String)
        /// The update tokens the app reported for the activity.
        case activity(ActivityKey)
    }

    /// The activity the push is for.
    public var activity: ActivityKey
    /// The APNs tokens to read, if any.
    public var tokens: Tokens?
    /// Only tokens registered in this APNs environment; `nil` takes every token.
    public var environment: PushEnvironment?
    /// Read the devices subscribed to this entity.
    public var subscribers: EntityKey?
    /// Only this device's push-to-start tokens and subscription (a late joiner's start); `nil` reads every
    /// device's.
    public var device: String?
    /// Read the addresses in this provider registry (`fcm`, `pushwoosh`, `getui`) of every device found
    /// (the tokens' devices and the subscribers), and the activity's id there.
    public var registry: String?

    /// A query; by default it reads nothing.
    public init(
        activity: ActivityKey, tokens: Tokens? = nil, environment: PushEnvironment? = nil,
        subscribers: EntityKey? = nil, registry: String? = nil
    ) {
        self.activity = activity
        self.tokens = tokens
        self.environment = environment
        self.subscribers = subscribers
        self.registry = registry
    }
}

/// The registry's answer to a ``RegistryQuery``.
public struct RegistryRows: Sendable, Hashable {
    /// The tokens asked for, by device.
    public var tokens: [RegisteredToken]
    /// The subscribed devices, in order.
    public var subscribers: [String]
    /// The devices' addresses in the registry asked for, by device (devices without one are absent).
    public var addresses: [String: RegisteredAddress]
    /// The activity's id in the registry asked for, if one was registered.
    public var activityAddress: String?

    /// Rows; by default none.
    public init(
        tokens: [RegisteredToken] = [], subscribers: [String] = [], addresses: [String: RegisteredAddress] = [:],
        activityAddress: String? = nil
    ) {
        self.tokens = tokens
        self.subscribers = subscribers
        self.addresses = addresses
        self.activityAddress = activityAddress
    }
}
