import Crypto
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Testing
import WorkerTesting

/// `liverelay replay` against a fake APNs that does not know the team's key: every push is refused with
/// `InvalidProviderToken`, the provider stops on it, and the replay must say so and fail, not exit 0 as if the
/// match had been delivered.
@Suite("liverelay replay with a provider that stops")
struct ReplayProviderStoppedTests {
    @Test func aStoppedProviderFailsTheReplayAndSaysWhy() async throws {
        let key = P256.Signing.PrivateKey()
        let fake = try await FakeAPNs.start(
            authority: MatchReplay.authority,
            configuration: FakeAPNs.Configuration(
                keyID: "ABC123DEFG", teamID: "DEF123GHIJ", publicKey: P256.Signing.PrivateKey().publicKey,
                bundleID: "com.example.scores"))
        try await fake.serving { fake in
            let provider: JSONValue = [
                "type": "apns", "bundle-id": "com.example.scores", "key-id": "ABC123DEFG", "team-id": "DEF123GHIJ",
                "key": ["file": "AuthKey_ABC123DEFG.p8"], "environment": "sandbox", "endpoint": .string(fake.url),
            ]
            let token = String(repeating: "ab", count: 80)
            let tokens = #"{"activities": [{"activity": "match-760499", "device": "d1", "token": "\#(token)"}]}"#
            try await MatchReplay.with(
                provider: provider, files: ["AuthKey_ABC123DEFG.p8": key.pemRepresentation, "tokens.json": tokens]
            ) { setup in
                let run = try await CommandRun.run(
                    Repository.executable("liverelay"),
                    [
                        "replay", Repository.path("Samples/sequences/espn-aus-egy/sequence.json"), "--config",
                        setup.configPath, "--tokens", setup.directory.appendingPathComponent("tokens.json").path,
                    ])
                #expect(run.status == 1, "\(run.standardError)")
                #expect(
                    run.standardError.contains("error: provider apns stopped: APNs answered InvalidProviderToken"),
                    "\(run.standardError)")
                #expect(fake.accepted.isEmpty)
                #expect(!fake.rejections.isEmpty, "the fake saw the refused pushes")
            }
        }
    }
}
