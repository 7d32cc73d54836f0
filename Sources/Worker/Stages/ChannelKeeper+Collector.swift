import Delivery
import LiveRelayCore
import Logging
import StoreCore
import Throttling

/// What the collector found for one provider: the stale channels, and for each whether it was deleted
/// (or forgotten, for one APNs no longer has) or why not.
public struct ChannelSweep: Sendable {
    public var provider: String
    /// How many channels APNs lists for the app in the provider's environment.
    public var listed: Int
    /// How many the state file knows for this provider.
    public var known: Int
    public var stale: [ChannelCollector.Stale]
    /// By stale channel id: `nil` when it was removed (or left alone in a dry run), else why not.
    public var failures: [String: String]
    /// The listing failed: nothing was collected.
    public var error: String?
}

extension ChannelKeeper {
    /// Finds the stale channels of every provider with channels (``ChannelCollector``) and, unless
    /// `dryRun`, deletes them at APNs and forgets them.
    func collect(dryRun: Bool, now: Int) async throws(StoreFailure) -> [ChannelSweep] {
        var sweeps: [ChannelSweep] = []
        for (provider, sender) in senders.sorted(by: { $0.key < $1.key }) {
            guard let channels = sender.provider.channels else { continue }
            var sweep = ChannelSweep(provider: provider, listed: 0, known: 0, stale: [], failures: [:], error: nil)
            // APNs' list first, the state file after: a channel a running worker creates and saves meanwhile
            // is known by then (only one created and not yet saved at that instant is not).
            let listed: [String]
            do throws(ChannelFailure) {
                listed = try await channels.list()
            } catch {
                sweep.error = error.description
                sweeps.append(sweep)
                continue
            }
            let mine = try await store.channels().filter { $0.provider == provider }
            sweep.known = mine.count
            sweep.listed = listed.count
            var keys = Set(mine.map(\.activity))
            var phases = try await store.activities(keys).mapValues(\.phase)
            // An entity's shared channel stands for its personal activities of the type: active while one runs.
            var ownerOf: [ActivityKey: ActivityKey] = [:]
            let shared = mine.compactMap { channel in
                EntityChannel.parse(channel.activity).map { (channel.activity, $0) }
            }
            if !shared.isEmpty {
                let activities = try await store.activities(of: Array(Set(shared.map(\.1.entity))).sorted())
                for (owner, (type, entity)) in shared {
                    let alerts = (activities[entity] ?? []).filter {
                        $0.attributesType == type && $0.start?.subscription != nil
                    }
                    if !alerts.isEmpty { phases[owner] = alerts.contains { $0.phase != .ended } ? .active : .ended }
                    for alert in alerts {
                        ownerOf[alert.key] = owner
                        keys.insert(alert.key)
                    }
                }
            }
            // Something still to go for the activity: a row in the outbox, or a push the throttle holds (an end
            // waiting for its budget).
            try await queue.load(keys)
            let held = await queue.states.filter { keys.contains($0.key) && $0.value.pending != nil }.keys
            let waiting = Set(
                (try await store.waitingOutbox(activities: keys).map(\.key.activity) + held).map { ownerOf[$0] ?? $0 })
            sweep.stale = ChannelCollector.stale(
                listed: listed, known: mine, phases: phases, waiting: waiting, now: now)
            if !dryRun {
                // The deletes go to APNs 16 at a time; those APNs confirmed are then forgotten in one write.
                let refused = await Self.deleteAll(
                    sweep.stale.filter { $0.reason != .missing }.map(\.id), with: channels)
                sweep.failures = refused
                let removed = sweep.stale.filter { refused[$0.id] == nil }
                try await store.removeChannels(removed.map(\.id))
                for stale in removed {
                    if stale.reason != .missing { metrics.channelDeleted(provider: provider) }
                    logger.info(
                        "stale channel removed",
                        metadata: [
                            "channel": "\(stale.id)", "reason": "\(stale.reason.rawValue)",
                            "activity.key": "\(stale.activity?.rawValue ?? "-")",
                        ])
                }
            }
            sweeps.append(sweep)
        }
        if !dryRun { metrics.channelsOpen(try await store.channelCount()) }
        return sweeps
    }

    /// Deletes `ids` at APNs, `width` at a time; the ids APNs did not delete, with why.
    static func deleteAll(_ ids: [String], with channels: BroadcastChannels, width: Int = 16) async -> [String: String]
    {
        await withTaskGroup(of: (String, String?).self) { group in
            var refused: [String: String] = [:]
            var next = 0
            func add() {
                let id = ids[next]
                next += 1
                group.addTask {
                    do throws(ChannelFailure) {
                        try await channels.delete(id)
                        return (id, nil)
                    } catch {
                        return (id, error.description)
                    }
                }
            }
            while next < min(width, ids.count) { add() }
            for await (id, failure) in group {
                if let failure { refused[id] = failure }
                if next < ids.count { add() }
            }
            return refused
        }
    }
}
