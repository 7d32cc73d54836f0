import Foundation
import LiveRelayTesting
import Testing
import WorkerTesting

/// Recorded sequences whose whole replay is kept as a golden file beside them (`expected-console.txt`):
/// what a rule author sees, byte for byte. Set LIVERELAY_UPDATE_GOLDEN=1 to rewrite them after an intended
/// change (and read the diff).
@Suite struct GoldenReplayTests {
    @Test(arguments: [
        // Price alerts: a start on a 24-hour move (ETH), a start on crossing 100,000 (BTC), an update only
        // once BTC moved 0.5 % from the price it was pushed at, and both ended after 30 calm minutes.
        ("Samples/presets/price-alerts.json", "Samples/sequences/binance-btc-alert"),
        // An NBA game (the sport read from the body's league): "Under way" at tip-off, not "Kick-off"; an
        // alert only when the lead changes hands or the score is levelled (the Lakers lead in the 1st, Boston
        // take it at 5:15 in the 4th, the Lakers level at 1:48 and lead with 24.6 left, Boston level at the
        // buzzer), the baskets between at priority 5 without one; "Overtime" when play resumes in period 5;
        // the end "Boston Celtics win", "BOS 118–115 LAL (Final/OT)".
        ("Samples/presets/espn-nba.json", "Samples/sequences/espn-nba-bos-lal"),
        // The World Cup match to penalties through the ESPN preset and the shared sports rules: "Kick-off"
        // (a clock counting up), "Egypt take the lead" at 44', the quiet half-time, "Australia draw level" at
        // 78', "Extra time" at 96', and the end "Egypt win", "AUS 1–1 EGY (2–4 on penalties)" with both
        // shoot-out scores and the winner in the final state.
        ("Samples/presets/espn-soccer.json", "Samples/sequences/espn-aus-egy-preset"),
        // Late joiners: a fan following at 60' gets one start with the score as it stands (0–1, the 44'
        // state), then the updates once its activity reports its token; a device whose app runs the activity
        // already, and one following after full time, get no start.
        ("Samples/demo/liverelay.json", "Samples/sequences/espn-aus-egy-late-joiners"),
        // Alerts of one's own: four subscriptions with their own levels, each start on its own device; one
        // followed at its own 0.2 %, then deleted (its end dismissed at once); one crossed on the way down;
        // one never; the rest ended after 30 calm minutes.
        ("Samples/presets/personal-alerts.json", "Samples/sequences/binance-personal-alerts"),
        // The same in channel mode: the alerts of BTC share one channel. Each start goes to its own device with
        // the channel; every update is one broadcast; the deleted subscription's end is not broadcast while
        // another alert runs there; one calm end ends both alerts on the channel in one broadcast; the
        // re-armed alert starts on a new channel.
        ("Samples/presets/personal-alerts-channel.json", "Samples/sequences/binance-personal-alerts"),
    ])
    func theReplayMatchesItsGoldenFile(config: String, sequence: String) async throws {
        let output = ReplayTests.Output()
        _ = try await SequenceReplay.run(config: config, sequence: sequence + "/sequence.json", output: output.write)
        // A sequence replayed with several configs keeps one golden per config after the first.
        let variant = config.hasSuffix("-channel.json") ? "-channel" : ""
        let golden = Repository.path(sequence + "/expected-console\(variant).txt")
        let text = Self.numberingChannels(output.text)
        if ProcessInfo.processInfo.environment["LIVERELAY_UPDATE_GOLDEN"] == "1" {
            try text.write(toFile: golden, atomically: true, encoding: .utf8)
        }
        #expect(text == (try String(contentsOfFile: golden, encoding: .utf8)))
    }

    /// The output with each channel id (random, as APNs makes them) replaced by `channel-1`, `channel-2`… in
    /// the order they first appear, and each broadcast's request id (made from its channel's) by `request-1`…
    static func numberingChannels(_ text: String) -> String {
        var names: [String: String] = [:]
        var out = text
        for (pattern, name) in [
            (/apns-channel-id: ([A-Za-z0-9+\/=]+)/, "channel"), (/apns-request-id: ([0-9a-f-]+)/, "request"),
        ] {
            var count = 0
            for match in text.matches(of: pattern) where names[String(match.1)] == nil {
                count += 1
                names[String(match.1)] = "\(name)-\(count)"
            }
        }
        for (id, name) in names { out = out.replacingOccurrences(of: id, with: name) }
        return out
    }
}
