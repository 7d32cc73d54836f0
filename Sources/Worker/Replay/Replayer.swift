import Delivery
public import Feeds
import Foundation
public import LiveRelayCore
public import Report
import Rules
import Store
import StoreCore
import Throttling

/// Feeds a recorded sequence through the real pipeline with a simulated clock, and prints each change, the
/// rules it fired, each throttle decision and each push (as the provider sends it), and a summary of every
/// activity and its budget at the end. Pushes held for the budget are released when the simulated clock
/// reaches their time, and the queue is drained after the last step. What it decided is also kept as a
/// ``ReportTrace`` in the summary, for `--report`.
public struct Replayer: Sendable {
    public let pipeline: Pipeline
    /// The sequence's feed: each step's body goes through it unless the step names another.
    public let feed: FeedRuntime
    /// The other feeds steps may name, by id.
    public let others: [String: FeedRuntime]
    /// Facts to plot on the report's timelines besides the headline ones (`replay --plot`).
    public var plotted: [String] = []
    /// The environment of the tokens a step registers (``ReplaySequence/Step/tokens``) when they say none:
    /// the provider's.
    public var defaultEnvironment: PushEnvironment = .production
    private let write: @Sendable (String) -> Void

    public init(
        pipeline: Pipeline, feed: FeedRuntime, others: [FeedRuntime] = [], write: @escaping @Sendable (String) -> Void
    ) {
        self.pipeline = pipeline
        self.feed = feed
        self.others = Dictionary(others.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        self.write = write
    }

    /// Replays every step. Body files resolve against `directory`; `afterStep` runs after each step (with
    /// its index from 0), once its pushes were delivered (tests register what an app would report then).
    public func replay(
        _ sequence: ReplaySequence, directory: String,
        afterStep: @Sendable (Int) async throws -> Void = { _ in }
    ) async throws -> ReplaySummary {
        var summary = ReplaySummary(
            trace: ReportTrace(title: sequence.description ?? "Replay of feed \(sequence.feed)"))
        summary.trace.plotted = plotted
        var timersDue: Int?
        for (i, step) in sequence.steps.enumerated() {
            let now = ISO8601Time.seconds(step.at)!
            try await advance(to: now, timersDue: &timersDue, summary: &summary)
            write("")
            let what = [
                step.tokens.map { "tokens \($0)" }, step.body.map { "\(step.feed.map { "\($0): " } ?? "")\($0)" },
            ]
            write(
                "▶ step \(i + 1)/\(sequence.steps.count) at \(step.at): \(what.compactMap { $0 }.joined(separator: ", "))\(step.note.map { " — \($0)" } ?? "")"
            )
            if let tokens = step.tokens {
                // Checked when the sequence was loaded.
                let file = try TokenFile.load(path: resolve(tokens, against: directory))
                if let refusal = file.refusal(pipeline.rules.engine.subscriptionParameters) {
                    // As the token API would refuse it: nothing of the file is registered.
                    write("  \(tokens): \(refusal): nothing registered")
                } else {
                    let refused = try await file.apply(
                        to: pipeline.store, environment: defaultEnvironment, now: now)
                    let own = file.subscriptions.filter { $0.id != nil }.count
                    let deleted = file.deletedSubscriptions.count
                    write(
                        "  registered \(file.subscriptions.count) subscriptions"
                            + (own > 0 ? " (\(own) with parameters)" : "")
                            + ", \(file.pushToStart.count) push-to-start and "
                            + "\(file.activityCount) activity tokens\(refused > 0 ? " (\(refused) refused)" : "")"
                            + (deleted > 0 ? "; deleted \(deleted) subscriptions" : ""))
                }
            }
            guard let bodyFile = step.body else {
                summary.trace.steps.append(.init(index: i, at: now, note: step.note))
                // What the registrations started (late joiners) goes now.
                try await release(at: now, summary: &summary)
                try await afterStep(i)
                continue
            }
            let path = resolve(bodyFile, against: directory)
            guard let body = FileManager.default.contents(atPath: path) else {
                write("  feed error: cannot read \(bodyFile)")
                summary.feedErrors += 1
                summary.trace.steps.append(
                    .init(index: i, at: now, note: step.note, feedError: "cannot read \(bodyFile)"))
                continue
            }
            guard let runtime = step.feed.map({ $0 == feed.id ? feed : others[$0] }) ?? feed else {
                write("  feed error: the config has no feed \(step.feed ?? "")")
                summary.feedErrors += 1
                summary.trace.steps.append(
                    .init(index: i, at: now, note: step.note, feedError: "no feed \(step.feed ?? "")"))
                continue
            }
            let plan = try await pipeline.plan(feed: runtime, body: body, now: now)
            summary.trace.steps.append(
                .init(
                    index: i, at: now, note: step.note, entities: plan.entityCount,
                    feedError: plan.feedError.map { "\($0.kind): \($0.message)" }))
            if let error = plan.feedError {
                write("  feed error (\(error.kind)): \(error.message) — no change emitted, previous facts kept")
                summary.feedErrors += 1
                continue
            }
            describe(plan)
            summary.trace.looks += plan.steps.map { ReportTrace.Look($0, at: now, plotted: plotted) }
            // Timer rules due now, and when the next comes due now that this step's changes are in.
            let pass = try await pipeline.timers(now: now)
            describe(pass)
            summary.trace.looks += pass.steps.filter(Self.hasNews).map {
                ReportTrace.Look($0, at: now, plotted: plotted)
            }
            timersDue = pass.nextDue.map { max($0, now + 1) }
            try await release(at: now, summary: &summary)
            try await afterStep(i)
        }
        let last = sequence.steps.last.flatMap { ISO8601Time.seconds($0.at) }
        if let end = sequence.until.flatMap(ISO8601Time.seconds) ?? last {
            try await advance(to: end + 1, timersDue: &timersDue, summary: &summary)
        }
        try await releaseDue(before: Int.max, summary: &summary)
        try await printSummary(&summary)
        return summary
    }

    private func describe(_ plan: PollPlan) {
        let fired = plan.steps.filter { !$0.fired.isEmpty || !$0.errors.isEmpty }
        let added = plan.steps.filter { $0.change.previous == nil }.count
        let removed = plan.steps.filter { $0.change.current == nil }.count
        // A deleted subscription's ends are a look at an entity that did not change.
        let ends = plan.steps.filter { $0.fired.allSatisfy { $0 == SubscriptionEnd.ruleID } && !$0.fired.isEmpty }
        write(
            "  \(plan.entityCount) entities: \(added) new, \(plan.steps.count - added - removed - ends.count) changed, \(removed) gone; rules fired for \(fired.count - ends.count)"
        )
        for step in fired {
            let paths = step.change.changedPaths
            let shown = paths.prefix(6).joined(separator: ", ") + (paths.count > 6 ? ", …" : "")
            if ends.contains(where: { $0.change.entity == step.change.entity && $0.fired == step.fired }),
                paths.isEmpty
            {
                write("  \(step.change.entity): a deleted subscription's activity ends")
            } else {
                write(
                    "  \(step.change.entity) changed \(step.change.previous == nil ? "(new)" : shown): rules \(step.fired.joined(separator: ", "))"
                )
            }
            describeDecisions(step)
        }
    }

    private func describeDecisions(_ step: ChangeStep) {
        for error in step.errors { write("  rule error: \(error)") }
        for decision in step.decisions {
            switch decision {
            case .skip(let activity, let rules, let reason):
                write("  ✗ no push for \(activity) (rules \(rules.joined(separator: ", "))): \(reason)")
            case .push(let pending):
                if case .coalesced(let into)? = step.queued[pending.push.activity] {
                    write(
                        "  ⇢ \(pending.push.event) \(pending.push.activity) coalesced into the pending push of rules \(into.joined(separator: ", ")) (latest state wins)"
                    )
                }
            }
        }
    }

    /// Moves the simulated clock on to `limit`: each timer pass and each throttle release before it, at its
    /// own time, in time order.
    private func advance(to limit: Int, timersDue: inout Int?, summary: inout ReplaySummary) async throws {
        var passes = 0
        while let due = timersDue, due < limit, passes < 100_000 {
            passes += 1
            try await releaseDue(before: due, summary: &summary)
            let pass = try await pipeline.timers(now: due)
            if pass.steps.contains(where: Self.hasNews) {
                write("")
                write(
                    "⏲ at \(ISO8601Time.string(due)): timer rules came due for \(pass.due) live activit\(pass.due == 1 ? "y" : "ies")"
                )
                describe(pass)
                summary.trace.looks += pass.steps.filter(Self.hasNews).map {
                    ReportTrace.Look($0, at: due, plotted: plotted)
                }
            }
            try await release(at: due, summary: &summary)
            // A pass always moves on: what came due now is remembered, so the next is later.
            timersDue = pass.nextDue.map { max($0, due + 1) }
        }
        try await releaseDue(before: limit, summary: &summary)
    }

    /// True when a timer look fired a rule or failed (a look that found nothing to do is not printed).
    private static func hasNews(_ step: ChangeStep) -> Bool { !step.fired.isEmpty || !step.errors.isEmpty }

    private func describe(_ pass: TimerPass) {
        for step in pass.steps where Self.hasNews(step) {
            let fired = step.fired.isEmpty ? "none fired" : "rules \(step.fired.joined(separator: ", ")) fired"
            write("  \(step.change.entity) timer \(step.timers.joined(separator: ", ")): \(fired)")
            describeDecisions(step)
        }
    }

    /// Releases, at their own times, the pushes that become due before `limit`.
    private func releaseDue(before limit: Int, summary: inout ReplaySummary) async throws {
        var rounds = 0
        while let wakeup = await pipeline.queue.nextWakeup(), wakeup < limit, rounds < 10_000 {
            rounds += 1
            write("")
            write("⏱ at \(ISO8601Time.string(wakeup)): the throttle releases waiting pushes")
            try await release(at: wakeup, summary: &summary)
        }
    }

    /// Why a released push has no delivery of its own: it went in another alert's broadcast on their entity's
    /// channel, it was a deleted subscription's end that channel does not carry, or no token was registered.
    private func why(undelivered push: LiveActivityPush, deliveries: [PushDelivery]) -> String {
        let routes = pipeline.rules.routes
        guard routes.sharesEntityChannel(push) else { return "no registered token" }
        let owner = routes.channelOwner(for: push)
        if let carrier = deliveries.first(where: {
            $0.push.event == push.event && $0.push.contentState == push.contentState
                && $0.push.activity != push.activity && routes.channelOwner(for: $0.push) == owner
        }) {
            return "in \(carrier.push.activity)'s broadcast to their entity's channel"
        }
        if push.event == .end, push.ruleIDs == [ReservedRuleID.subscriptionDeleted] {
            return "not broadcast: other alerts share the entity's channel (the app ends it on the device)"
        }
        return "no registered token"
    }

    private func release(at now: Int, summary: inout ReplaySummary) async throws {
        var released: [LiveActivityPush] = []
        for decision in try await pipeline.release(now: now) {
            summary.trace.releases.append(ReportTrace.Release(decision, at: now))
            switch decision {
            case .held(let key, let until, let rules):
                write(
                    "  ⏸ \(key) held until \(ISO8601Time.string(until)): priority-10 budget spent (rules \(rules.joined(separator: ", ")) hold for it)"
                )
            case .send(let push, let downgraded):
                let how =
                    downgraded
                    ? "downgraded to priority 5 (budget spent), alert dropped"
                    : "at priority \(push.priority)\(push.alert == nil ? "" : " with alert")"
                write(
                    "  → \(push.event) \(push.activity) \(how), relevance \(push.relevanceScore?.description ?? "none"), because of rules \(push.ruleIDs.joined(separator: ", "))"
                )
                released.append(push)
            }
        }
        let deliveries = try await pipeline.deliverDue(now: now)
        for push in released
        where !deliveries.contains(where: { $0.push.activity == push.activity && $0.push.timestamp == push.timestamp })
        {
            write("  delivery of \(push.event) \(push.activity): \(why(undelivered: push, deliveries: deliveries))")
        }
        for result in deliveries {
            if result.push.isLateJoin {
                // Late joiners' starts: the running activity's state, under its last push's timestamp.
                let devices = result.receipts.filter(\.delivered).compactMap(\.target.device)
                if !devices.isEmpty {
                    write(
                        "  → start \(result.push.activity) to late joiner\(devices.count == 1 ? "" : "s") "
                            + "\(devices.joined(separator: ", ")), with the state as it stands")
                    summary.pushes += 1
                }
            } else if summary.delivered.insert(result.push.id).inserted {
                // A push the outbox tries again in a later round is one push, not two.
                summary.pushes += 1
            }
            let requests = result.deliveredRequests
            summary.tokenRequests += requests.tokens
            summary.broadcasts += requests.broadcasts
            summary.broadcastReach += requests.broadcasts * result.reach
            for receipt in result.receipts where !receipt.delivered {
                write("  delivery to \(receipt.target.device ?? "the placeholder"): \(receipt.outcome)")
            }
        }
    }

    /// Prints every activity with its budget, and keeps them in the trace.
    private func printSummary(_ summary: inout ReplaySummary) async throws {
        let records = try await pipeline.store.allActivities()
        let states = await pipeline.queue.states
        let configuration = pipeline.queue.configuration
        write("")
        write("Activities:")
        for record in records {
            write(
                "  \(record.key) (\(record.attributesType)): \(record.phase), last timestamp \(record.lastTimestamp), state \(record.state.jsonString())"
            )
            let budget = configuration.budget(for: record.attributesType)
            let frequent = states[record.key]?.frequentUpdates ?? false
            summary.trace.activities.append(
                .init(
                    key: record.key.rawValue, attributesType: record.attributesType, phase: record.phase.rawValue,
                    budget: ReportBudget(
                        size: frequent ? budget.frequentUpdatesSize : budget.size, period: budget.period,
                        frequentUpdates: frequent)))
            if let s = states[record.key] {
                let size = s.frequentUpdates ? budget.frequentUpdatesSize : budget.size
                write(
                    "    \(s.stats.starts) start, \(s.stats.sentHigh) at priority 10 (budget \(size) per \(budget.period) s), "
                        + "\(s.stats.sentLow) at 5 (\(s.stats.downgraded) downgraded), \(s.stats.coalesced) coalesced, \(s.stats.held) held"
                )
            }
        }
        if records.isEmpty { write("  none") }
        var requests = ""
        if summary.broadcasts > 0 {
            // What channel mode saved: requests sent against the devices they reached.
            requests =
                ", \(summary.tokenRequests + summary.broadcasts) requests (\(summary.broadcasts) broadcasts reaching "
                + "\(summary.broadcastReach) devices, \(summary.tokenRequests) to tokens)"
        }
        write("\(summary.pushes) pushes\(requests), \(summary.feedErrors) feed errors")
    }
}

/// Totals of a replay, and what it decided.
public struct ReplaySummary: Sendable {
    /// Pushes handed to the provider (each once, however many rounds it took).
    public var pushes = 0
    public var feedErrors = 0
    /// Requests delivered to tokens.
    public var tokenRequests = 0
    /// Broadcasts delivered to channels, and the devices they reached (each channel's subscribers).
    public var broadcasts = 0
    public var broadcastReach = 0
    /// Every step, change, timer look and release, for ``ReplayReport/build(_:)``.
    public var trace: ReportTrace
    /// The pushes counted so far.
    var delivered = Set<PushID>()
}
