import ArgumentParser
import Foundation
import LiveRelayCore
import Throttling

/// Throttle decisions per second with many live activities, on one core.
struct ThrottleBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "throttle", abstract: "Throttle decisions per second (submit + release) with many live activities."
    )

    @Option(help: "Live activities.") var activities = 100_000
    @Option(help: "Pushes submitted in all.") var pushes = 1_000_000
    @Option(help: "Pushes submitted between two releases (one poll's worth).") var batch = 10_000
    @Option(help: "Repetitions; the best is reported.") var repeats = 3

    func run() {
        let keys = (0..<activities).map { ActivityKey("match-\($0)") }
        let policies: [PriorityPolicy] = [.high, .low, .auto]
        // Prepared up front so the timing covers the throttle only.
        let prepared = (0..<pushes).map { i -> PendingPush in
            let key = keys[(i &* 7919) % activities]
            let push = LiveActivityPush(
                activity: key, attributesType: "MatchAttributes", event: .update, timestamp: 1_000_000 + i / batch,
                contentState: ["v": .int(i)], alert: i % 10 == 0 ? LiveActivityAlert(title: "Goal") : nil,
                relevanceScore: RelevanceScore(Double(i % 100)), priority: .high, ruleIDs: ["r"])
            return PendingPush(push: push, policy: policies[i % 3], enqueuedAt: push.timestamp)
        }
        var rows: [[String]] = []
        var best = Double.infinity
        var decisions = 0
        for _ in 0..<repeats {
            var throttle = Throttle(configuration: ThrottleConfiguration(minimumInterval: 0))
            var count = 0
            let elapsed = ContinuousClock().measure {
                var now = 1_000_000
                for start in stride(from: 0, to: pushes, by: batch) {
                    for p in prepared[start..<min(start + batch, pushes)] {
                        throttle.submit(p, now: now)
                        count += 1
                    }
                    count += throttle.release(now: now).count
                    now += 1
                }
            }
            best = min(best, elapsed.seconds)
            decisions = count
        }
        rows.append([
            "\(activities)", "\(pushes)", "\(batch)", "\(decisions)", String(format: "%.3f", best),
            String(format: "%.0f", Double(decisions) / best),
        ])
        printTable(["activities", "pushes", "per release", "decisions", "best s", "decisions/s"], rows)
    }
}
