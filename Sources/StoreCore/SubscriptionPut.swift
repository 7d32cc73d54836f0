public import LiveRelayCore

/// What writing a subscription (a PUT through the token API, or one line of an import) does, the same in
/// every store: the store reads the subscription of that id, if there is one, and writes what this says.
///
/// - An id not taken is a new subscription: inserted, its entity's generation moved.
/// - An id of another device's or another entity's subscription is a conflict: nothing is written (an id
///   never moves to another device or entity; the caller deletes and creates).
/// - The same subscription with other parameters: the parameters and the time of the change are written,
///   and the entity's generation moved, so every reader keeping the entity's subscriptions reads them again.
/// - The same parameters again (a retried PUT) write nothing, not even the time of the last change.
public enum SubscriptionPut: Sendable, Hashable {
    /// Insert it; its entity's generation moves.
    case insert
    /// Write its parameters and `changed_at`; its entity's generation moves.
    case update
    /// Nothing to write: the same parameters again.
    case unchanged
    /// Nothing written: the id is this other subscription's.
    case conflict(Subscription)

    /// What writing `subscription` does, given the subscription stored under its id.
    public static func decide(_ subscription: Subscription, existing: Subscription?) -> SubscriptionPut {
        guard let existing else { return .insert }
        guard existing.device == subscription.device, existing.entity == subscription.entity else {
            return .conflict(existing)
        }
        return existing.parameters == subscription.parameters ? .unchanged : .update
    }

    /// What the caller is told.
    public var outcome: SubscriptionWrite {
        switch self {
        case .insert: .created
        case .update, .unchanged: .changed
        case .conflict(let existing): .conflict(existing)
        }
    }
}
