public import LiveRelayCore
import PostgresNIO
public import Store

/// Broadcast channels and channel subscribers, as the SQLite store keeps them (see ``StateStore``).
extension PostgresStore {
    private static let channelColumns =
        "activity, provider, channel, storage_policy, created_at, delete_at, subscribers"

    public func addChannelSubscribers(_ started: [ActivityKey: Int]) async throws(Failure) {
        guard !started.isEmpty else { return }
        let keys = Array(started.keys)
        try await execute(
            "counting channel subscribers",
            """
            UPDATE activity_channel c SET subscribers = c.subscribers + r.n
            FROM unnest(\(keys.map(\.rawValue))::text[], \(keys.map { started[$0]! })::bigint[]) AS r(activity, n)
            WHERE c.activity = r.activity
            """)
    }

    public func channel(for activity: ActivityKey) async throws(Failure) -> ActivityChannel? {
        try await channels(
            "reading an activity's channel",
            "SELECT \(unescaped: Self.channelColumns) FROM activity_channel WHERE activity = \(activity.rawValue)"
        ).first
    }

    public func channels() async throws(Failure) -> [ActivityChannel] {
        try await channels(
            "reading channels",
            "SELECT \(unescaped: Self.channelColumns) FROM activity_channel ORDER BY activity COLLATE \"C\"")
    }

    public func channelsDue(now: Int) async throws(Failure) -> [ActivityChannel] {
        try await channels(
            "reading channels to delete",
            """
            SELECT \(unescaped: Self.channelColumns) FROM activity_channel WHERE delete_at <= \(now)
            ORDER BY delete_at
            """)
    }

    private func channels(_ what: String, _ query: PostgresQuery) async throws(Failure) -> [ActivityChannel] {
        var out: [ActivityChannel] = []
        for row in try await rows(what, query) {
            let (activity, provider, id, policy, created, deleteAt, subscribers) = try decode(
                row, (String, String, String, Int, Int, Int?, Int).self, what)
            out.append(
                ActivityChannel(
                    activity: ActivityKey(activity), provider: provider, id: id, storagePolicy: policy,
                    createdAt: created, deleteAt: deleteAt, subscribers: subscribers))
        }
        return out
    }

    public func channelCount() async throws(Failure) -> Int {
        for row in try await rows("counting channels", "SELECT count(*) FROM activity_channel") {
            return try decode(row, Int.self, "counting channels")
        }
        return 0
    }

    public func saveChannel(_ channel: ActivityChannel) async throws(Failure) {
        try await execute(
            "saving a channel",
            """
            INSERT INTO activity_channel (activity, provider, channel, storage_policy, created_at, delete_at, subscribers)
            VALUES (\(channel.activity.rawValue), \(channel.provider), \(channel.id), \(channel.storagePolicy),
              \(channel.createdAt), \(channel.deleteAt), \(channel.subscribers))
            ON CONFLICT (activity) DO UPDATE SET provider = excluded.provider, channel = excluded.channel,
              storage_policy = excluded.storage_policy, created_at = excluded.created_at,
              delete_at = excluded.delete_at, subscribers = excluded.subscribers
            """)
    }

    public func scheduleChannelDeletion(activity: ActivityKey, at time: Int) async throws(Failure) {
        try await execute(
            "scheduling a channel's deletion",
            "UPDATE activity_channel SET delete_at = \(time) WHERE activity = \(activity.rawValue) AND delete_at IS NULL"
        )
    }

    @discardableResult
    public func removeChannel(_ id: String) async throws(Failure) -> ActivityKey? {
        for row in try await rows(
            "removing a channel", "DELETE FROM activity_channel WHERE channel = \(id) RETURNING activity")
        {
            return ActivityKey(try decode(row, String.self, "removing a channel"))
        }
        return nil
    }

    public func removeChannels(_ ids: [String]) async throws(Failure) {
        guard !ids.isEmpty else { return }
        try await execute("removing channels", "DELETE FROM activity_channel WHERE channel = ANY(\(ids)::text[])")
    }

    public func setChannelSubscriber(device: String, _ subscriber: Bool, now: Int) async throws(Failure) {
        if subscriber {
            try await execute(
                "registering a channel subscriber",
                """
                INSERT INTO channel_subscriber (device, updated_at) VALUES (\(device), \(now))
                ON CONFLICT (device) DO UPDATE SET updated_at = excluded.updated_at
                """)
        } else {
            try await execute(
                "registering a channel subscriber", "DELETE FROM channel_subscriber WHERE device = \(device)")
        }
    }
}
