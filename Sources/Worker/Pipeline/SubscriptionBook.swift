public import LiveRelayCore
public import Rules
public import StoreCore
import Synchronization

/// The personal subscriptions of the entities a worker's polls changed, kept between polls with their
/// indexes (``SubscriptionSet``): a poll reads only each entity's generation from the store and reads its
/// subscriptions again only when they were written since (through the API, a token file, another worker),
/// or when the rules in force now require other crossings. Which subscriptions own a running activity is
/// read with them and then kept from the activities the polls and timer passes write.
public final class SubscriptionBook: Sendable {
    struct Entry {
        var generation: Int
        var crossings: [String]
        var set: SubscriptionSet
    }

    private let entries = Mutex<[EntityKey: Entry]>([:])

    public init() {}

    /// The subscriptions of `entities` (those with none are absent), read again where they changed;
    /// `generations`: theirs, when the caller read them already.
    public func sets(
        for entities: [EntityKey], crossings: [String: [Crossing]], store: any ActivityStore & SubscriptionStore,
        generations known: [EntityKey: Int]? = nil
    ) async throws(StoreFailure) -> [EntityKey: SubscriptionSet] {
        guard !entities.isEmpty else { return [:] }
        let generations: [EntityKey: Int]
        if let known {
            generations = known
        } else {
            generations = try await store.subscriptionGenerations(of: entities)
        }
        var kept: [EntityKey: SubscriptionSet] = [:]
        var stale: [EntityKey] = []
        entries.withLock { entries in
            for entity in Set(entities) {
                guard let generation = generations[entity] else {
                    entries[entity] = nil
                    continue
                }
                let wanted = (crossings[entity.feed] ?? []).map(\.key)
                if let entry = entries[entity], entry.generation == generation, entry.crossings == wanted {
                    kept[entity] = entry.set
                } else {
                    stale.append(entity)
                }
            }
        }
        guard !stale.isEmpty else { return kept.filter { !$0.value.subscriptions.isEmpty } }
        let read = try await store.subscriptions(of: stale)
        let alerts = try await store.subscriptionAlerts(of: stale)
        var fresh: [EntityKey: Entry] = [:]
        for entity in stale {
            let wanted = crossings[entity.feed] ?? []
            fresh[entity] = Entry(
                generation: generations[entity] ?? 0, crossings: wanted.map(\.key),
                set: SubscriptionSet(read[entity] ?? [], crossings: wanted, alerts: alerts[entity] ?? []))
        }
        entries.withLock { entries in
            for (entity, entry) in fresh {
                // A write after the generation was read is read again by the next poll (its generation moved).
                entries[entity] = entry
                kept[entity] = entry.set
            }
        }
        return kept.filter { !$0.value.subscriptions.isEmpty }
    }

    /// Forgets everything: the next poll reads each entity's subscriptions again. A worker taking the polls
    /// over calls it, as another worker's polls may have started alerts meanwhile (which this book would not
    /// count as running).
    public func forget() { entries.withLock { $0.removeAll() } }

    /// Keeps which subscriptions own a running activity and how many alerts are behind each, from the
    /// activities a poll or timer pass just wrote (`before`: as they were).
    public func note(_ records: [ActivityRecord], before: [ActivityKey: ActivityRecord]) {
        let owned = records.filter { $0.start?.subscription != nil && $0.entity != nil }
        guard !owned.isEmpty else { return }
        entries.withLock { entries in
            for record in owned {
                guard let entity = record.entity, let owner = record.start?.subscription else { continue }
                entries[entity]?.set.note(
                    owner, running: record.phase != .ended,
                    ended: record.phase == .ended && before[record.key]?.phase != .ended)
            }
        }
    }

    /// The subscriptions that own `records` (activities of personal rules, running) and still exist, each
    /// with how many of its alerts are behind it, by activity: from the book, its entities read first where
    /// they changed.
    public func owners(
        of records: [ActivityRecord], crossings: [String: [Crossing]], store: any ActivityStore & SubscriptionStore
    )
        async throws(StoreFailure) -> [ActivityKey: (Subscription, earlierAlerts: Int)]
    {
        let owned = records.compactMap { record in
            record.start?.subscription.flatMap { owner in record.entity.map { (record.key, owner, $0) } }
        }
        guard !owned.isEmpty else { return [:] }
        let sets = try await sets(for: Array(Set(owned.map(\.2))), crossings: crossings, store: store)
        var out: [ActivityKey: (Subscription, earlierAlerts: Int)] = [:]
        for (key, owner, entity) in owned {
            guard let found = sets[entity]?.subscription(owner.id), found.0.owner == owner else { continue }
            out[key] = found
        }
        return out
    }
}
