/// A device's own subscription to an entity, with the parameters the rules of a rule file that declares
/// `subscription` read (`{"above": 190}`): its activities are its own, started, updated and ended for its
/// device alone. The app backend names it (its id is the backend's, so a retried `PUT` changes nothing).
public struct Subscription: Sendable, Hashable, Codable {
    /// The backend's name for it (the token API's `A-Z a-z 0-9 . _ : -`, at most 200 characters).
    public var id: String
    public var device: String
    public var entity: EntityKey
    /// A JSON object, valid against the parameters every rule file of the entity's feed declares.
    public var parameters: JSONValue
    /// When (UNIX seconds) it was created; a change of its parameters keeps it.
    public var createdAt: Int
    /// When its parameters last changed (its creation at first).
    public var changedAt: Int

    /// A subscription.
    public init(
        id: String, device: String, entity: EntityKey, parameters: JSONValue, createdAt: Int, changedAt: Int? = nil
    ) {
        self.id = id
        self.device = device
        self.entity = entity
        self.parameters = parameters
        self.createdAt = createdAt
        self.changedAt = changedAt ?? createdAt
    }

    /// What a rule reads as `subscription`: its `id`, `device`, `parameters`, `created-at` and
    /// `earlier-alerts` (how many of its alerts are behind it: an activity key that reads it gives each
    /// alert after the first an activity of its own, so that an alert can fire again once one has ended).
    public func view(earlierAlerts: Int = 0) -> JSONValue {
        .object([
            "id": .string(id), "device": .string(device), "parameters": parameters, "created-at": .int(createdAt),
            "earlier-alerts": .int(earlierAlerts),
        ])
    }

    /// Who it is, as an activity it made keeps it.
    public var owner: SubscriptionOwner { SubscriptionOwner(id: id, device: device, createdAt: createdAt) }
}

/// The subscription an activity belongs to: its id, its device (the only one its pushes go to) and its
/// creation time (a subscription deleted and created again under the same id is another one).
public struct SubscriptionOwner: Sendable, Hashable, Codable {
    public var id: String
    public var device: String
    public var createdAt: Int

    /// An owner.
    public init(id: String, device: String, createdAt: Int) {
        self.id = id
        self.device = device
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, device
        case createdAt = "created-at"
    }
}

/// What writing a subscription did.
public enum SubscriptionWrite: Sendable, Hashable {
    /// It is new.
    case created
    /// It existed: its parameters are now these (unchanged when they were already).
    case changed
    /// The id is another device's or another entity's subscription: nothing was written.
    case conflict(Subscription)
}

/// A deleted subscription whose activities are still to end: the store keeps it until the worker has
/// ended them (``SubscriptionOwner`` tells which activities were its own).
public struct DeletedSubscription: Sendable, Hashable {
    public var owner: SubscriptionOwner
    public var entity: EntityKey
    /// When (UNIX seconds) it was deleted.
    public var at: Int

    /// A deletion.
    public init(owner: SubscriptionOwner, entity: EntityKey, at: Int) {
        self.owner = owner
        self.entity = entity
        self.at = at
    }
}

/// The activities one subscription (its id, as one device created it at one time) started for its entity:
/// how many still run and how many ended. What the subscription book needs of an entity's activities,
/// counted by the store's query, so reading it does not read every alert the entity ever had.
public struct SubscriptionAlerts: Sendable, Hashable {
    public var owner: SubscriptionOwner
    /// Its activities pending or active.
    public var running: Int
    /// Its activities ended.
    public var ended: Int

    /// A count.
    public init(owner: SubscriptionOwner, running: Int, ended: Int) {
        self.owner = owner
        self.running = running
        self.ended = ended
    }

    /// The counts of `records` (one entity's activities), by owner in (id, created-at, device) order; records
    /// no subscription started are not counted.
    public static func tally(_ records: [ActivityRecord]) -> [SubscriptionAlerts] {
        var counts: [SubscriptionOwner: (running: Int, ended: Int)] = [:]
        for record in records {
            guard let owner = record.start?.subscription else { continue }
            if record.phase == .ended {
                counts[owner, default: (0, 0)].ended += 1
            } else {
                counts[owner, default: (0, 0)].running += 1
            }
        }
        return counts.map { SubscriptionAlerts(owner: $0.key, running: $0.value.running, ended: $0.value.ended) }
            .sorted {
                ($0.owner.id, $0.owner.createdAt, $0.owner.device) < ($1.owner.id, $1.owner.createdAt, $1.owner.device)
            }
    }
}
