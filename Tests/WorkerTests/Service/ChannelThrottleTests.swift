import Foundation
import LiveRelayCore
import LiveRelayTesting
import Testing
import WorkerTesting

/// A channel APNs throttles (`429 TooManyRequests` to a channel updated too often): the worker does not ask
/// again in bursts, holds what it releases for the channel meanwhile, tries one request every few seconds,
/// and sends the newest state (the match's end) within seconds of the window reopening; no log line says it
/// gave up a push the outbox still holds.
@Suite("run in process with a throttled channel", .serialized)
struct ChannelThrottleTests {
    @Test func aThrottledChannelGetsTheEndSoonAfterItsWindowReopens() async throws {
        try await MatchReplay.withFakeAPNs(
            channels: ["storage-policy": 0], extra: APNsChannelReplayTests.modes("channel")
        ) { setup, fake in
            let feed = try await RunWithAPNs.feedServer()
            try RunWithAPNs.prepare(setup, feed: feed)
            fake.limitBroadcastsPerChannel(1)
            try await InProcessRun.run(configPath: setup.configPath) { (run: InProcessRun) async throws in
                let match = "espn-worldcup/760499"
                #expect(try await run.api.request("PUT", "/v1/devices/iphone-a/subscriptions/\(match)").status == 204)
                #expect(
                    try await run.api.request(
                        "PUT", "/v1/devices/iphone-a/push-to-start/MatchAttributes",
                        body: #"{"token": "\#(MatchReplay.startToken)", "environment": "sandbox"}"#
                    ).status == 204)
                // The whole match, a moment a second: the first update takes the channel's window, the rest
                // (the end included) meet 429.
                for step in 1..<RunWithAPNs.steps.count {
                    feed.advance(to: step)
                    await run.advance(by: .seconds(1))
                }
                // A minute of a closed window: one try every 2.5 to 5 s, never a burst.
                for _ in 0..<60 { await run.advance(by: .seconds(1)) }
                let throttled = fake.rejections.filter { $0.reason == "TooManyRequests" }
                #expect(throttled.count == fake.rejections.count, "\(fake.rejections)")
                #expect(throttled.count >= 12 && throttled.count <= 30, "\(throttled.count) tries in ~66 s")
                #expect(fake.broadcasts.count == 1)
                #expect(!fake.broadcasts.contains { $0.body.contains(#""event":"end""#) })

                fake.openBroadcastWindow()
                var waited = 0
                while !fake.broadcasts.contains(where: { $0.body.contains(#""event":"end""#) }), waited < 10 {
                    await run.advance(by: .seconds(1))
                    waited += 1
                }
                #expect(fake.broadcasts.count == 2, "the newest state, once: \(fake.broadcasts.map(\.body))")
                #expect(fake.broadcasts.last?.body.contains(#""event":"end""#) == true)
                #expect(waited <= 6, "the end went \(waited) s after the window reopened")
                let logs = run.logs.all
                #expect(!logs.contains { $0.contains("giving up") || $0.contains("given up") }, "\(logs)")
                #expect(logs.contains { $0.contains("push throttled by the provider") })
            }
            try await feed.stop()
        }
    }
}
