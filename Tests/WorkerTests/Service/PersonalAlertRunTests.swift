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

    /// Makes each subscription to BTCUSDT through the token API, with its device's push-to-start token
    /// (`<letter>1`, from the device's last letter).
    static func subscribe(_ run: InProcessRun, _ subscriptions: [(id: String, device: String, parameters: String)])
        async throws
    {
        for (id, device, parameters) in subscriptions {
            let made = try await run.api.request(
                "PUT", "/v1/subscriptions/\(id)",
                body: #"{"device": "\#(device)", "feed": "markets", "entity": "BTCUSDT", "parameters": \#(parameters)}"#
            )
            #expect(made.status == 201, "\(made.body)")
            let pushToStart = try await run.api.request(
                "PUT", "/v1/devices/\(device)/push-to-start/PersonalAlertAttributes",
                body: #"{"token": "\#(token(device.suffix(1) + "1"))", "environment": "sandbox"}"#)
            #expect(pushToStart.status == 204, "\(pushToStart.body)")
        }
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
                try await Self.subscribe(
                    run, [("sub-a", "iphone-a", #"{"above": 100000}"#), ("sub-b", "iphone-b", #"{"above": 100500}"#)])
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
