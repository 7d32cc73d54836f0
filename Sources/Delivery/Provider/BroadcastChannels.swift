/// A provider's broadcast channels (APNs, iOS 18): what the worker needs to give an activity a channel when
/// it starts, delete it after the end, and find the channels nothing uses any more. Only APNs has them; a
/// provider without them sends every push to tokens.
public struct BroadcastChannels: Sendable {
    /// Where channels are made: APNs' channel-management API, or the console's printout.
    public let client: any ChannelBackend
    /// The storage policy of the channels it creates.
    public let storagePolicy: APNsChannelClient.StoragePolicy
    /// Seconds after an end without a dismissal date at which its channel is deleted.
    public let deleteAfter: Int
    /// The most broadcasts to one channel in any ``window`` seconds (0: no pace).
    public let maxBroadcasts: Int
    /// The pace's window, in seconds.
    public let window: Int

    /// Channels made with `client`, each with `storagePolicy`.
    public init(
        client: any ChannelBackend, storagePolicy: APNsChannelClient.StoragePolicy, deleteAfter: Int = 4 * 3600,
        maxBroadcasts: Int = 0, window: Int = 60
    ) {
        self.maxBroadcasts = maxBroadcasts
        self.window = window
        self.deleteAfter = deleteAfter
        self.client = client
        self.storagePolicy = storagePolicy
    }

    /// Creates a channel; its id.
    public func create() async throws(ChannelFailure) -> String { try await client.create(storagePolicy) }

    /// Deletes a channel; one already gone counts as deleted.
    public func delete(_ id: String) async throws(ChannelFailure) {
        do {
            try await client.delete(id)
        } catch  where error.kind == .channelGone {
            return
        }
    }

    /// Every channel the app has in this environment.
    public func list() async throws(ChannelFailure) -> [String] { try await client.list() }
}

/// Where broadcast channels are made, read and deleted: ``APNsChannelClient``, or the console provider
/// (which prints the requests it stands for).
public protocol ChannelBackend: Sendable {
    /// Creates a channel with a storage policy; its id.
    func create(_ policy: APNsChannelClient.StoragePolicy) async throws(ChannelFailure) -> String
    /// Deletes a channel.
    func delete(_ id: String) async throws(ChannelFailure)
    /// Every channel of the app in this environment.
    func list() async throws(ChannelFailure) -> [String]
}

extension APNsChannelClient: ChannelBackend {}
