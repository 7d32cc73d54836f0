import Delivery
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Logging
import Store
import Synchronization
import Testing
import Worker
import WorkerTesting

/// The recorded AUS v EGY match through the real pipeline, as `liverelay replay` runs it.
@Suite struct ReplayTests {
    final class Output: Sendable {
        let lines = Mutex<[String]>([])
        func write(_ s: String) { lines.withLock { $0.append(s) } }
        var text: String { lines.withLock { $0.joined(separator: "\n") } + "\n" }
    }

    /// Replays the match through `config`; `provider` replaces its default provider when given.
    static func replay(config: String = "Samples/demo/liverelay.json", provider: (any PushProvider)? = nil)
        async throws -> (Output, ReplaySummary)
    {
        let out = Output()
        let summary = try await SequenceReplay.run(
            config: config, sequence: "Samples/sequences/espn-aus-egy/sequence.json", provider: provider,
            output: out.write)
        return (out, summary)
    }

    @Test func theMatchStartsAlertsOnGoalsFollowsTheClockQuietlyAndEnds() async throws {
        let recorder = RecordingProvider()
        let (_, summary) = try await Self.replay(provider: recorder)
        let pushes = recorder.pushes
        #expect(summary.feedErrors == 0)
        #expect(pushes.map(\.event) == [.start, .update, .update, .update, .update, .update, .end])
        #expect(Set(pushes.map(\.activity)) == ["match-760499"])
        // Goals: priority 10 with an alert.
        let goals = pushes.filter { $0.ruleIDs.contains("goal") }
        #expect(goals.map { [$0.contentState["homeScore"], $0.contentState["awayScore"]] } == [[0, 1], [1, 1]])
        #expect(goals.allSatisfy { $0.priority == .high && $0.alert != nil })
        #expect(goals.map(\.alert?.title) == ["Goal! Egypt", "Goal! Australia"])
        // Clock and period alone: priority 5, no alert.
        let quiet = pushes.filter { $0.ruleIDs == ["clock"] }
        #expect(quiet.map(\.contentState["clock"]) == ["20'", "HT", "96'"])
        #expect(quiet.allSatisfy { $0.priority == .low && $0.alert == nil })
        // Every push carries the whole state; the end carries the shoot-out and a dismissal date.
        let end = try #require(pushes.last)
        #expect(
            end.contentState == [
                "homeScore": 1, "awayScore": 1, "homePenalties": 2, "awayPenalties": 4, "period": 5, "clock": "120'",
                "status": "STATUS_FINAL_PEN",
            ])
        #expect(end.dismissalDate == end.timestamp + 3600)
        #expect(zip(pushes, pushes.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
    }

    /// A provider that keeps failing: the outbox tries the pushes again in later rounds, and the summary still
    /// counts each push once.
    @Test func theSummaryCountsPushesNotDeliveryRounds() async throws {
        let failing = RecordingProvider(answer: { _, _ in .retry(afterSeconds: nil, reason: "503") })
        let (out, summary) = try await Self.replay(provider: failing)
        #expect(Set(failing.pushes.map(\.id)).count == summary.pushes)
        #expect(failing.pushes.count > summary.pushes, "rounds were repeated")
        #expect(out.text.contains("\(summary.pushes) pushes, 0 feed errors"))
    }

    /// The console output is the documented demo: compare it with the golden file byte for byte.
    /// Set LIVERELAY_UPDATE_GOLDEN=1 to rewrite the golden file after an intended change.
    @Test func theConsoleOutputMatchesTheGoldenFile() async throws {
        let (out, _) = try await Self.replay()
        let golden = Repository.path("Samples/sequences/espn-aus-egy/expected-console.txt")
        if ProcessInfo.processInfo.environment["LIVERELAY_UPDATE_GOLDEN"] == "1" {
            try out.text.write(toFile: golden, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOfFile: golden, encoding: .utf8)
        #expect(out.text == expected)
    }

    /// A budget of one priority-10 push per two hours: the equaliser waits for the budget, the extra-time clock
    /// merges into it, and full time is downgraded; every state still goes out, the last one last.
    @Test func aTinyBudgetHoldsCoalescesAndDowngradesButTheFinalStateGoesOut() async throws {
        let recorder = RecordingProvider()
        let (out, _) = try await Self.replay(config: "Samples/demo/tiny-budget.json", provider: recorder)
        let pushes = recorder.pushes
        #expect(out.text.contains("⏸ match-760499 held until 2026-07-03T20:44:00Z: priority-10 budget spent"))
        #expect(out.text.contains("⇢ update match-760499 coalesced into the pending push of rules goal, clock"))
        #expect(out.text.contains("→ end match-760499 downgraded to priority 5 (budget spent), alert dropped"))
        #expect(pushes.map(\.event) == [.start, .update, .update, .update, .update, .end])
        let equaliser = pushes[4]
        #expect(equaliser.contentState["clock"] == "96'", "the held goal carries the newer extra-time state")
        #expect(equaliser.alert?.title == "Goal! Australia")
        #expect(equaliser.priority == .high)
        #expect(pushes.last?.priority == .low)
        #expect(pushes.last?.alert == nil)
        #expect(pushes.last?.contentState["awayPenalties"] == 4)
        #expect(zip(pushes, pushes.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
    }
}
