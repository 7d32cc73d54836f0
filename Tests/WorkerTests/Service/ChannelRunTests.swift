import Foundation
import LiveRelayCore
import LiveRelayTesting
import Store
import Testing
import Worker
import WorkerTesting

/// `liverelay run` in process in `both` mode, as an app backend and an operator see it: devices registered
/// through the API (one a channel subscriber), the channel id served once the match starts, one broadcast
/// per moment plus a token push for the other device, and the channel counted in `/metrics` until it is
/// deleted after the activity's dismissal.
@Suite("run in process with broadcast channels", .serialized)
struct ChannelRunTests {
    @Test func theAPIServesTheChannelAndTheMetricsCountIt() async throws {
        try await MatchReplay.withFakeAPNs(
            channels: ["storage-policy": 0], extra: APNsChannelReplayTests.modes("both")
        ) { setup, fake in
            let feed = try await RunWithAPNs.feedServer()
            try RunWithAPNs.prepare(setup, feed: feed)
            try await InProcessRun.run(configPath: setup.configPath) { run in
                let match = "espn-worldcup/760499"
                for (device, token) in [
                    ("iphone-new", MatchReplay.startToken), ("iphone-old", APNsChannelReplayTests.secondStartToken),
                ] {
                    #expect(
                        try await run.api.request("PUT", "/v1/devices/\(device)/subscriptions/\(match)").status == 204)
                    #expect(
                        try await run.api.request(
                            "PUT", "/v1/devices/\(device)/push-to-start/MatchAttributes",
                            body: #"{"token": "\#(token)", "environment": "sandbox"}"#
                        ).status == 204)
                }
                #expect(try await run.api.request("PUT", "/v1/devices/iphone-new/channel-subscriber").status == 204)
                let channelPath = "/v1/activities/match-760499/channel"
                #expect(try await run.api.request("GET", channelPath).status == 404, "no channel before the start")
                for step in 1..<RunWithAPNs.steps.count {
                    feed.advance(to: step)
                    await run.advance(by: .seconds(1))
                    if step == 1 {
                        let answer = try await run.api.request("GET", channelPath)
                        #expect(answer.status == 200)
                        #expect(try JSONParser.parse(answer.body)["channel-id"] == .string(fake.createdChannels[0]))
                        #expect(run.metrics.contains("liverelay_channels_open 1"))
                        #expect(
                            try await run.api.request(
                                "PUT", "/v1/activities/match-760499/tokens/iphone-old",
                                body:
                                    #"{"token": "\#(APNsChannelReplayTests.secondActivityToken)", "environment": "sandbox"}"#
                            ).status == 204)
                    }
                }
                #expect(fake.rejections.isEmpty, "\(fake.rejections)")
                #expect(fake.broadcasts.count == 6)
                #expect(fake.accepted.filter { $0.token == APNsChannelReplayTests.secondActivityToken }.count == 6)
                let metrics = run.metrics
                #expect(metrics.contains(#"liverelay_channels_created_total{provider="apns"} 1"#))
                #expect(metrics.contains(#"liverelay_broadcasts_total{provider="apns"} 6"#))
                // Ended: no app should subscribe any more; the channel waits for the activity's dismissal.
                #expect(try await run.api.request("GET", channelPath).status == 404)
                #expect(fake.deletedChannels.isEmpty)
                #expect(metrics.contains("liverelay_channels_open 1"))
                // Deleted by the first delivery round after the dismissal (the provider token stays on the
                // real clock, which the fake APNs checks, so the round is called at that time directly).
                let scheduled = try #require(try await run.store.channels().first?.deleteAt)
                #expect(try await run.worker.pipeline.deleteDueChannels(now: scheduled - 1).isEmpty)
                #expect(try await run.worker.pipeline.deleteDueChannels(now: scheduled) == fake.createdChannels)
                #expect(fake.deletedChannels == fake.createdChannels)
                let later = run.metrics
                #expect(later.contains(#"liverelay_channels_deleted_total{provider="apns"} 1"#))
                #expect(later.contains("liverelay_channels_open 0"))
            }
            try await feed.stop()
        }
    }
}
