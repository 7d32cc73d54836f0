import LiveRelayCore

/// Turns a rule's priority policy into an APNs priority. Alerts never go out at priority 5: a `low` rule that
/// carries an alert is sent without it.
public struct PrioritySelector: Sendable, Hashable {
    /// `auto` sends at priority 10 when the relevance is at least this.
    public var autoRelevanceThreshold: Double

    public init(autoRelevanceThreshold: Double = 75) {
        self.autoRelevanceThreshold = autoRelevanceThreshold
    }

    /// The priority, and whether the alert (if any) may be kept.
    public func select(_ policy: PriorityPolicy, hasAlert: Bool, relevance: RelevanceScore?) -> (
        PushPriority, keepAlert: Bool
    ) {
        switch policy {
        case .high: return (.high, true)
        case .low: return (.low, false)
        case .auto:
            if hasAlert || (relevance?.value ?? 0) >= autoRelevanceThreshold { return (.high, true) }
            return (.low, true)
        }
    }
}
