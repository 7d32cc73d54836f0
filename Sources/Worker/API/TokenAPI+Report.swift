import Foundation
import Hummingbird
import LiveRelayCore
import Report
import Store
import Throttling

/// `GET /v1/activities/{activity}/report`: the replay report's picture of one live activity, drawn from the
/// history the state file keeps of it (``HistoryRecorder``): the changes and timer looks that reached it in
/// the last `api.report-window` seconds, each push the throttle released or held, and its priority-10
/// budget over that time. An HTML page by default; `?format=json` answers the report's data
/// (`docs/report.md`, `source` `live`). Like every `/v1` route it needs the bearer token.
extension TokenAPI {
    /// At most this many history rows go into one report (the newest; the page says when older ones were
    /// left out), so a chatty activity cannot make an answer of unbounded size.
    static let reportRowLimit = 20_000

    func registerReportRoute(on api: RouterGroup<BasicRequestContext>) {
        api.get("activities/:activity/report") { request, context in
            let activity = try Validate.activity(context.parameters.get("activity"))
            let format: ReportFormat
            switch request.uri.queryParameters.get("format") ?? "html" {
            case "html": format = .html
            case "json": format = .json
            default: throw APIError(.badRequest, "format: expected html or json")
            }
            let report = try await liveReport(activity)
            switch format {
            case .json:
                return Response(
                    status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: try report.jsonData())))
            case .html:
                return Response(
                    status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: report.html())))
            }
        }
    }

    /// The report of `activity`'s history in the window ending now.
    func liveReport(_ activity: ActivityKey) async throws -> ReplayReport {
        guard reportWindow > 0 else {
            throw APIError(.notFound, "report: no history is kept (api.report-window is 0)")
        }
        let now = now()
        let (rows, truncated) = try await store.history(
            activity: activity.rawValue, from: now - reportWindow, limit: Self.reportRowLimit)
        let record = try await store.activities([activity])[activity]
        guard record != nil || !rows.isEmpty else {
            throw APIError(
                .notFound, "activity \(activity): nothing is known of it (no record, no history in the window)")
        }
        var info: ReportTrace.Activity?
        if let record {
            let budget = queue.configuration.budget(for: record.attributesType)
            let frequent = try await queue.state(for: activity)?.frequentUpdates ?? false
            info = ReportTrace.Activity(
                key: activity.rawValue, attributesType: record.attributesType, phase: record.phase.rawValue,
                budget: ReportBudget(
                    size: frequent ? budget.frequentUpdatesSize : budget.size, period: budget.period,
                    frequentUpdates: frequent))
        }
        var title = "\(activity): the last \(Self.span(reportWindow))"
        if truncated { title += " (only the newest \(Self.reportRowLimit) decisions)" }
        let (trace, unreadable) = HistoryRecorder.trace(rows, title: title, activity: info)
        if unreadable > 0 { title += " (\(unreadable) unreadable decisions left out)" }
        var report = ReplayReport.build(trace)
        report.title = title
        return report
    }

    /// `21600` → `6 h`, `900` → `15 min`, `90` → `90 s`.
    static func span(_ seconds: Int) -> String {
        if seconds % 3600 == 0 { return "\(seconds / 3600) h" }
        if seconds % 60 == 0 { return "\(seconds / 60) min" }
        return "\(seconds) s"
    }
}
