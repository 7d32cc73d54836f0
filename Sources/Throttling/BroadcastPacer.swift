/// Paces the broadcasts to each APNs channel: at most `limit` in any `window` seconds. APNs throttles a
/// channel that is updated too often without publishing the rate, so the pace is a setting; the activity's
/// own budget (``BudgetPolicy``) applies before it, as for token pushes. A broadcast over the pace waits in
/// the outbox, where a newer state replaces it (the latest state goes at the next free moment). Pure; kept in
/// memory (a new process starts afresh).
///
/// A channel APNs answered `429 TooManyRequests` is held until its next try (``hold(_:until:)``): what is
/// released for it meanwhile waits for that moment, so the newest state goes when the channel has room.
public struct BroadcastPacer: Sendable, Hashable {
    private var sends: [String: SendWindow] = [:]
    /// Channels APNs throttled, and until when (UNIX seconds) nothing goes to them.
    private var held: [String: Int] = [:]

    public init() {}

    /// Whether a broadcast may go to `channel` now, or the time from which it may.
    public enum Verdict: Sendable, Hashable {
        case allow
        case deferUntil(Int)
    }

    /// Checks and, when allowed, records one broadcast. A `limit` of 0 or less paces nothing.
    public mutating func admit(channel: String, limit: Int, window: Int, now: Int) -> Verdict {
        if let until = held[channel] {
            if now < until { return .deferUntil(until) }
            held[channel] = nil
        }
        guard limit > 0, window > 0 else { return .allow }
        return sends[channel, default: SendWindow()].admit(now: now, size: limit, period: window).map(
            Verdict.deferUntil)
            ?? .allow
    }

    /// Holds a channel APNs throttled: no broadcast to it before `until`.
    public mutating func hold(_ channel: String, until: Int) { held[channel] = max(held[channel] ?? until, until) }

    /// Forgets a channel (deleted).
    public mutating func forget(_ channel: String) {
        sends[channel] = nil
        held[channel] = nil
    }
}
