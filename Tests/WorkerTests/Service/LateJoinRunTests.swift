import Foundation
import LiveRelayCore
import LiveRelayTesting
import Store
import Testing
import Worker
import WorkerTesting

/// Late joiners through `liverelay run` in process: devices that follow the match after kick-off, through the
/// token API, against the fake APNs over HTTP/2 + TLS.
@Suite("late joiners", .serialized)
struct LateJoinRunTests {
    static func token(_ byte: String) -> String { String(repeating: byte, count: 32) }

    /// The device subscribes and registers its push-to-start token, the order the app chooses.
    static func follow(_ run: InProcessRun, _ device: String, token: String, tokenFirst: Bool = false) async throws {
        let subscribe = "/v1/devices/\(device)/subscriptions/\(MatchReplay.match.feed)/\(MatchReplay.match.id)"
        let pushToStart = "/v1/devices/\(device)/push-to-start/MatchAttributes"
        let body = #"{"token": "\#(token)", "environment": "sandbox"}"#
        if tokenFirst {
            #expect(try await run.api.request("PUT", pushToStart, body: body).status == 204)
            #expect(try await run.api.request("PUT", subscribe).status == 204)
        } else {
            #expect(try await run.api.request("PUT", subscribe).status == 204)
            #expect(try await run.api.request("PUT", pushToStart, body: body).status == 204)
        }
    }

    /// A fan following at 60' gets one start carrying the score as it stands; one following after full time
    /// gets none; one whose app already runs the activity (it reported the activity's token) gets none.
    @Test func aDeviceFollowingMidMatchGetsOneStartWithTheCurrentScore() async throws {
        try await MatchReplay.withFakeAPNs { setup, fake in
            let feed = try await RunWithAPNs.feedServer()
            try RunWithAPNs.prepare(setup, feed: feed)
            try await InProcessRun.run(configPath: setup.configPath) { run in
                try await Self.follow(run, "iphone-a", token: MatchReplay.startToken, tokenFirst: true)
                for step in 1...3 {
                    feed.advance(to: step)
                    await run.advance(by: .seconds(1))
                }
                #expect(fake.accepted.map(\.token) == [MatchReplay.startToken], "the kick-off start alone")
                let activity = ActivityKey("match-760499")
                let state = try #require(try await run.store.activities([activity])[activity]?.state)

                // Mid-match: a new fan (token after the subscription), and a device that runs the activity.
                try await Self.follow(run, "iphone-b", token: Self.token("b2"))
                #expect(
                    try await run.api.request(
                        "PUT", "/v1/activities/match-760499/tokens/iphone-c",
                        body: #"{"token": "\#(Self.token("c3"))", "environment": "sandbox"}"#
                    ).status == 204)
                try await Self.follow(run, "iphone-c", token: Self.token("c4"), tokenFirst: true)
                await run.advance(by: .seconds(1))
                let late = fake.accepted.filter { $0.token == Self.token("b2") }
                #expect(late.count == 1, "one start, though the subscription and the token each made a join")
                let body = try JSONParser.parse(try #require(late.first).body)
                #expect(body["aps"]?["event"] == "start")
                #expect(body["aps"]?["content-state"] == state, "the score as it stands")
                #expect(body["aps"]?["attributes-type"] == "MatchAttributes")
                #expect(body["aps"]?["attributes"]?["homeTeam"] != nil, "the attributes of the kick-off")
                #expect(body["aps"]?["alert"] != nil)
                #expect(fake.accepted.allSatisfy { $0.token != Self.token("c4") }, "iphone-c runs the activity")
                #expect(run.logs.all.contains { $0.contains("the device runs the activity already") })

                // Later moments go to the late joiner's activity token like any other.
                for step in 4..<RunWithAPNs.steps.count {
                    feed.advance(to: step)
                    await run.advance(by: .seconds(1))
                }
                let afterEnd = fake.accepted.count
                try await Self.follow(run, "iphone-d", token: Self.token("d4"))
                await run.advance(by: .seconds(1))
                #expect(fake.accepted.count == afterEnd, "after full time, no start")
                #expect(try await run.store.lateJoins(limit: 10).isEmpty, "every join was looked at")
                let starts = try fake.accepted.filter { try JSONParser.parse($0.body)["aps"]?["event"] == "start" }
                #expect(starts.map(\.token) == [MatchReplay.startToken, Self.token("b2")])
                #expect(fake.rejections.isEmpty, "\(fake.rejections)")
                // iphone-a followed before the match: its join found no activity; iphone-c's start was
                // staged and then refused by the start guard; iphone-d's found the activity ended.
                #expect(run.metrics.contains(#"liverelay_late_joins_total{outcome="started"} 2"#), "\(run.metrics)")
                #expect(run.metrics.contains(#"liverelay_late_joins_total{outcome="no-activity"} 1"#))
                #expect(run.metrics.contains(#"liverelay_late_joins_total{outcome="ended"} 1"#))
            }
            try await feed.stop()
        }
    }
}
