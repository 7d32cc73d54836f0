public import LiveRelayCore
public import StoreCore

/// Which broadcast channels nothing needs any more: a pure decision over what APNs lists, what the state
/// file knows, and the activities' phases.
///
/// A channel is stale when
/// - no row names it: a run created it and stopped before saving it (a crash), or someone else made it (so
///   only one deployment may collect an app's channels in one environment);
/// - its deletion is due (its activity has left the lock screen) and the last try failed;
/// - its activity has ended without its end reaching the channel, or is unknown, and nothing waits for it
///   (in the outbox, or held by the throttle).
///
/// Run it while workers run: it reads APNs' list before the state file, so a channel a worker creates and
/// saves meanwhile is known; only one created in the instant between its creation and its row is at risk.
///
/// A known channel APNs no longer lists is reported too (`missing`): it is forgotten, not deleted.
public enum ChannelCollector {
    /// Why a channel is stale.
    public enum Reason: String, Sendable, Hashable {
        case unknown = "unknown to this state file"
        case due = "its activity has left the lock screen"
        case ended = "its activity has ended"
        case orphaned = "its activity is not in the state file"
        case missing = "APNs no longer has it"
    }

    /// One stale channel.
    public struct Stale: Sendable, Hashable {
        public var id: String
        /// The activity its row names; `nil` for an unknown channel.
        public var activity: ActivityKey?
        public var reason: Reason
    }

    /// The stale channels among `listed` (APNs' list) and `known` (the state file's rows for this
    /// provider), in APNs' order then the known order. `phases` holds the known activities' phases,
    /// `waiting` the activities with something still to send (outbox rows, a push the throttle holds).
    public static func stale(
        listed: [String], known: [ActivityChannel], phases: [ActivityKey: ActivityPhase], waiting: Set<ActivityKey>,
        now: Int
    ) -> [Stale] {
        let byID = Dictionary(known.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var stale: [Stale] = []
        for id in listed {
            guard let channel = byID[id] else {
                stale.append(Stale(id: id, activity: nil, reason: .unknown))
                continue
            }
            if let at = channel.deleteAt {
                // Scheduled: the deletion rounds take it at its time; one past it failed there.
                if at <= now { stale.append(Stale(id: id, activity: channel.activity, reason: .due)) }
            } else if waiting.contains(channel.activity) {
                continue
            } else if let phase = phases[channel.activity] {
                if phase == .ended { stale.append(Stale(id: id, activity: channel.activity, reason: .ended)) }
            } else {
                stale.append(Stale(id: id, activity: channel.activity, reason: .orphaned))
            }
        }
        let listedIDs = Set(listed)
        for channel in known where !listedIDs.contains(channel.id) {
            stale.append(Stale(id: channel.id, activity: channel.activity, reason: .missing))
        }
        return stale
    }
}
