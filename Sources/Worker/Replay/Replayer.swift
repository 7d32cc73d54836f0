import Delivery
import Foundation
import LiveRelayCore
import Rules
import Store
import Throttling

/// Feeds a recorded sequence through the real pipeline with a simulated clock, and prints each change, the
/// rules it fired, each push (as the provider sends it) and why, and a summary of every activity at the end.
public struct Replayer: Sendable {
    public let pipeline: Pipeline
    public let feed: FeedRuntime
    private let write: @Sendable (String) -> Void

    public init(pipeline: Pipeline, feed: FeedRuntime, write: @escaping @Sendable (String) -> Void) {
        self.pipeline = pipeline
        self.feed = feed
        self.write = write
    }

    /// Replays every step; returns the number of pushes delivered. Body files resolve against `directory`.
    public func replay(_ sequence: ReplaySequence, directory: String) async throws -> ReplaySummary {
        var summary = ReplaySummary()
        for (i, step) in sequence.steps.enumerated() {
            let now = ISO8601Time.seconds(step.at)!
            let path = step.body.hasPrefix("/") ? step.body : directory + "/" + step.body
            write("")
            write(
                "▶ step \(i + 1)/\(sequence.steps.count) at \(step.at): \(step.body)\(step.note.map { " — \($0)" } ?? "")"
            )
            guard let body = FileManager.default.contents(atPath: path) else {
                write("  feed error: cannot read \(step.body)")
                summary.feedErrors += 1
                continue
            }
            let plan = try await pipeline.plan(feed: feed, body: body, now: now)
            if let error = plan.feedError {
                write("  feed error (\(error.kind)): \(error.message) — no change emitted, previous facts kept")
                summary.feedErrors += 1
                continue
            }
            let fired = plan.steps.filter { !$0.fired.isEmpty || !$0.errors.isEmpty }
            let added = plan.steps.filter { $0.change.previous == nil }.count
            let removed = plan.steps.filter { $0.change.current == nil }.count
            write(
                "  \(plan.entityCount) entities: \(added) new, \(plan.steps.count - added - removed) changed, \(removed) gone; rules fired for \(fired.count)"
            )
            for step in fired {
                let paths = step.change.changedPaths
                let shown = paths.prefix(6).joined(separator: ", ") + (paths.count > 6 ? ", …" : "")
                write(
                    "  \(step.change.entity) changed \(step.change.previous == nil ? "(new)" : shown): rules \(step.fired.joined(separator: ", "))"
                )
                for error in step.errors { write("  rule error: \(error)") }
                for decision in step.decisions {
                    switch decision {
                    case .skip(let activity, let rules, let reason):
                        write("  ✗ no push for \(activity) (rules \(rules.joined(separator: ", "))): \(reason)")
                    case .push(let push):
                        write(
                            "  → \(push.event) \(push.activity) at priority \(push.priority)\(push.alert == nil ? "" : " with alert"), relevance \(push.relevanceScore?.description ?? "none"), because of rules \(push.ruleIDs.joined(separator: ", "))"
                        )
                        let outcome = try await pipeline.deliver(push)
                        summary.pushes += 1
                        if outcome != .delivered { write("  delivery: \(outcome)") }
                    }
                }
            }
        }
        let records = try await pipeline.store.allActivities()
        write("")
        write("Activities:")
        for record in records {
            write(
                "  \(record.key) (\(record.attributesType)): \(record.phase), last timestamp \(record.lastTimestamp), state \(record.state.jsonString())"
            )
        }
        if records.isEmpty { write("  none") }
        write("\(summary.pushes) pushes, \(summary.feedErrors) feed errors")
        return summary
    }
}

/// Totals of a replay.
public struct ReplaySummary: Sendable {
    public var pushes = 0
    public var feedErrors = 0
}
