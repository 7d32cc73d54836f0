import Delivery
import Foundation
import LiveRelayCore
import Logging
import StoreCore
import Throttling

/// The release stage: what the throttle lets go now becomes durable outbox rows (or fan-outs) with their
/// targets, in one transaction with the throttle's state. The targets of the round are read at once and
/// paced; what still waits for the same activities is superseded; late joiners' starts join the round.
/// Nothing is sent here (``DeliverStage`` sends), so a crash between the two loses nothing.
struct ReleaseStage: Sendable {
    let store: any OutboxStore & RegistryStore & ActivityStore
    let rules: RuleBook
    let queue: StoredThrottle
    /// Each provider's sender, by provider id: its traits (addressing) and channel pace.
    let senders: [String: Sender]
    /// The broadcast channels a start in `channel` or `both` mode creates; `nil` when no provider has channels.
    let channels: ChannelKeeper?
    let metrics: LiveRelayMetrics
    let logger: Logger
    let history: HistoryRecorder?

    /// One release round: asks the throttle what may go now and writes each released push to the outbox,
    /// one row per target its provider's addressing finds in the registry, in the same transaction as the
    /// throttle's state; what still waits for the same activities is superseded there too (``Supersession``:
    /// an older state never goes out after a newer one, a start not yet delivered carries the newest state,
    /// an ended activity is never started).
    func run(now: Int) async throws(StoreFailure) -> [ThrottleDecision] {
        let routes = rules.routes
        let decisions = await queue.release(now: now) { routes.provider(for: $0) }
        var staged = StagedRelease()
        var released: [ActivityKey: LiveActivityPush] = [:]
        var pushes: [LiveActivityPush] = []
        for case .send(let push, _) in decisions {
            released[push.activity] = push
            pushes.append(push)
        }
        try await stage(pushes, routes: routes, into: &staged, now: now)
        // Devices that began to follow an entity whose activity runs get its start; a start of the same
        // activity the throttle released for the same device this round goes instead.
        let joins = try await store.lateJoins(limit: Self.lateJoinsPerRound)
        let releasedTargets = Set(staged.entries.map(\.key))
        for push in try await lateJoinStarts(joins) {
            var late = StagedRelease()
            try await stage([push], routes: routes, into: &late, now: now)
            staged.entries += late.entries.filter { !releasedTargets.contains($0.key) }
            metrics.lateJoin(late.entries.isEmpty ? "no-token" : "started")
            if late.entries.isEmpty {
                logger.info(
                    "late joiner not started: no push-to-start token",
                    metadata: ["activity.key": "\(push.activity)", "device": "\(push.device ?? "")"])
            }
        }
        let (rewrites, drops) = try await superseded(by: released)
        // A start rewritten to carry an update stands in for the update on its target.
        let rewritten = Set(rewrites.map(\.row.key))
        staged.entries.removeAll { rewritten.contains($0.key) }
        do {
            try await store.commitRelease(
                throttleStates: await queue.takeChanges(), outbox: staged.entries, fanOuts: staged.fanOuts,
                rewrites: rewrites, drops: drops,
                history: history?.write(decisions: decisions, now: now), paces: await queue.takeStartPaces(now: now))
        } catch {
            // What was released is pending again, as the state file says: it goes with a later round.
            await queue.revert(decisions.map(\.activity))
            throw error
        }
        // Looked at: a crash before this looks again, and the delivery's start guard keeps a device from a
        // second start.
        try await store.finishLateJoins(joins)
        for decision in decisions { metrics.throttled(decision) }
        metrics.pendingPushes(await queue.pendingCount)
        return decisions
    }

    /// One broadcast the alerts on an entity's channel share in a round.
    struct SharedBroadcast: Hashable {
        var channel: String
        var event: PushEvent
        var state: JSONValue
    }

    /// What a release round writes to the outbox.
    struct StagedRelease {
        var entries: [OutboxEntry] = []
        var fanOuts: [OutboxFanOut] = []
    }

