import Delivery
import Foundation
import HTTP
import LiveRelayCore
import LiveRelayTesting
import Logging
import Testing

/// The real Pushwoosh provider over the real `CurlTransport` against the fake Pushwoosh, through the `Sender`.
@Suite("Pushwoosh provider against the fake Pushwoosh")
struct PushwooshProviderTests {
    static let authority = try! TestCertificateAuthority()
    static let apiToken = "pw-api-token-do-not-log"

    static func with(
        filterCode: String? = nil, _ body: (FakePushwoosh, Sender, CapturingLogHandler.Store) async throws -> Void
    ) async throws {
        let fake = try await FakePushwoosh.start(authority: authority, application: "ABCDE-12345", apiToken: apiToken)
        let transport = try CurlTransport(configuration: CurlTransport.Configuration(caFile: authority.caFile))
        let provider = PushwooshProvider(
            configuration: PushwooshProvider.Configuration(
                endpoint: fake.url, application: "ABCDE-12345", requestTimeout: .seconds(120),
                startFilterCode: filterCode),
            apiToken: Secret(apiToken), transport: transport)
        let logs = CapturingLogHandler.Store()
        let sender = Sender(provider: provider, logger: CapturingLogHandler.logger(logs), clock: ImmediateClock())
        defer { transport.shutdown() }
        do {
            try await body(fake, sender, logs)
        } catch {
            try? await fake.stop()
            throw error
        }
        try await fake.stop()
    }

    static let start = LiveActivityPush(
        activity: "match-1", attributesType: "MatchAttributes", event: .start, timestamp: 1_783_101_700,
        contentState: ["homeScore": 0], attributes: ["home": "AUS"],
        alert: LiveActivityAlert(title: "Kick-off", body: "AUS 0–0 EGY"),
        priority: .high)
    static let update = LiveActivityPush(
        activity: "match-1", attributesType: "MatchAttributes", event: .update, timestamp: 1_783_101_800,
        contentState: ["homeScore": 1], relevanceScore: RelevanceScore(50), staleDate: 1_783_102_000, priority: .high)

    @Test func startDeviceListsLongerThan1000AreSplit() async throws {
        try await Self.with { fake, sender, _ in
            let targets = (0..<2500).map {
                PushTarget(
                    kind: .pushToStart, token: nil, device: "d\($0)",
                    address: ProviderAddress(device: String(format: "AB%062X", $0)))
            }
            let receipts = await sender.send(Self.start, to: targets)
            #expect(receipts.count == 2500)
            #expect(receipts.allSatisfy { $0.delivered })
            let lists = fake.accepted.flatMap { request in
                ((request.json["request"] as? [String: Any])?["notifications"] as? [[String: Any]] ?? []).map {
                    $0["devices"] as? [String] ?? []
                }
            }
            #expect(lists.map(\.count).sorted() == [500, 1000, 1000])
            #expect(lists.joined().allSatisfy { $0 == $0.lowercased() })
            #expect(fake.accepted.allSatisfy { $0.path == "/json/1.3/startLiveActivity" })
        }
    }

    @Test func usersAndDevicesGoInSeparateNotifications() {
        let notifications = PushwooshRequest.startNotifications(
            Self.start, liveActivityID: "match-1", devices: ["a"], users: ["u1", "u2"])
        #expect(notifications.map(\.users) == [["u1", "u2"], nil])
        #expect(notifications.map(\.devices) == [nil, ["a"]])
        #expect(notifications.allSatisfy { $0.content == "AUS 0–0 EGY" && $0.title == "Kick-off" })
    }

