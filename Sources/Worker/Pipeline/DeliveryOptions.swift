import LiveRelayCore

/// How the pipeline hands a push to the sender: which registered tokens count, and how many go at once.
public struct DeliveryOptions: Sendable {
    /// Only tokens of this APNs environment (the provider's); `nil` takes every token.
    public var environment: PushEnvironment?
    /// With no token registered, send once to a target without a token: the console then still prints the
    /// request (with a placeholder). A real provider leaves it off and sends nothing.
    public var placeholderWhenNoTokens: Bool
    /// The most sends in flight at once.
    public var maxConcurrentDeliveries: Int
    /// Delivery rounds a push gets in the outbox (each after the sender's own retries) before it is given up.
    public var maxOutboxAttempts: Int
    /// The provider type whose registry addresses the targets carry (`fcm`, `pushwoosh`, `getui`); `nil`
    /// for APNs and the console, which need only the APNs tokens.
    public var addresses: String?
    /// Starts go to a segment the provider knows (a Pushwoosh `filter_code`): one target per start, the
    /// activity, instead of the subscribed devices.
    public var startsToSegment = false

    /// Creates options; the defaults suit the console.
    public init(
        environment: PushEnvironment? = nil, placeholderWhenNoTokens: Bool = true, maxConcurrentDeliveries: Int = 64,
        maxOutboxAttempts: Int = 10
    ) {
        self.maxOutboxAttempts = maxOutboxAttempts
        self.environment = environment
        self.placeholderWhenNoTokens = placeholderWhenNoTokens
        self.maxConcurrentDeliveries = maxConcurrentDeliveries
    }
}