    /// Finds the targets of pushes and stages their outbox rows (or fan-outs), in order, paced: a
    /// push-to-start by device and attributes type, a broadcast by its channel. The registry is read for all
    /// of them at once, and the saved push-to-start windows of all their targets.
    func stage(
        _ pushes: [LiveActivityPush], routes: ProviderRoutes, into staged: inout StagedRelease, now: Int
    ) async throws(StoreFailure) {
        // A class: the loops below read a push's staging many times, and a copy of it is a copy of the push.
        final class Staging {
            let push: LiveActivityPush
            let provider: String
            let traits: ProviderTraits
            let json: Data
            let mode: ActivityMode
            let channel: ActivityChannel?
            let fanOut: OutboxFanOut?
            var rows = RegistryRows()

            init(
                push: LiveActivityPush, provider: String, traits: ProviderTraits, json: Data, mode: ActivityMode,
                channel: ActivityChannel?, fanOut: OutboxFanOut?
            ) {
                (self.push, self.provider, self.traits, self.json) = (push, provider, traits, json)
                (self.mode, self.channel, self.fanOut) = (mode, channel, fanOut)
            }
        }
        var all: [Staging] = []
        let unsent = try await unsentChannelEnds(pushes, routes: routes)
        var channelOf: [ActivityKey: ActivityChannel?] = [:]
        for push in pushes {
            let provider = routes.provider(for: push)
            guard let traits = senders[provider]?.provider.traits else { continue }
            let json = push.writtenJSON()
            let mode = routes.mode(for: push)
            // The alerts on an entity's channel look it up once a round.
            let owner = routes.channelOwner(for: push)
            let channel: ActivityChannel?
            if mode == .token || channels == nil {
                channel = nil
            } else if owner != push.activity, !push.isLateJoin, let known = channelOf[owner] {
                channel = known
            } else {
                channel = try await channels?.channel(
                    for: push, provider: provider, mode: mode, routes: routes, now: now)
                if owner != push.activity, !push.isLateJoin { channelOf[owner] = channel }
            }
            // A push to every update token is one fan-out (its tokens read as it goes); its other targets (a
            // broadcast in `both` mode) are those of no registry rows.
            let fanOut = OutboxFanOut.of(
                push, json: json, traits: traits, provider: provider, channel: channel?.id, mode: mode, now: now)
            all.append(
                Staging(
                    push: push, provider: provider, traits: traits, json: json, mode: mode, channel: channel,
                    fanOut: fanOut))
        }
        let read = all.indices.filter { all[$0].fanOut == nil }
        let answers = try await store.registryRows(read.map { all[$0].traits.addressing.query(for: all[$0].push) })
        for (i, rows) in zip(read, answers) { all[i].rows = rows }
        var targetsOf: [[PushTarget]] = []
        for s in all {
            let targets = s.traits.addressing.targets(
                for: s.push, rows: s.rows, deliversWithoutTargets: s.traits.deliversWithoutTargets,
                channel: s.channel?.id, channelPolicy: s.channel?.storagePolicy, mode: s.mode)
            if let fanOut = s.fanOut {
                staged.fanOuts.append(fanOut)
            } else if targets.isEmpty, !s.push.isLateJoin {
                // (A late joiner's start says so itself.)
                logger.info(
                    "no registered token for push",
                    metadata: [
                        "activity.key": "\(s.push.activity)", "push.event": "\(s.push.event)",
                        "device": "\(s.push.device ?? "")",
                    ])
            }
            targetsOf.append(targets)
        }
        try await queue.loadStartPaces(
            zip(all, targetsOf).flatMap { s, targets in
                targets.filter { $0.kind == .pushToStart && !$0.outboxTarget.isEmpty }.map {
                    ($0.outboxTarget, s.push.attributesType)
                }
            })
        // The alerts on an entity's channel told the same this round are one broadcast: the newest timestamp's.
        var carriers: [SharedBroadcast: Int] = [:]
        for (i, s) in all.enumerated() where s.push.event != .start && routes.sharesEntityChannel(s.push) {
            guard let id = s.channel?.id else { continue }
            let key = SharedBroadcast(channel: id, event: s.push.event, state: s.push.contentState)
            if let carrier = carriers[key], all[carrier].push.timestamp >= s.push.timestamp { continue }
            carriers[key] = i
        }
        var going: [(staging: Int, target: PushTarget)] = []
        var paces: [StoredThrottle.Pace] = []
        for (i, (s, targets)) in zip(all, targetsOf).enumerated() {
            for target in targets {
                // A deleted subscription's end is not broadcast to the alerts still running on its channel.
                if target.kind == .channel, unsent.contains(s.push.id) { continue }
                if target.kind == .channel, let id = target.channel, !carriers.isEmpty,
                    let carrier = carriers[
                        SharedBroadcast(channel: id, event: s.push.event, state: s.push.contentState)],
                    carrier != i
                {
                    continue
                }
                going.append((i, target))
                // Push-to-start is paced per device and attributes type; a start over the limit waits in the
                // outbox until the device's window allows it.
                if target.kind == .pushToStart, !target.outboxTarget.isEmpty {
                    paces.append(.start(token: target.outboxTarget, attributesType: s.push.attributesType))
                } else if target.kind == .channel, let id = target.channel,
                    let pace = senders[s.provider]?.provider.channels
                {
                    // A channel's broadcasts keep its pace; one over it waits (a newer state replaces it there).
                    paces.append(.broadcast(channel: id, limit: pace.maxBroadcasts, window: pace.window))
                } else {
                    paces.append(.none)
                }
            }
        }
        // The round's paces in one call, in the order of its targets.
        let dues = await queue.admit(paces, now: now)
        staged.entries.reserveCapacity(staged.entries.count + going.count)
        for ((i, target), due) in zip(going, dues) {
            let s = all[i]
            staged.entries.append(OutboxEntry(s.push, json: s.json, to: target, provider: s.provider, nextAttempt: due))
        }
    }
}
