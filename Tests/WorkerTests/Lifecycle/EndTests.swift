import Foundation
import LiveRelayCore
import LiveRelayTesting
import Store
import Testing
import Worker
import WorkerTesting

/// An end that ends: it reaches every token the activity has, with its dismissal date; a token reported
/// after the end gets nothing; an end that cannot get through is retried, and reported when it is given up.
@Suite("An end that ends", .serialized)
struct EndTests {
    static let match: ActivityKey = "match-760499"
    static let lateToken = "6e" + String(repeating: "4d", count: 79)

    /// Two devices run the activity (one reported its token late): the final whistle reaches both, each
    /// with the dismissal date the end rule asks for (an hour after the end).
    @Test func theEndReachesEveryTokenWithItsDismissalDate() async throws {
        try await LifecycleBed.with(registering: FakeProviderCase.registerTwoDevices) { bed in
            for step in 1...3 { try await bed.step(step) }
            try await bed.store.registerActivityToken(
                activity: Self.match, device: "iphone-b", token: Self.lateToken, environment: .sandbox, now: bed.now)
            for step in 4..<RunWithAPNs.steps.count { try await bed.step(step) }
            #expect(Set(bed.tokens(of: "end")) == [MatchReplay.activityToken, Self.lateToken])
            for push in bed.fake.accepted where push.body.contains(#""event":"end""#) {
                let aps = try JSONParser.parse(push.body)["aps"]
                guard case .int(let timestamp)? = aps?["timestamp"], case .int(let dismissal)? = aps?["dismissal-date"]
                else {
                    Issue.record("an end without its timestamp or dismissal date: \(push.body)")
                    continue
                }
                #expect(dismissal == timestamp + 3600)
            }
        }
    }

    /// The app reports an update token after the activity ended: it is refused (the API answers 409), and
    /// nothing is sent to it.
    @Test func aTokenReportedAfterTheEndGetsNothing() async throws {
        try await LifecycleBed.with(registering: FakeProviderCase.registerTwoDevices) { bed in
            for step in 1..<RunWithAPNs.steps.count { try await bed.step(step) }
            #expect(try await bed.store.allActivities().map(\.phase) == [.ended])
            let late = try await bed.store.registerActivityToken(
                activity: Self.match, device: "iphone-b", token: Self.lateToken, environment: .sandbox, now: bed.now)
            #expect(late == .ended)
            let before = bed.fake.accepted.count
            for _ in 0..<3 {
                bed.wall.advance(600)
                _ = try await bed.worker.runOnce()
            }
            #expect(bed.fake.accepted.count == before)
            #expect(!bed.fake.accepted.contains { $0.token == Self.lateToken })
        }
    }

    /// APNs refuses everything from the final whistle on: the end is tried again round after round (the
    /// outbox's ten), then given up, and the round that gives it up says so (log, report, metric).
    @Test func anEndThatCannotGetThroughIsRetriedThenReported() async throws {
        let logs = CapturingLogHandler.Store()
        try await LifecycleBed.with(
            logger: CapturingLogHandler.logger(logs), registering: FakeProviderCase.registerTwoDevices
        ) { bed in
            let last = RunWithAPNs.steps.count - 1
            for step in 1..<last { try await bed.step(step) }
            bed.fake.setOutage(.status(503, reason: "ServiceUnavailable", retryAfter: 60))
            let before = bed.fake.requestCount
            var reports = [try await bed.step(last)]
            for _ in 0..<12 {
                bed.wall.advance(600)
                reports.append(try await bed.worker.runOnce())
            }
            #expect(bed.fake.requestCount - before == 10, "the end was tried in each of the outbox's ten rounds")
            #expect(bed.tokens(of: "end").isEmpty)
            let lost = reports.map { $0.delivery.providers["apns"]?.endsLost ?? 0 }
            #expect(lost.reduce(0, +) == 1, "one round gave the end up: \(lost)")
            #expect(reports.map(\.delivery.description).contains { $0.contains("(1 end lost)") })
            #expect(logs.all.contains { $0.contains("activity end not delivered") && $0.contains("match-760499") })
            #expect(try await bed.store.outboxStatus().depth == 0)
        }
    }
}
