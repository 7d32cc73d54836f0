import Foundation
import LiveRelayTesting
import Testing

/// Recorded sequences whose whole replay is kept as a golden file beside them (`expected-console.txt`):
/// what a rule author sees, byte for byte. Set LIVERELAY_UPDATE_GOLDEN=1 to rewrite them after an intended
/// change (and read the diff).
@Suite struct GoldenReplayTests {
    @Test(arguments: [
        // Price alerts: a start on a 24-hour move (ETH), a start on crossing 100,000 (BTC), an update only
        // once BTC moved 0.5 % from the price it was pushed at, and both ended after 30 calm minutes.
        ("Samples/presets/price-alerts.json", "Samples/sequences/binance-btc-alert")
    ])
    func theReplayMatchesItsGoldenFile(config: String, sequence: String) async throws {
        let output = ReplayTests.Output()
        _ = try await SequenceReplay.run(config: config, sequence: sequence + "/sequence.json", output: output.write)
        let golden = Repository.path(sequence + "/expected-console.txt")
        if ProcessInfo.processInfo.environment["LIVERELAY_UPDATE_GOLDEN"] == "1" {
            try output.text.write(toFile: golden, atomically: true, encoding: .utf8)
        }
        #expect(output.text == (try String(contentsOfFile: golden, encoding: .utf8)))
    }
}
