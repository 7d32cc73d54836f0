public import LiveRelayCore

/// What deleting a subscription does to its activities: each one it owns that has not ended ends now, for
/// its device, dismissed at once (the alert was taken away, not finished). Pure.
public enum SubscriptionEnd {
    /// The rule id the ends carry (logs, `replay` output, `liverelay_rule_fired_total`).
    public static let ruleID = ReservedRuleID.subscriptionDeleted

    /// For each deletion, in order, the ends of the activities it owned (``ActivityStart/subscription`` is its
    /// owner, id and creation time both: one deleted and created again owns only its new activities), given
    /// the activities of the deletions' entities; a deletion that owned none running has no ends.
    public static func intents(for deleted: [DeletedSubscription], activities: [EntityKey: [ActivityRecord]])
        -> [(deleted: DeletedSubscription, ends: [ActivityIntent])]
    {
        deleted.map { deletion in
            let owned = (activities[deletion.entity] ?? []).filter {
                $0.start?.subscription == deletion.owner && $0.phase != .ended
            }
            return (
                deletion,
                owned.sorted { $0.key < $1.key }.map { record in
                    var end = ActivityIntent(
                        activity: record.key, attributesType: record.attributesType, event: .end, dismissalAfter: 0,
                        ruleID: ruleID, entity: deletion.entity)
                    end.subscription = deletion.owner
                    return end
                }
            )
        }
    }
}
