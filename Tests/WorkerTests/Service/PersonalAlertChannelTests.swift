import Foundation
import LiveRelayCore
import LiveRelayTesting
import Store
import Testing
import Worker
import WorkerTesting

/// Price alerts of one's own in channel mode, through `liverelay run` in process: the alerts of a symbol on
/// one broadcast channel of the fake APNs.
extension PersonalAlertRunTests {
    /// In `channel` mode the alerts of a symbol share one channel: each starts on its own device with its own
    /// level and the channel; every update is one broadcast, however many alerts run; a deleted
    /// subscription's end is not broadcast while another alert runs on the channel (it would end that one
    /// too); a calm end is one broadcast that ends every alert there; the re-armed alert, once all ended,
    /// starts on a new channel. No update token is asked for or needed.
    @Test func inChannelModeTheAlertsOfASymbolShareOneChannel() async throws {
        let feed = try await FeedServer.start(
            bodies: try Self.steps.map {
                try Data(contentsOf: Repository.url("Samples/sequences/" + $0))
            }, manual: true)
        try await MatchReplay.withFakeAPNs(
            channels: ["storage-policy": 0],
            extra: Self.config(feed: feed).merging([
                "activity-modes": [
                    ["rule-file": .string(Repository.path("Rules/personal-alerts.rules.json")), "mode": "channel"]
                ],
                "contracts": [.string(Repository.path("Rules/contracts/PersonalAlertAttributes.contract.json"))],
            ]) { _, new in new }
        ) { setup, fake in
            try await InProcessRun.run(configPath: setup.configPath) { run in
                try await Self.subscribe(
                    run,
                    [
                        ("sub-a", "iphone-a", #"{"above": 100000, "move-percent": 0.2}"#),
                        ("sub-b", "iphone-b", #"{"above": 100500}"#),
                        ("sub-c", "iphone-c", #"{"below": 100000, "re-arm": true}"#),
                    ])
                func starts(_ device: String) throws -> [JSONValue] {
                    try fake.accepted.filter { $0.token == Self.token(device + "1") }.map {
                        try JSONParser.parse($0.body)["aps"] ?? .null
                    }
                }
                func broadcasts() throws -> [(channel: String?, aps: JSONValue)] {
                    try fake.broadcasts.map { ($0.channel, try JSONParser.parse($0.body)["aps"] ?? .null) }
                }
                // 100,120.50 crosses sub-a's level: the symbol's channel is made, and sub-a starts on it.
                for step in 1...2 {
                    feed.advance(to: step)
                    await run.advance(by: .seconds(1))
                }
                #expect(fake.createdChannels.count == 1)
                let channel = try #require(fake.createdChannels.first)
                #expect(try starts("a").map { $0["input-push-channel"] } == [.string(channel)])
                #expect(try starts("a").first?["attributes"]?["level"] == 100000)
                // An app asking for the alert's channel is told the symbol's.
                let asked = try await run.api.request("GET", "/v1/activities/my-alert-sub-a-0/channel")
                #expect(asked.status == 200)
                #expect(try JSONParser.parse(Data(asked.body.utf8))["channel-id"] == .string(channel))
                #expect(try await run.api.request("GET", "/v1/activities/my-alert-sub-z-0/channel").status == 404)

                // 100,350 (sub-a's move) and 100,650 (sub-a's move; sub-b crosses): one broadcast each; sub-b
                // starts on the same channel with its own level.
                for step in 3...4 {
                    feed.advance(to: step)
                    await run.advance(by: .seconds(1))
                }
                #expect(try broadcasts().map(\.aps["content-state"]?["price"]) == [100350, 100650])
                #expect(try broadcasts().allSatisfy { $0.channel == channel })
                #expect(try starts("b").map { $0["input-push-channel"] } == [.string(channel)])
                #expect(try starts("b").first?["attributes"]?["level"] == 100500)

                // Deleting sub-a: sub-b runs on the channel, so no end is broadcast; sub-a's alert is ended.
                #expect(try await run.api.request("DELETE", "/v1/subscriptions/sub-a").status == 204)
                feed.advance(to: 5)
                await run.advance(by: .seconds(1))
                #expect(try broadcasts().count == 2, "no end broadcast: it would end sub-b's alert too")
                #expect(run.logs.all.contains { $0.contains("so no end is broadcast") })

                // 99,800: sub-c starts on the channel; sub-b's move is one broadcast.
                feed.advance(to: 6)
                await run.advance(by: .seconds(1))
                #expect(try starts("c").map { $0["input-push-channel"] } == [.string(channel)])
                #expect(try broadcasts().map(\.aps["event"]) == ["update", "update", "update"])
                #expect(try broadcasts().last?.aps["content-state"]?["price"] == 99800)

                // 30 calm minutes: one end broadcast ends sub-b's and sub-c's alerts.
                for _ in 0..<32 { await run.advance(by: .seconds(60)) }
                #expect(try broadcasts().map(\.aps["event"]) == ["update", "update", "update", "end"])
                let records = try await run.store.activities([
                    ActivityKey("my-alert-sub-b-0"), ActivityKey("my-alert-sub-c-0"),
                ])
                #expect(records.values.map(\.phase) == [.ended, .ended])

                // 99,700: sub-c re-arms; its second alert starts on a new channel (the old one is deleted).
                for step in 7...8 {
                    feed.advance(to: step)
                    await run.advance(by: .seconds(1))
                }
                let second = try starts("c")
                #expect(second.count == 2)
                #expect(fake.createdChannels.count == 2)
                #expect(second.last?["input-push-channel"] == fake.createdChannels.last.map { .string($0) })
                #expect(fake.deletedChannels.contains(channel))
                #expect(try starts("b").count == 1, "sub-b fires once")
                #expect(fake.rejections.isEmpty, "\(fake.rejections)")
            }
        }
        try await feed.stop()
    }

    /// An alert that starts on the symbol's channel while the channel's end still waits in the outbox (APNs
    /// answers 429): the end goes once the window reopens, and the channel is kept for the new alert (its
    /// device drops the older end) past the end's dismissal.
    @Test func anAlertStartedWhileTheChannelsEndWaitsKeepsTheChannel() async throws {
        let feed = try await FeedServer.start(
            bodies: try Self.steps.map {
                try Data(contentsOf: Repository.url("Samples/sequences/" + $0))
            }, manual: true)
        try await MatchReplay.withFakeAPNs(
            channels: ["storage-policy": 0],
            extra: Self.config(feed: feed).merging([
                "activity-modes": [["attributes-type": "PersonalAlertAttributes", "mode": "channel"]]
            ]) { _, new in new }
        ) { setup, fake in
            try await InProcessRun.run(configPath: setup.configPath) { run in
                try await Self.subscribe(
                    run,
                    [
                        ("sub-b", "iphone-b", #"{"above": 100500}"#),
                        ("sub-c", "iphone-c", #"{"below": 100000, "re-arm": true}"#),
                    ])
                // 100,650: sub-b starts; 100,700; 99,800: sub-c starts, sub-b's move is broadcast.
                for step in 1...6 {
                    feed.advance(to: step)
                    await run.advance(by: .seconds(1))
                }
                let channel = try #require(fake.createdChannels.first)
                #expect(fake.createdChannels.count == 1)
                // The calm end meets a closed window; 99,700 re-arms sub-c meanwhile, on the same channel.
                fake.limitBroadcastsPerChannel(0)
                for _ in 0..<32 { await run.advance(by: .seconds(60)) }
                #expect(!fake.broadcasts.contains { $0.body.contains(#""event":"end""#) })
                for step in 7...8 {
                    feed.advance(to: step)
                    await run.advance(by: .seconds(1))
                }
                let startsC = try fake.accepted.filter { $0.token == Self.token("c1") }.map {
                    try JSONParser.parse($0.body)["aps"]
                }
                #expect(startsC.count == 2)
                #expect(startsC.last??["input-push-channel"] == .string(channel))
                fake.limitBroadcastsPerChannel(nil)
                fake.openBroadcastWindow()
                for _ in 0..<10 { await run.advance(by: .seconds(1)) }
                #expect(fake.broadcasts.contains { $0.body.contains(#""event":"end""#) })
                // Past the end's dismissal: the channel stays, as the new alert runs on it.
                for _ in 0..<20 { await run.advance(by: .seconds(60)) }
                #expect(fake.deletedChannels.isEmpty, "the running alert's channel was deleted")
                #expect(fake.rejections.allSatisfy { $0.reason == "TooManyRequests" }, "\(fake.rejections)")
            }
        }
        try await feed.stop()
    }
}
