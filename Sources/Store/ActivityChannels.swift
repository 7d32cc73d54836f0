import GRDB
public import LiveRelayCore

extension SQLiteStore {
    static func registerChannelMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v11-channels") { db in
            try db.create(table: "activity_channel") { t in
                t.column("activity", .text).primaryKey()
                t.column("provider", .text).notNull()
                t.column("channel", .text).notNull().unique()
                t.column("storage_policy", .integer).notNull()
                t.column("created_at", .integer).notNull()
                t.column("delete_at", .integer)
            }
            try db.execute(
                sql: "CREATE INDEX activity_channel_delete ON activity_channel (delete_at) WHERE delete_at IS NOT NULL")
            // Devices whose app subscribes its activities by channel (iOS 18), as the app backend registered them.
            try db.create(table: "channel_subscriber") { t in
                t.column("device", .text).primaryKey()
                t.column("updated_at", .integer).notNull()
            }
            try db.alter(table: "outbox") { t in t.add(column: "channel", .text) }
        }
        migrator.registerMigration("v12-channel-subscribers") { db in
            try db.alter(table: "activity_channel") { t in
                t.add(column: "subscribers", .integer).notNull().defaults(to: 0)
            }
        }
    }

    /// Counts devices started on their activities' channels (their push-to-start with the channel delivered).
    public func addChannelSubscribers(_ started: [ActivityKey: Int]) async throws(Failure) {
        guard !started.isEmpty else { return }
        try await run(
            "counting channel subscribers",
            { db in
                for (activity, count) in started {
                    try db.execute(
                        sql: "UPDATE activity_channel SET subscribers = subscribers + ? WHERE activity = ?",
                        arguments: [count, activity.rawValue])
                }
            }, write: true)
    }

    /// The activity's channel, if it has one.
    public func channel(for activity: ActivityKey) async throws(Failure) -> ActivityChannel? {
        try await run(
            "reading an activity's channel",
            { db in
                try Row.fetchOne(
                    db, sql: "SELECT * FROM activity_channel WHERE activity = ?", arguments: [activity.rawValue]
                ).map(Self.channel)
            }, write: false)
    }

    /// Every channel LiveRelay holds, by activity.
    public func channels() async throws(Failure) -> [ActivityChannel] {
        try await run(
            "reading channels",
            { db in
                try Row.fetchAll(db, sql: "SELECT * FROM activity_channel ORDER BY activity").map(Self.channel)
            }, write: false)
    }

    /// The channels whose deletion is due at `now`.
    public func channelsDue(now: Int) async throws(Failure) -> [ActivityChannel] {
        try await run(
            "reading channels to delete",
            { db in
                try Row.fetchAll(
                    db, sql: "SELECT * FROM activity_channel WHERE delete_at <= ? ORDER BY delete_at",
                    arguments: [now]
                ).map(Self.channel)
            }, write: false)
    }

    /// How many channels LiveRelay holds.
    public func channelCount() async throws(Failure) -> Int {
        try await run(
            "counting channels", { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM activity_channel") ?? 0 },
            write: false)
    }

    /// Saves a channel just created for its activity.
    public func saveChannel(_ channel: ActivityChannel) async throws(Failure) {
        try await run(
            "saving a channel",
            { db in
                try db.execute(
                    sql: """
                        INSERT INTO activity_channel (activity, provider, channel, storage_policy, created_at, delete_at,
                          subscribers)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        ON CONFLICT(activity) DO UPDATE SET provider = excluded.provider, channel = excluded.channel,
                        storage_policy = excluded.storage_policy, created_at = excluded.created_at,
                        delete_at = excluded.delete_at, subscribers = excluded.subscribers
                        """,
                    arguments: [
                        channel.activity.rawValue, channel.provider, channel.id, channel.storagePolicy,
                        channel.createdAt, channel.deleteAt, channel.subscribers,
                    ])
            }, write: true)
    }

    /// Sets when the activity's channel is to be deleted, unless a time is set already.
    public func scheduleChannelDeletion(activity: ActivityKey, at time: Int) async throws(Failure) {
        try await run(
            "scheduling a channel's deletion",
            { db in
                try db.execute(
                    sql: "UPDATE activity_channel SET delete_at = ? WHERE activity = ? AND delete_at IS NULL",
                    arguments: [time, activity.rawValue])
            }, write: true)
    }

    /// Forgets a channel (deleted, or gone at APNs). Returns the activity it carried, if it was known.
    @discardableResult
    public func removeChannel(_ id: String) async throws(Failure) -> ActivityKey? {
        try await run(
            "removing a channel",
            { db in
                let activity = try String.fetchOne(
                    db, sql: "SELECT activity FROM activity_channel WHERE channel = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM activity_channel WHERE channel = ?", arguments: [id])
                return activity.map { ActivityKey($0) }
            }, write: true)
    }

    /// Forgets many channels in one transaction (the collector's sweep).
    public func removeChannels(_ ids: [String]) async throws(Failure) {
        guard !ids.isEmpty else { return }
        try await run(
            "removing channels",
            { db in
                let statement = try db.makeStatement(sql: "DELETE FROM activity_channel WHERE channel = ?")
                for id in ids { try statement.execute(arguments: [id]) }
            }, write: true)
    }

    /// Registers (or unregisters) a device as a channel subscriber: its app subscribes its activities by
    /// channel (`pushType: .channel`, iOS 18).
    public func setChannelSubscriber(device: String, _ subscriber: Bool, now: Int) async throws(Failure) {
        try await run(
            "registering a channel subscriber",
            { db in
                if subscriber {
                    try db.execute(
                        sql: """
                            INSERT INTO channel_subscriber (device, updated_at) VALUES (?, ?)
                            ON CONFLICT(device) DO UPDATE SET updated_at = excluded.updated_at
                            """, arguments: [device, now])
                } else {
                    try db.execute(sql: "DELETE FROM channel_subscriber WHERE device = ?", arguments: [device])
                }
            }, write: true)
    }

    private static func channel(_ row: Row) -> ActivityChannel {
        ActivityChannel(
            activity: ActivityKey(row["activity"]), provider: row["provider"], id: row["channel"],
            storagePolicy: row["storage_policy"], createdAt: row["created_at"], deleteAt: row["delete_at"],
            subscribers: row["subscribers"])
    }
}
