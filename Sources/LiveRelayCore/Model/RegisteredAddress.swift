/// A device's address at a provider other than APNs, as the registry holds it.
public struct RegisteredAddress: Sendable, Hashable {
    /// The device it belongs to.
    public var device: String
    /// `fcm`, `pushwoosh` or `getui`.
    public var provider: String
    /// The FCM registration token, the Getui `cid`, or the Pushwoosh push token or HWID.
    public var address: String?
    /// A Pushwoosh user id.
    public var user: String?

    /// Creates a record.
    public init(device: String, provider: String, address: String?, user: String? = nil) {
        self.device = device
        self.provider = provider
        self.address = address
        self.user = user
    }
}
