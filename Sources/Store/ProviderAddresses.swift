import Foundation
import GRDB
public import LiveRelayCore

/// What FCM, Pushwoosh and Getui need besides the APNs tokens:
/// - per device and provider type: the provider's address of the install (FCM registration token, Getui
///   `cid`, Pushwoosh push token or HWID) and a Pushwoosh user id;
/// - per activity and provider type: the provider's id of the activity (Pushwoosh `live_activity_id`,
///   Getui `laId`); without one, the activity key is used;
/// - dropped addresses, never stored again (as dropped tokens are).
extension SQLiteStore {
    static func registerProviderAddressMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v4-provider-addresses") { db in
            try db.create(table: "device_address") { t in
                t.column("device", .text).notNull()
                t.column("provider", .text).notNull()
                t.column("address", .text)
                t.column("user", .text)
                t.column("updated_at", .integer).notNull()
                t.primaryKey(["device", "provider"])
            }
            try db.create(table: "activity_address") { t in
                t.column("activity", .text).notNull()
                t.column("provider", .text).notNull()
                t.column("address", .text).notNull()
                t.primaryKey(["activity", "provider"])
            }
            try db.create(table: "dropped_address") { t in
                t.column("provider", .text).notNull()
                t.column("address", .text).notNull()
                t.column("reason", .text).notNull()
                t.column("dropped_at", .integer).notNull()
                t.primaryKey(["provider", "address"])
            }
        }
    }

    /// Stores (or replaces) a device's address at a provider. Returns `false`, storing nothing, when the
    /// address was dropped before.
    @discardableResult
    public func registerAddress(_ record: RegisteredAddress, now: Int) async throws(Failure) -> Bool {
        try await run(
            "registering a provider address",
            { db in
                if let address = record.address,
                    try Bool.fetchOne(
                        db, sql: "SELECT EXISTS(SELECT 1 FROM dropped_address WHERE provider = ? AND address = ?)",
                        arguments: [record.provider, address]) == true
                {
                    return false
                }
                try db.execute(
                    sql: """
                        INSERT INTO device_address (device, provider, address, user, updated_at) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT(device, provider) DO UPDATE SET address = excluded.address, user = excluded.user,
                        updated_at = excluded.updated_at
                        """, arguments: [record.device, record.provider, record.address, record.user, now])
                return true
            }, write: true)
    }

    /// Removes a device's address at a provider (the app signed out or uninstalled the provider's SDK).
    public func removeAddress(device: String, provider: String) async throws(Failure) {
        try await run(
            "removing a provider address",
            { db in
                try db.execute(
                    sql: "DELETE FROM device_address WHERE device = ? AND provider = ?", arguments: [device, provider])
            }, write: true)
    }

    /// The addresses at `provider` of the given devices, by device.
    public func addresses(provider: String, devices: [String]) async throws(Failure) -> [String: RegisteredAddress] {
        try await run(
            "reading provider addresses", { db in try Self.addresses(db, provider: provider, devices: devices) },
            write: false)
    }

    static func addresses(_ db: Database, provider: String, devices: [String]) throws -> [String: RegisteredAddress] {
        // Only the devices asked for (a start's subscribers), 500 per query, not the provider's whole table.
        var out: [String: RegisteredAddress] = [:]
        for start in stride(from: 0, to: devices.count, by: 500) {
            let chunk = devices[start..<min(start + 500, devices.count)]
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            for row in try Row.fetchAll(
                db,
                sql: "SELECT device, address, user FROM device_address WHERE provider = ? AND device IN (\(marks))",
                arguments: StatementArguments([provider] + chunk))
            {
                let device: String = row["device"]
                out[device] = RegisteredAddress(
                    device: device, provider: provider, address: row["address"], user: row["user"])
            }
        }
        return out
    }

    /// Every device with an address at `provider`, in device order.
    public func addresses(provider: String) async throws(Failure) -> [RegisteredAddress] {
        try await run(
            "reading provider addresses",
            { db in
                try Row.fetchAll(
                    db, sql: "SELECT device, address, user FROM device_address WHERE provider = ? ORDER BY device",
                    arguments: [provider]
                ).map {
                    RegisteredAddress(
                        device: $0["device"], provider: provider, address: $0["address"], user: $0["user"])
                }
            }, write: false)
    }

    /// The devices subscribed to an entity, in order.
    public func subscribedDevices(entity: EntityKey) async throws(Failure) -> [String] {
        try await run("reading subscriptions", { db in try Self.subscribedDevices(db, entity: entity) }, write: false)
    }

    /// With `device`, that device when it follows the entity through a plain subscription or a personal one;
    /// without, the plain subscribers alone.
    static func subscribedDevices(_ db: Database, entity: EntityKey, device: String? = nil) throws -> [String] {
        if let device {
            return try String.fetchAll(
                db,
                sql: """
                    SELECT ? WHERE EXISTS (SELECT 1 FROM subscription WHERE feed = ? AND entity = ? AND device = ?)
                    OR EXISTS (SELECT 1 FROM personal_subscription WHERE feed = ? AND entity = ? AND device = ?)
                    """, arguments: [device, entity.feed, entity.id, device, entity.feed, entity.id, device])
        }
        return try String.fetchAll(
            db, sql: "SELECT device FROM subscription WHERE feed = ? AND entity = ? ORDER BY device",
            arguments: [entity.feed, entity.id])
    }

    /// Sets the provider's id of an activity (Pushwoosh `live_activity_id`, Getui `laId`).
    public func registerActivityAddress(activity: ActivityKey, provider: String, address: String) async throws(Failure)
    {
        try await run(
            "registering an activity address",
            { db in
                try db.execute(
                    sql: """
                        INSERT INTO activity_address (activity, provider, address) VALUES (?, ?, ?)
                        ON CONFLICT(activity, provider) DO UPDATE SET address = excluded.address
                        """, arguments: [activity.rawValue, provider, address])
            }, write: true)
    }

    /// Removes the provider's id of an activity; its pushes go to the activity key again.
    public func removeActivityAddress(activity: ActivityKey, provider: String) async throws(Failure) {
        try await run(
            "removing an activity address",
            { db in
                try db.execute(
                    sql: "DELETE FROM activity_address WHERE activity = ? AND provider = ?",
                    arguments: [activity.rawValue, provider])
            }, write: true)
    }

    /// The provider's id of an activity, if one was registered.
    public func activityAddress(activity: ActivityKey, provider: String) async throws(Failure) -> String? {
        try await run(
            "reading an activity address",
            { db in try Self.activityAddress(db, activity: activity, provider: provider) },
            write: false)
    }

    static func activityAddress(_ db: Database, activity: ActivityKey, provider: String) throws -> String? {
        try String.fetchOne(
            db, sql: "SELECT address FROM activity_address WHERE activity = ? AND provider = ?",
            arguments: [activity.rawValue, provider])
    }

    /// Removes an address wherever it is registered at `provider` and remembers it, so it is never stored
    /// or used again (FCM `UNREGISTERED`, Getui invalid target).
    public func dropAddress(_ address: String, provider: String, reason: String, now: Int) async throws(Failure) {
        try await run(
            "dropping a provider address",
            { db in
                try db.execute(
                    sql: "DELETE FROM device_address WHERE provider = ? AND address = ?",
                    arguments: [provider, address])
                try db.execute(
                    sql:
                        "INSERT OR IGNORE INTO dropped_address (provider, address, reason, dropped_at) VALUES (?, ?, ?, ?)",
                    arguments: [provider, address, reason, now])
            }, write: true)
    }
}
