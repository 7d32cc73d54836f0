import Foundation
import LiveRelayCore
import LiveRelayTesting
import Store
import Testing
import Worker
import WorkerTesting

/// Price alerts of one's own through `liverelay run` in process (Rules/personal-alerts.rules.json on the
/// Binance tickers of Samples/sequences/binance-btc-alert, one moment per poll), subscriptions made through
/// the token API, pushes to the fake APNs over HTTP/2 + TLS.
@Suite("personal alerts", .serialized)
struct PersonalAlertRunTests {
    static func token(_ byte: String) -> String { String(repeating: byte, count: 32) }

    /// The personal-alerts rules on the Binance tickers of `feed`, polled every second, with the token API.
    static func config(feed: FeedServer) -> [String: JSONValue] {
        [
            "rules": [.string(Repository.path("Rules/personal-alerts.rules.json"))],
            "feeds": [
                [
                    "id": "markets", "url": .string(feed.url), "interval": 1,
                    "preset": ["name": "binance", "symbols": ["BTCUSDT", "ETHUSDT"]],
                ]
            ],
            "api": ["port": 0, "bearer-token": ["env": "LIVERELAY_TEST_BEARER"]],
        ]
    }

    static let steps =
        [
            "01-before.json", "02-eth-moves.json", "03-btc-crosses.json", "04-btc-drifts.json", "05-btc-drifts-on.json",
            "06-calm.json",
        ].map { "binance-btc-alert/" + $0 }
        + ["07-btc-falls.json", "08-btc-recovers.json", "09-btc-falls-again.json"].map {
            "binance-personal-alerts/" + $0
        }