    @Test func anUpdateGoesOnceToTheLiveActivityID() async throws {
        try await Self.with { fake, sender, logs in
            let target = PushTarget(kind: .activity, token: nil, address: ProviderAddress(activity: "la-1"))
            #expect(await sender.send(Self.update, to: [target]).allSatisfy { $0.delivered })
            #expect(fake.accepted.map(\.path) == ["/json/1.3/updateLiveActivity"], "\(logs.all)")
            #expect(
                fake.accepted.first?.body
                    == #"{"request":{"application":"ABCDE-12345","auth":"<auth>","notifications":[{"live_activity":{"content-state":{"homeScore":1},"event":"update","relevance-score":50,"stale-date":1783102000},"live_activity_id":"la-1"}]}}"#
            )
        }
    }

    /// Only iOS push tokens go lower case (the API requires it); an HWID is an identifier and keeps its case.
    @Test func hwidsKeepTheirCaseAndPushTokensGoLowerCase() async throws {
        try await Self.with { fake, sender, _ in
            let token = String(repeating: "AB12", count: 16)
            let targets = [
                PushTarget(kind: .pushToStart, token: nil, address: ProviderAddress(device: "HWID-iphone-b.0001")),
                PushTarget(kind: .pushToStart, token: nil, address: ProviderAddress(device: token)),
            ]
            #expect(await sender.send(Self.start, to: targets).allSatisfy(\.delivered), "\(fake.rejections)")
            let request = try #require(fake.accepted.first?.json["request"] as? [String: Any])
            let notification = try #require((request["notifications"] as? [[String: Any]])?.first)
            #expect(notification["devices"] as? [String] == ["HWID-iphone-b.0001", token.lowercased()])
        }
    }

    /// Pushwoosh takes `relevance-score` as an integer from 1: scores are rounded and raised to 1, and a 400
    /// for one push's value rejects that push while the provider goes on.
    @Test func relevanceIsAnIntegerFromOneAndA400RejectsOnlyThatPush() async throws {
        #expect(
            [12.5, 0.4, 0, 99.49, 100].map { PushwooshRequest.relevance(RelevanceScore($0)) } == [13, 1, 1, 99, 100])
        try await Self.with { fake, sender, _ in
            let target = PushTarget(kind: .activity, token: nil, address: ProviderAddress(activity: "la-1"))
            for score in [12.5, 0] {
                var push = Self.update
                push.relevanceScore = RelevanceScore(score)
                #expect(await sender.send(push, to: [target]).first?.delivered == true, "\(fake.rejections)")
            }
            #expect(fake.accepted.map { $0.body.contains(#""relevance-score":13"#) } == [true, false])
            #expect(fake.accepted.last?.body.contains(#""relevance-score":1,"#) == true)
            fake.script([FakePushwoosh.Fault(status: 400, statusCode: 400)])
            #expect(
                await sender.send(Self.update, to: [target]).first?.outcome
                    == .rejected(reason: "Pushwoosh answered 400, status_code 400"))
            #expect(sender.stoppedReason == nil, "the provider goes on")
            #expect(await sender.send(Self.update, to: [target]).first?.delivered == true)
        }
    }

    @Test func serverErrorsAreRetried() async throws {
        try await Self.with { fake, sender, _ in
            fake.script([FakePushwoosh.Fault(status: 503, statusCode: 503, retryAfter: 1)])
            let target = PushTarget(kind: .activity, token: nil, address: ProviderAddress(activity: "la-1"))
            let receipt = try #require(await sender.send(Self.update, to: [target]).first)
            #expect(receipt.delivered)
            #expect(receipt.attempts == 2)
        }
    }

    @Test func aWrongTokenIsAConfigurationErrorAndAnArgumentErrorRejectsThePush() async throws {
        try await Self.with { fake, sender, logs in
            let target = PushTarget(kind: .activity, token: nil, address: ProviderAddress(activity: "la-1"))
            fake.script([FakePushwoosh.Fault(status: 200, statusCode: 210)])
            #expect(
                await sender.send(Self.update, to: [target]).first?.outcome
                    == .rejected(reason: "Pushwoosh answered 200, status_code 210"))
            fake.script([FakePushwoosh.Fault(status: 401, statusCode: 401)])
            #expect(
                await sender.send(Self.update, to: [target]).first?.outcome
                    == .configurationError(reason: "Pushwoosh answered 401, status_code 401"))
            #expect(sender.stoppedReason != nil)
            #expect(!logs.all.joined().contains(Self.apiToken))
        }
    }

    @Test func withAFilterCodeAStartGoesToTheSegmentAlone() async throws {
        try await Self.with(filterCode: "FOOTBALL_FANS") { fake, sender, _ in
            let targets = [
                PushTarget(kind: .pushToStart, token: nil, address: ProviderAddress(activity: "la-1")),
                PushTarget(kind: .pushToStart, token: nil, address: ProviderAddress(device: "ab12", activity: "la-1")),
            ]
            #expect(await sender.send(Self.start, to: targets).allSatisfy { $0.delivered })
            #expect(fake.rejections.isEmpty, "\(fake.rejections)")
            #expect(fake.accepted.map(\.path) == ["/json/1.3/startLiveActivity"])
            #expect(
                fake.accepted.first?.body
                    == #"{"request":{"application":"ABCDE-12345","auth":"<auth>","notifications":[{"content":"AUS 0–0 EGY","filter_code":"FOOTBALL_FANS","live_activity":{"attributes":{"home":"AUS"},"attributes-type":"MatchAttributes","content-state":{"homeScore":0}},"live_activity_id":"la-1","title":"Kick-off"}]}}"#
            )
            // Updates are not affected: they go to the live_activity_id.
            let update = PushTarget(kind: .activity, token: nil, address: ProviderAddress(activity: "la-1"))
            #expect(await sender.send(Self.update, to: [update]).allSatisfy { $0.delivered })
            #expect(fake.accepted.last?.body.contains("filter_code") == false)
        }
    }

    /// The fake refuses a start whose audience is unclear (a segment and a list) or missing (everyone), as
    /// Pushwoosh's argument errors are answered: 200 with `status_code` 210.
    @Test(arguments: [
        (#""filter_code":"FANS""#, 200),
        (#""devices":["ab12"]"#, 200),
        (#""users":["u1"],"devices":["ab12"]"#, 200),
        (#""filter_code":"FANS","devices":["ab12"]"#, 210),
        (#""filter_code":"FANS","users":["u1"]"#, 210),
        (#""filter_code":"""#, 210),
        (#""filter_code":7"#, 210),
        (#""title":"no audience""#, 210),
    ])
    func theFakeChecksAStartsAudience(audience: String, statusCode: Int) async throws {
        try await Self.with { fake, _, _ in
            let transport = try CurlTransport(configuration: CurlTransport.Configuration(caFile: Self.authority.caFile))
            defer { transport.shutdown() }
            let body =
                #"{"request":{"application":"ABCDE-12345","auth":"\#(Self.apiToken)","notifications":[{"content":"Kick-off","live_activity":{"attributes":{},"attributes-type":"MatchAttributes","content-state":{}},"live_activity_id":"la-1",\#(audience)}]}}"#
            let response = try await transport.send(
                HTTPRequest(
                    method: "POST", url: fake.url + "/json/1.3/startLiveActivity",
                    headers: [HTTPHeader("content-type", "application/json")], body: Data(body.utf8)))
            let answer = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
            #expect(answer?["status_code"] as? Int == statusCode, "\(fake.rejections)")
            #expect(fake.accepted.count == (statusCode == 200 ? 1 : 0))
        }
    }
}
