/// A push token as the registry holds it.
public struct RegisteredToken: Sendable, Hashable {
    /// The device it belongs to (an id the app chose).
    public var device: String
    /// The token, in lower-case hex.
    public var token: String
    /// The APNs environment the app registered it in.
    public var environment: PushEnvironment

    /// Creates a record.
    public init(device: String, token: String, environment: PushEnvironment) {
        self.device = device
        self.token = token
        self.environment = environment
    }
}
