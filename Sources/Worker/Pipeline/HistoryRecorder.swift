import Foundation
public import Report
public import StoreCore
public import Throttling

/// Turns what the pipeline decided into the rows the live report reads (``HistoryRow``): per activity, each
/// change or timer look that reached it (a push queued, merged into the waiting one, or skipped, and why)
/// and each push the throttle released or held for it. Rows older than `window` seconds are pruned by the
/// same write. Pure: values in, rows out.
public struct HistoryRecorder: Sendable {
    /// Seconds of history kept per activity.
    public let window: Int

    /// A recorder keeping `window` seconds (at least 1).
    public init(window: Int) {
        self.window = max(window, 1)
    }

    /// The rows of a poll's or a timer pass's steps at `now`: one per activity an outcome names, holding the
    /// look with that activity's outcome only. A change no rule acted on is not kept (its entity's facts
    /// are in the next row that is).
    public func write(steps: [ChangeStep], now: Int) -> HistoryWrite {
        let encoder = JSONEncoder()
        var rows: [HistoryRow] = []
        for step in steps where !step.decisions.isEmpty {
            let look = ReportTrace.Look(step, at: now)
            for outcome in look.outcomes {
                var own = look
                own.outcomes = [outcome]
                guard let body = try? encoder.encode(own) else { continue }
                rows.append(HistoryRow(activity: outcome.activity, at: now, kind: .look, body: body))
            }
        }
        return HistoryWrite(rows: rows, keepFrom: now - window)
    }

    /// The rows of a release round at `now`: one per push sent or held.
    public func write(decisions: [ThrottleDecision], now: Int) -> HistoryWrite {
        let encoder = JSONEncoder()
        let rows = decisions.compactMap { decision -> HistoryRow? in
            let release = ReportTrace.Release(decision, at: now)
            guard let body = try? encoder.encode(release) else { return nil }
            return HistoryRow(activity: release.activity, at: now, kind: .release, body: body)
        }
        return HistoryWrite(rows: rows, keepFrom: now - window)
    }

    /// The trace of one activity's history rows, for ``ReplayReport/build(_:)``: its looks and releases in
    /// the order they were written; rows that cannot be read are counted, not thrown.
    public static func trace(
        _ rows: [HistoryRow], title: String, activity: ReportTrace.Activity?
    ) -> (trace: ReportTrace, unreadable: Int) {
        var trace = ReportTrace(title: title, source: "live")
        let decoder = JSONDecoder()
        var unreadable = 0
        for row in rows {
            switch row.kind {
            case .look:
                if let look = try? decoder.decode(ReportTrace.Look.self, from: row.body) {
                    trace.looks.append(look)
                } else {
                    unreadable += 1
                }
            case .release:
                if let release = try? decoder.decode(ReportTrace.Release.self, from: row.body) {
                    trace.releases.append(release)
                } else {
                    unreadable += 1
                }
            }
        }
        if let activity { trace.activities = [activity] }
        return (trace, unreadable)
    }
}
