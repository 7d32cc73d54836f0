import Foundation
import LiveRelayTesting
import Testing

/// `liverelay replay` with the console in channel mode: every request the channel stands for, printed.
@Suite("liverelay replay in channel mode")
struct ChannelReplayCommandTests {
    @Test func printsTheChannelTheStartOnItAndEachBroadcast() async throws {
        let run = try await CommandRun.run(
            Repository.executable("liverelay"),
            ["replay", "Samples/sequences/espn-aus-egy/sequence.json", "--config", "Samples/demo/channels.json"],
            directory: Repository.root)
        #expect(run.status == 0, "\(run.standardError)")
        let out = run.standardOutput
        let created = try #require(out.firstMatch(of: /\(answered 201, apns-channel-id: ([A-Za-z0-9+\/=]+)\)/))
        let channel = String(created.1)
        #expect(out.contains(":path: /1/apps/com.example.scores/channels"))
        #expect(out.contains(#""input-push-channel":"\#(channel)""#))
        #expect(out.components(separatedBy: ":path: /4/broadcasts/apps/com.example.scores").count - 1 == 6)
        #expect(out.components(separatedBy: "apns-channel-id: \(channel)").count - 1 == 7)
        #expect(out.contains("7 pushes, 7 requests (6 broadcasts reaching 6 devices, 1 to tokens), 0 feed errors"))
    }
}
