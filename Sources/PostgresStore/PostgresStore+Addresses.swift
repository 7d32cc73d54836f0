public import LiveRelayCore
import Logging
import PostgresNIO
public import Store

/// The addresses FCM, Pushwoosh and Getui send to, by device (and by activity), as the SQLite store keeps
/// them (see ``StateStore``).
extension PostgresStore {

    @discardableResult
    public func registerAddress(_ record: RegisteredAddress, now: Int) async throws(Failure) -> Bool {
        try await transaction("registering a provider address") { connection in
            if let address = record.address,
                try await !connection.rows(
                    "SELECT 1 FROM dropped_address WHERE provider = \(record.provider) AND address = \(address)",
                    logger: logger
                ).isEmpty
            {
                return false
            }
            try await connection.checkedQuery(
                """
                INSERT INTO device_address (device, provider, address, "user", updated_at)
                VALUES (\(record.device), \(record.provider), \(record.address), \(record.user), \(now))
                ON CONFLICT (device, provider) DO UPDATE SET address = excluded.address, "user" = excluded."user",
                  updated_at = excluded.updated_at
                """, logger: logger)
            return true
        }
    }

    public func removeAddress(device: String, provider: String) async throws(Failure) {
        try await execute(
            "removing a provider address",
            "DELETE FROM device_address WHERE device = \(device) AND provider = \(provider)")
    }

    public func addresses(provider: String, devices: [String]) async throws(Failure) -> [String: RegisteredAddress] {
        guard !devices.isEmpty else { return [:] }
        var out: [String: RegisteredAddress] = [:]
        for row in try await rows(
            "reading provider addresses",
            """
            SELECT device, address, "user" FROM device_address
            WHERE provider = \(provider) AND device = ANY(\(devices)::text[])
            """)
        {
            let (device, address, user) = try decode(row, (String, String?, String?).self, "reading provider addresses")
            out[device] = RegisteredAddress(device: device, provider: provider, address: address, user: user)
        }
        return out
    }

    public func addresses(provider: String) async throws(Failure) -> [RegisteredAddress] {
        var out: [RegisteredAddress] = []
        for row in try await rows(
            "reading provider addresses",
            """
            SELECT device, address, "user" FROM device_address WHERE provider = \(provider) ORDER BY device COLLATE "C"
            """)
        {
            let (device, address, user) = try decode(row, (String, String?, String?).self, "reading provider addresses")
            out.append(RegisteredAddress(device: device, provider: provider, address: address, user: user))
        }
        return out
    }

    public func subscribedDevices(entity: EntityKey) async throws(Failure) -> [String] {
        var out: [String] = []
        for row in try await rows("reading subscriptions", Self.subscribedDevices(entity: entity)) {
            out.append(try decode(row, String.self, "reading subscriptions"))
        }
        return out
    }

    /// The devices subscribed to `entity`; with `device`, see ``follower(_:of:)``.
    static func subscribedDevices(entity: EntityKey, device: String? = nil) -> PostgresQuery {
        if let device { return follower(device, of: entity) }
        return """
            SELECT device FROM subscription WHERE feed = \(entity.feed) AND entity = \(entity.id)
            ORDER BY device COLLATE "C"
            """
    }

    public func registerActivityAddress(activity: ActivityKey, provider: String, address: String) async throws(Failure)
    {
        try await execute(
            "registering an activity address",
            """
            INSERT INTO activity_address (activity, provider, address) VALUES (\(activity.rawValue), \(provider), \(address))
            ON CONFLICT (activity, provider) DO UPDATE SET address = excluded.address
            """)
    }

    public func removeActivityAddress(activity: ActivityKey, provider: String) async throws(Failure) {
        try await execute(
            "removing an activity address",
            "DELETE FROM activity_address WHERE activity = \(activity.rawValue) AND provider = \(provider)")
    }

    public func activityAddress(activity: ActivityKey, provider: String) async throws(Failure) -> String? {
        for row in try await rows(
            "reading an activity address",
            "SELECT address FROM activity_address WHERE activity = \(activity.rawValue) AND provider = \(provider)")
        {
            return try decode(row, String.self, "reading an activity address")
        }
        return nil
    }

    public func dropAddress(_ address: String, provider: String, reason: String, now: Int) async throws(Failure) {
        try await executeAll(
            "dropping a provider address",
            [
                "DELETE FROM device_address WHERE provider = \(provider) AND address = \(address)",
                """
                INSERT INTO dropped_address (provider, address, reason, dropped_at)
                VALUES (\(provider), \(address), \(reason), \(now)) ON CONFLICT DO NOTHING
                """,
            ])
    }
}
