import Feeds
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Testing

/// The recorded matches through their presets and the change detector: exactly the changes that happened,
/// step by step (kick-off, goals, half-time, extra time, penalties, full time).
@Suite struct SequenceChangeTests {
    /// The changes of each step of a replay sequence, as `"entity: path, path"` lines.
    static func changes(sequence: String, normalizer: some FeedNormalizer) throws -> [[String]] {
        let bodies = try FeedServer.bodies(ofSequence: Repository.path("Samples/sequences/\(sequence)/sequence.json"))
        var previous: [String: Facts] = [:]
        var out: [[String]] = []
        for body in bodies {
            let current = try normalizer.normalize(body)
            out.append(
                ChangeDetector.changes(feed: "scores", previous: previous, current: current).map { change in
                    "\(change.entity.id): "
                        + (change.previous == nil ? "new" : change.changedPaths.joined(separator: ", "))
                })
            previous = current
        }
        return out
    }

    @Test func espnAustraliaEgypt() throws {
        let steps = try Self.changes(
            sequence: "espn-aus-egy-preset", normalizer: ESPNScoreboardNormalizer(sport: "soccer"))
        #expect(steps.count == 8)
        #expect(steps[0].count == 32)
        let match = steps.dropFirst().map { $0.filter { $0.hasPrefix("760499:") } }
        #expect(
            match == [
                [
                    "760499: away.score, clock.display, clock.seconds, home.score, period, state, status, statusShortText, statusText"
                ],  // kick-off
                ["760499: clock.display, clock.seconds, statusShortText, statusText"],  // 20'
                ["760499: away.score, clock.display, clock.seconds, statusShortText, statusText"],  // Egypt score, 44'
                ["760499: clock.display, clock.seconds, state, status, statusShortText, statusText"],  // half-time
                [
                    "760499: clock.display, clock.seconds, home.score, period, state, status, statusShortText, statusText"
                ],  // equaliser, 2nd half
                ["760499: clock.display, clock.seconds, period, status, statusShortText, statusText"],  // extra time
                [
                    "760499: away.shootout, clock.display, clock.seconds, home.shootout, period, state, status, statusShortText, statusText, winner"
                ],
            ])
        // Only the match moves, except that by the final recording ESPN had put Egypt into the next round.
        #expect(steps[1...6].allSatisfy { $0.count == 1 })
        #expect(
            steps[7] == [
                "760499: away.shootout, clock.display, clock.seconds, home.shootout, period, state, status, statusShortText, statusText, winner",
                "760509: away.abbr, away.name",
            ])
        let facts = try ESPNScoreboardNormalizer(sport: "soccer").normalize(
            try FeedServer.bodies(ofSequence: Repository.path("Samples/sequences/espn-aus-egy-preset/sequence.json"))[4]
        )
        #expect(facts["760499"]?["state"] == "break")
    }

    @Test func footballDataWestHamFulham() throws {
        let steps = try Self.changes(sequence: "football-data-whu-ful", normalizer: FootballDataNormalizer())
        #expect(steps.count == 6)
        #expect(steps[0].count == 70)
        let match = steps.dropFirst().map { $0.filter { $0.hasPrefix("537964:") } }
        #expect(
            match == [
                ["537964: away.score, home.score, state, status"],  // kick-off, 0-0
                ["537964: state, status"],  // half-time
                ["537964: state, status"],  // second half
                ["537964: away.score"],  // Fulham score
                ["537964: state, status, winner"],  // full time
            ])
        #expect(steps[4] == ["537964: away.score"], "the goal is the only change of its poll")
    }
}
