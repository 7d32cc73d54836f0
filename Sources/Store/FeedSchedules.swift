import GRDB

extension SQLiteStore {
    /// Also the step after it: the outbox's channel policy (steps are registered in the order they came).
    static func registerFeedScheduleMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v13-feed-schedule") { db in
            try db.alter(table: "feed_state") { t in
                t.add(column: "failures", .integer).notNull().defaults(to: 0)
                t.add(column: "not_before", .integer)
                t.add(column: "not_before_reason", .text)
            }
        }
        migrator.registerMigration("v14-outbox-channel-policy") { db in
            // A broadcast row carries its channel's storage policy: apns-expiration must follow it.
            try db.alter(table: "outbox") { t in t.add(column: "channel_policy", .integer) }
        }
        migrator.registerMigration("v15-start-pace") { db in
            // Push-to-start pacing per device token and attributes type, kept across processes (`tick`).
            try db.create(table: "start_pace") { t in
                t.column("key", .text).primaryKey()
                t.column("sends", .text).notNull()
                t.column("last", .integer).notNull()
            }
            try db.create(index: "start_pace_last", on: "start_pace", columns: ["last"])
        }
    }

    /// A feed's saved schedule; `nil` when none was saved (a feed never polled, or never by `tick`).
    public func feedSchedule(feed: String) async throws(Failure) -> SavedFeedSchedule? {
        try await run(
            "reading a feed's schedule",
            { db in
                try Row.fetchOne(
                    db, sql: "SELECT failures, not_before, not_before_reason FROM feed_state WHERE feed = ?",
                    arguments: [feed]
                ).map {
                    SavedFeedSchedule(
                        failures: $0["failures"], notBefore: $0["not_before"], reason: $0["not_before_reason"])
                }
            }, write: false)
    }

    /// Saves a feed's schedule after a poll.
    public func saveFeedSchedule(feed: String, _ schedule: SavedFeedSchedule) async throws(Failure) {
        try await run(
            "saving a feed's schedule",
            { db in
                try db.execute(
                    sql: """
                        INSERT INTO feed_state (feed, failures, not_before, not_before_reason) VALUES (?, ?, ?, ?)
                        ON CONFLICT(feed) DO UPDATE SET failures = excluded.failures, not_before = excluded.not_before,
                        not_before_reason = excluded.not_before_reason
                        """, arguments: [feed, schedule.failures, schedule.notBefore, schedule.reason])
            }, write: true)
    }
}
