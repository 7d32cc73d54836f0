public import LiveRelayCore

/// An activity's APNs broadcast channel (iOS 18), as LiveRelay created it: kept from its creation (before
/// the activity's start) until APNs confirms its deletion after the activity's end. A channel APNs has that
/// no row names was made by a run that crashed before saving it, or by someone else: `liverelay channels
/// --gc` finds those.
public struct ActivityChannel: Sendable, Hashable {
    /// The activity it carries.
    public var activity: ActivityKey
    /// The id of the provider it was created with.
    public var provider: String
    /// APNs' id for it.
    public var id: String
    /// 0: APNs stores no message; 1: it keeps the most recent.
    public var storagePolicy: Int
    /// UNIX seconds.
    public var createdAt: Int
    /// When it is to be deleted (the activity's dismissal); `nil` while the activity may still need it.
    public var deleteAt: Int?
    /// The devices LiveRelay started on the channel (push-to-start with `input-push-channel` delivered): whom
    /// a broadcast reaches, apps that subscribed on their own not counted.
    public var subscribers: Int

    /// A channel record.
    public init(
        activity: ActivityKey, provider: String, id: String, storagePolicy: Int, createdAt: Int, deleteAt: Int? = nil,
        subscribers: Int = 0
    ) {
        self.subscribers = subscribers
        self.activity = activity
        self.provider = provider
        self.id = id
        self.storagePolicy = storagePolicy
        self.createdAt = createdAt
        self.deleteAt = deleteAt
    }
}