    /// Each subscription's alert starts at its own level on its own device, updates at its own move, and
    /// ends when it is deleted or after 30 calm minutes; it fires once, unless its subscription re-arms: then
    /// the next crossing starts a second alert of its own; the API refuses
    /// parameters the rule file does not declare, naming the field. By tokens: no channel is made.
    @Test func eachSubscriptionGetsItsOwnAlert() async throws {
        let feed = try await FeedServer.start(
            bodies: try Self.steps.map {
                try Data(contentsOf: Repository.url("Samples/sequences/" + $0))
            }, manual: true)
        try await MatchReplay.withFakeAPNs(
            extra: Self.config(feed: feed).merging([
                "contracts": [.string(Repository.path("Rules/contracts/PersonalAlertAttributes.contract.json"))]
            ]) { _, new in new }
        ) { setup, fake in
            try await InProcessRun.run(configPath: setup.configPath) { run in
                func put(_ id: String, _ body: String) async throws -> (status: Int, body: String) {
                    try await run.api.request("PUT", "/v1/subscriptions/\(id)", body: body)
                }
                func subscribe(_ id: String, device: String, _ parameters: String) async throws {
                    let made = try await put(
                        id,
                        #"{"device": "\#(device)", "feed": "markets", "entity": "BTCUSDT", "parameters": \#(parameters)}"#
                    )
                    #expect(made.status == 201, "\(made.body)")
                    let pushToStart = try await run.api.request(
                        "PUT", "/v1/devices/\(device)/push-to-start/PersonalAlertAttributes",
                        body: #"{"token": "\#(Self.token(device.suffix(1) + "1"))", "environment": "sandbox"}"#)
                    #expect(pushToStart.status == 204, "\(pushToStart.body)")
                }
                // The API refuses what no rule would read, naming the field.
                let wrong = try await put(
                    "x", #"{"device": "iphone-x", "feed": "markets", "entity": "BTCUSDT", "parameters": {"abuve": 1}}"#)
                #expect(wrong.status == 400)
                #expect(wrong.body.contains("parameters"), "\(wrong.body)")
                #expect(wrong.body.contains("personal-alerts.rules.json"), "\(wrong.body)")
                let noLevel = try await put(
                    "x", #"{"device": "iphone-x", "feed": "markets", "entity": "BTCUSDT", "parameters": {}}"#)
                #expect(noLevel.status == 400, "above or below is required: \(noLevel.body)")

                try await subscribe("sub-a", device: "iphone-a", #"{"above": 100000, "move-percent": 0.2}"#)
                try await subscribe("sub-b", device: "iphone-b", #"{"above": 100500}"#)
                try await subscribe("sub-c", device: "iphone-c", #"{"below": 100000, "re-arm": true}"#)
                let conflict = try await put(
                    "sub-a",
                    #"{"device": "iphone-b", "feed": "markets", "entity": "BTCUSDT", "parameters": {"above": 1}}"#)
                #expect(conflict.status == 409, "\(conflict.body)")
                let same = try await put(
                    "sub-c",
                    #"{"device": "iphone-c", "feed": "markets", "entity": "BTCUSDT", "parameters": {"below": 100000, "re-arm": true}}"#
                )
                #expect(same.status == 200, "\(same.body)")

                func bodies(_ token: String) throws -> [JSONValue] {
                    try fake.accepted.filter { $0.token == token }.map { try JSONParser.parse($0.body) }
                }
                // 98,500 → 98,950 → 100,120.50: sub-a's level is crossed.
                for step in 1...2 {
                    feed.advance(to: step)
                    await run.advance(by: .seconds(1))
                }
                let startA = try bodies(Self.token("a1"))
                #expect(startA.count == 1, "\(fake.accepted.map(\.token))")
                #expect(fake.accepted.count == 1, "the start goes to sub-a's device alone")
                #expect(startA.first?["aps"]?["event"] == "start")
                #expect(startA.first?["aps"]?["attributes"]?["level"] == 100000)
                #expect(startA.first?["aps"]?["content-state"]?["price"] == 100120.5)
                let title = startA.first?["aps"]?["alert"]?["title"]?.stringValue ?? ""
                #expect(title.contains("rose past your 100,000"), "\(title)")
                // The app reports the new activity's update token.
                #expect(
                    try await run.api.request(
                        "PUT", "/v1/activities/my-alert-sub-a-0/tokens/iphone-a",
                        body: #"{"token": "\#(Self.token("a2"))", "environment": "sandbox"}"#
                    ).status == 204)

                // 100,350 (+0.23 %: past sub-a's 0.2 %), then 100,650 (+0.30 %, and past sub-b's level).
                for step in 3...4 {
                    feed.advance(to: step)
                    await run.advance(by: .seconds(1))
                }
                #expect(try bodies(Self.token("a2")).map { $0["aps"]?["content-state"]?["price"] } == [100350, 100650])
                let startB = try bodies(Self.token("b1"))
                #expect(startB.map { $0["aps"]?["event"] } == ["start"])
                #expect(startB.first?["aps"]?["attributes"]?["level"] == 100500)
                #expect(
                    try await run.api.request(
                        "PUT", "/v1/activities/my-alert-sub-b-0/tokens/iphone-b",
                        body: #"{"token": "\#(Self.token("b2"))", "environment": "sandbox"}"#
                    ).status == 204)

                // Deleting sub-a ends its alert at the next poll, dismissed at once; sub-b's goes on.
                #expect(try await run.api.request("DELETE", "/v1/subscriptions/sub-a").status == 204)
                #expect(try await run.api.request("GET", "/v1/subscriptions/sub-a").status == 404)
                #expect(try await run.api.request("DELETE", "/v1/subscriptions/sub-a").status == 404)
                let b = try await run.api.request("GET", "/v1/subscriptions/sub-b")
                #expect(b.status == 200)
                #expect(b.body.contains(#""above":100500"#), "\(b.body)")
                feed.advance(to: 5)
                await run.advance(by: .seconds(1))
                let end = try #require(try bodies(Self.token("a2")).last)
                #expect(end["aps"]?["event"] == "end")
                #expect(end["aps"]?["dismissal-date"] == end["aps"]?["timestamp"])
                #expect(try bodies(Self.token("c1")).isEmpty, "sub-c's level is not crossed yet")
                #expect(run.logs.all.contains { $0.contains("subscription deleted: its activities end") })

                // 99,800: past sub-c's 100,000; -0.84 % for sub-b.
                feed.advance(to: 6)
                await run.advance(by: .seconds(1))
                #expect(try bodies(Self.token("c1")).map { $0["aps"]?["content-state"]?["price"] } == [99800])
                #expect(try bodies(Self.token("b2")).map { $0["aps"]?["event"] } == ["update"])
                #expect(
                    try await run.api.request(
                        "PUT", "/v1/activities/my-alert-sub-c-0/tokens/iphone-c",
                        body: #"{"token": "\#(Self.token("c2"))", "environment": "sandbox"}"#
                    ).status == 204)

                // sub-b's and sub-c's alerts end after 30 calm minutes: their timer rule found their subscriptions.
                for _ in 0..<32 { await run.advance(by: .seconds(60)) }
                #expect(
                    try bodies(Self.token("b2")).map { $0["aps"]?["event"] } == ["update", "end"],
                    "\(run.logs.all.suffix(30).joined(separator: "\n"))")
                #expect(try bodies(Self.token("c2")).map { $0["aps"]?["event"] } == ["end"])

                // 100,600 crosses sub-b's level again: its one alert has been. 99,700 crosses sub-c's again: it
                // re-arms, and its second alert is an activity of its own.
                for step in 7...8 {
                    feed.advance(to: step)
                    await run.advance(by: .seconds(1))
                }
                #expect(try bodies(Self.token("b1")).count == 1, "sub-b fires once")
                let startsC = try bodies(Self.token("c1"))
                #expect(startsC.map { $0["aps"]?["content-state"]?["price"] } == [99800, 99700])
                #expect(startsC.last?["aps"]?["event"] == "start")
                #expect(
                    try await run.api.request(
                        "PUT", "/v1/activities/my-alert-sub-c-1/tokens/iphone-c",
                        body: #"{"token": "\#(Self.token("c3"))", "environment": "sandbox"}"#
                    ).status == 204)
                #expect(
                    try await run.api.request(
                        "PUT", "/v1/activities/my-alert-sub-c-0/tokens/iphone-c",
                        body: #"{"token": "\#(Self.token("c4"))", "environment": "sandbox"}"#
                    ).status != 204, "the first alert has ended")
                #expect(fake.rejections.isEmpty, "\(fake.rejections)")
                #expect(fake.createdChannels.isEmpty, "no channel for a subscription's activity")
                #expect(fake.accepted.allSatisfy { !$0.body.contains("input-push-channel") })
            }
        }
        try await feed.stop()
    }

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
                for (id, device, parameters) in [
                    ("sub-a", "iphone-a", #"{"above": 100000, "move-percent": 0.2}"#),
                    ("sub-b", "iphone-b", #"{"above": 100500}"#),
                    ("sub-c", "iphone-c", #"{"below": 100000, "re-arm": true}"#),
                ] {
                    let made = try await run.api.request(
                        "PUT", "/v1/subscriptions/\(id)",
                        body:
                            #"{"device": "\#(device)", "feed": "markets", "entity": "BTCUSDT", "parameters": \#(parameters)}"#
                    )
                    #expect(made.status == 201, "\(made.body)")
                    #expect(
                        try await run.api.request(
                            "PUT", "/v1/devices/\(device)/push-to-start/PersonalAlertAttributes",
                            body: #"{"token": "\#(Self.token(device.suffix(1) + "1"))", "environment": "sandbox"}"#
                        ).status == 204)
                }
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
                for (id, device, parameters) in [
                    ("sub-b", "iphone-b", #"{"above": 100500}"#),
                    ("sub-c", "iphone-c", #"{"below": 100000, "re-arm": true}"#),
                ] {
                    #expect(
                        try await run.api.request(
                            "PUT", "/v1/subscriptions/\(id)",
                            body:
                                #"{"device": "\#(device)", "feed": "markets", "entity": "BTCUSDT", "parameters": \#(parameters)}"#
                        ).status == 201)
                    #expect(
                        try await run.api.request(
                            "PUT", "/v1/devices/\(device)/push-to-start/PersonalAlertAttributes",
                            body: #"{"token": "\#(Self.token(device.suffix(1) + "1"))", "environment": "sandbox"}"#
                        ).status == 204)
                }
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

    /// A deleted subscription's alert ends at the feed's next poll even when the feed has nothing new: a
    /// `304 Not Modified`, or a failing feed.
    @Test func aDeletionEndsItsAlertWhenTheFeedHasNothingNew() async throws {
        let feed = try await FeedServer.start(
            bodies: try Self.steps.prefix(5).map { try Data(contentsOf: Repository.url("Samples/sequences/" + $0)) },
            etags: true, manual: true)
        try await MatchReplay.withFakeAPNs(
            extra: Self.config(feed: feed)
        ) { setup, fake in
            try await InProcessRun.run(configPath: setup.configPath) { run in
                for (id, device, level) in [("sub-a", "iphone-a", 100000), ("sub-b", "iphone-b", 100500)] {
                    let made = try await run.api.request(
                        "PUT", "/v1/subscriptions/\(id)",
                        body:
                            #"{"device": "\#(device)", "feed": "markets", "entity": "BTCUSDT", "parameters": {"above": \#(level)}}"#
                    )
                    #expect(made.status == 201, "\(made.body)")
                    let token = Self.token(device.suffix(1) + "1")
                    #expect(
                        try await run.api.request(
                            "PUT", "/v1/devices/\(device)/push-to-start/PersonalAlertAttributes",
                            body: #"{"token": "\#(token)", "environment": "sandbox"}"#
                        ).status == 204)
                }
                // 98,500 → 98,950 → 100,120.50 → 100,350 → 100,650: both alerts start.
                for step in 1...4 {
                    feed.advance(to: step)
                    await run.advance(by: .seconds(1))
                }
                for (activity, device) in [("my-alert-sub-a-0", "iphone-a"), ("my-alert-sub-b-0", "iphone-b")] {
                    #expect(
                        try await run.api.request(
                            "PUT", "/v1/activities/\(activity)/tokens/\(device)",
                            body: #"{"token": "\#(Self.token(device.suffix(1) + "2"))", "environment": "sandbox"}"#
                        ).status == 204)
                }
                func events(_ token: String) throws -> [JSONValue?] {
                    try fake.accepted.filter { $0.token == token }.map {
                        try JSONParser.parse($0.body)["aps"]?["event"]
                    }
                }
                #expect(try events(Self.token("a1")) == ["start"])
                #expect(try events(Self.token("b1")) == ["start"])

                // The feed answers 304 from now on: sub-a's deletion ends its alert all the same.
                let served = feed.served
                #expect(try await run.api.request("DELETE", "/v1/subscriptions/sub-a").status == 204)
                await run.advance(by: .seconds(1))
                #expect(feed.served > served)
                #expect(try events(Self.token("a2")) == ["end"], "\(run.logs.all.suffix(20).joined(separator: "\n"))")
                // The feed fails: sub-b's deletion ends its alert too.
                feed.inject(.status(503), .status(503), .status(503))
                #expect(try await run.api.request("DELETE", "/v1/subscriptions/sub-b").status == 204)
                await run.advance(by: .seconds(1))
                #expect(try events(Self.token("b2")) == ["end"], "\(run.logs.all.suffix(20).joined(separator: "\n"))")
                #expect(fake.rejections.isEmpty, "\(fake.rejections)")
            }
        }
        try await feed.stop()
    }
}
