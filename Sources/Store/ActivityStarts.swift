import GRDB
public import LiveRelayCore

/// Which devices each activity was started on: a start is marked when its delivery is written, in the same
/// transaction that takes its row out of the outbox (`settleOutbox`), so a crash never loses a start and
/// only a start in flight at the crash can go twice.
extension SQLiteStore {
    static func registerActivityStartMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v9-activity-starts") { db in
            try db.create(table: "activity_start") { t in
                t.column("activity", .text).notNull()
                t.column("device", .text).notNull()
                t.column("started_at", .integer).notNull()
                t.primaryKey(["activity", "device"])
            }
        }
    }

    /// Marks devices as started on their activities at `now`.
    static func markStarted(_ starts: [DeviceStart], now: Int, in db: Database) throws {
        let mark = try db.cachedStatement(
            sql: """
                INSERT INTO activity_start (activity, device, started_at) VALUES (?, ?, ?)
                ON CONFLICT(activity, device) DO UPDATE SET started_at = excluded.started_at
                """)
        for s in starts {
            try mark.execute(arguments: [s.activity.rawValue, s.device, now])
        }
    }

    /// What is known of these starts: when each was started, and whether the device reported the
    /// activity's update token (then it runs the activity, whoever started it).
    public func deviceStates(_ starts: [DeviceStart]) async throws(Failure) -> [DeviceStart: ActivityDevice] {
        try await run(
            "reading starts",
            { db in
                var out: [DeviceStart: ActivityDevice] = [:]
                let startedAt = try db.cachedStatement(
                    sql: "SELECT started_at FROM activity_start WHERE activity = ? AND device = ?")
                let tokenAt = try db.cachedStatement(
                    sql: "SELECT updated_at FROM activity_token WHERE activity = ? AND device = ?")
                for s in starts {
                    let started = try Int.fetchOne(startedAt, arguments: [s.activity.rawValue, s.device])
                    let token = try Int.fetchOne(tokenAt, arguments: [s.activity.rawValue, s.device])
                    out[s] = ActivityDevice(device: s.device, startedAt: started, tokenAt: token)
                }
                return out
            }, write: false)
    }

    /// Every device an activity was started on or reported a token from, by device.
    public func activityDevices(_ activity: ActivityKey) async throws(Failure) -> [ActivityDevice] {
        try await run(
            "reading an activity's devices",
            { db in
                var byDevice: [String: ActivityDevice] = [:]
                for row in try Row.fetchAll(
                    db, sql: "SELECT device, started_at FROM activity_start WHERE activity = ?",
                    arguments: [activity.rawValue])
                {
                    let device: String = row["device"]
                    byDevice[device] = ActivityDevice(device: device, startedAt: row["started_at"], tokenAt: nil)
                }
                for row in try Row.fetchAll(
                    db, sql: "SELECT device, updated_at FROM activity_token WHERE activity = ?",
                    arguments: [activity.rawValue])
                {
                    let device: String = row["device"]
                    byDevice[device, default: ActivityDevice(device: device, startedAt: nil, tokenAt: nil)].tokenAt =
                        row["updated_at"]
                }
                return byDevice.keys.sorted().map { byDevice[$0]! }
            }, write: false)
    }
}
