/// Paces the broadcasts to each APNs channel: at most `limit` in any `window` seconds. APNs throttles a
/// channel that is updated too often without publishing the rate, so the pace is a setting; the activity's
/// own budget (``BudgetPolicy``) applies before it, as for token pushes. A broadcast over the pace waits in
/// the outbox, where a newer state replaces it (the latest state goes at the next free moment). Pure; kept in
/// memory (a new process starts afresh).
public struct BroadcastPacer: Sendable, Hashable {
    private var sends: [String: SendWindow] = [:]

    public init() {}

    /// Whether a broadcast may go to `channel` now, or the time from which it may.
    public enum Verdict: Sendable, Hashable {
        case allow
        case deferUntil(Int)
    }

    /// Checks and, when allowed, records one broadcast. A `limit` of 0 or less paces nothing.
    public mutating func admit(channel: String, limit: Int, window: Int, now: Int) -> Verdict {
        guard limit > 0, window > 0 else { return .allow }
        return sends[channel, default: SendWindow()].admit(now: now, size: limit, period: window).map(
            Verdict.deferUntil)
            ?? .allow
    }

    /// Forgets a channel (deleted).
    public mutating func forget(_ channel: String) { sends[channel] = nil }
}
