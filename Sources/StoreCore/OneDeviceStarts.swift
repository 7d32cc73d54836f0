public import LiveRelayCore

/// Registry queries that ask only for one device's push-to-start tokens (a personal alert's start, a late
/// joiner's), grouped by the entity, attributes type and environment they share: a store answers each group
/// in one read over its devices instead of a read per query (a poll that starts 1,000 alerts asks 1,000).
/// Each answer is what the query alone gives.
public struct OneDeviceStarts: Sendable {
    /// What a group's queries share.
    public struct Group: Hashable, Sendable {
        public var entity: EntityKey
        public var attributesType: String
        public var environment: PushEnvironment?
    }

    /// Each group of two or more such queries, with the devices it asks for and the queries' indices.
    public private(set) var groups: [(group: Group, devices: [String], queries: [Int])] = []

    /// The groups among `queries`. A query that asks for more (subscribers, provider addresses) or for every
    /// device is in none, nor is one alone in its group: those are read one at a time.
    public init(_ queries: [RegistryQuery]) {
        var found: [Group: [Int]] = [:]
        var order: [Group] = []
        for (i, query) in queries.enumerated() {
            guard case .pushToStart(let entity, let attributesType)? = query.tokens, query.device != nil,
                query.subscribers == nil, query.registry == nil
            else { continue }
            let group = Group(entity: entity, attributesType: attributesType, environment: query.environment)
            if found[group] == nil { order.append(group) }
            found[group, default: []].append(i)
        }
        for group in order {
            guard let indices = found[group], indices.count > 1 else { continue }
            groups.append((group, indices.compactMap { queries[$0].device }, indices))
        }
    }

    /// The answers to a group's queries (by index into the queries), from the tokens read for its devices.
    public static func answers(_ queries: [Int], of all: [RegistryQuery], tokens: [RegisteredToken]) -> [Int:
        RegistryRows]
    {
        var byDevice: [String: [RegisteredToken]] = [:]
        for token in tokens { byDevice[token.device, default: []].append(token) }
        var out: [Int: RegistryRows] = [:]
        for i in queries { out[i] = RegistryRows(tokens: all[i].device.flatMap { byDevice[$0] } ?? []) }
        return out
    }
}
