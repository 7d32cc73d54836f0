import GRDB
public import LiveRelayCore

extension SQLiteStore {
    /// Answers a provider's registry query (see ``RegistryQuery``) in one read: the tokens, the subscribers,
    /// and the addresses of every device found, so one push's targets cost one round trip to the file.
    public func registryRows(_ query: RegistryQuery) async throws(Failure) -> RegistryRows {
        try await registryRows([query])[0]
    }

    /// Answers many registry queries in one read of the file (a release round's pushes: one hop to the
    /// database, not one per push).
    public func registryRows(_ queries: [RegistryQuery]) async throws(Failure) -> [RegistryRows] {
        guard !queries.isEmpty else { return [] }
        return try await run(
            "reading push targets",
            { db in
                let read = try Self.oneDeviceStarts(queries, db)
                return try queries.indices.map { i in try read[i] ?? Self.registryRows(queries[i], db) }
            }, write: false)
    }

    /// The answers to the queries of ``OneDeviceStarts``' groups, by index: one statement per group.
    private static func oneDeviceStarts(_ queries: [RegistryQuery], _ db: Database) throws -> [Int: RegistryRows] {
        var out: [Int: RegistryRows] = [:]
        for (group, devices, indices) in OneDeviceStarts(queries).groups {
            let tokens = try pushToStartTokens(
                db, entity: group.entity, attributesType: group.attributesType, environment: group.environment,
                devices: devices)
            out.merge(OneDeviceStarts.answers(indices, of: queries, tokens: tokens)) { $1 }
        }
        return out
    }

    static func registryRows(_ query: RegistryQuery, _ db: Database) throws -> RegistryRows {
        var rows = RegistryRows()
        switch query.tokens {
        case .pushToStart(let entity, let attributesType)?:
            rows.tokens = try Self.pushToStartTokens(
                db, entity: entity, attributesType: attributesType, environment: query.environment,
                device: query.device)
        case .activity(let activity)?:
            rows.tokens = try Self.activityTokens(db, activity: activity, environment: query.environment)
        case nil:
            break
        }
        if let entity = query.subscribers {
            rows.subscribers = try Self.subscribedDevices(db, entity: entity, device: query.device)
        }
        if let registry = query.registry {
            var devices = rows.subscribers
            var seen = Set(devices)
            for token in rows.tokens where seen.insert(token.device).inserted { devices.append(token.device) }
            rows.addresses = try Self.addresses(db, provider: registry, devices: devices)
            rows.activityAddress = try Self.activityAddress(db, activity: query.activity, provider: registry)
        }
        return rows
    }
}
