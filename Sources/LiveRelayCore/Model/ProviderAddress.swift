/// What a provider other than APNs needs to reach a device or an activity, beside the APNs token a
/// ``PushTarget`` carries: FCM sends to its registration token, Pushwoosh to a device, a user or a
/// `live_activity_id`, Getui to a `cid` and an `laId`.
public struct ProviderAddress: Sendable, Hashable {
    /// The provider's id of the app install: the FCM registration token, the Getui `cid`, or the Pushwoosh
    /// push token or HWID.
    public var device: String?
    /// A Pushwoosh user id (set with `/registerUser`); preferred to `device` when both are known.
    public var user: String?
    /// The provider's id of the activity: Pushwoosh `live_activity_id`, Getui `laId`.
    public var activity: String?

    /// Creates an address; every part is optional.
    public init(device: String? = nil, user: String? = nil, activity: String? = nil) {
        self.device = device
        self.user = user
        self.activity = activity
    }
}
