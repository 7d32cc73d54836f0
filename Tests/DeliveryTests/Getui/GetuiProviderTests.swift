import Delivery
import Foundation
import HTTP
import LiveRelayCore
import LiveRelayTesting
import Logging
import Synchronization
import Testing

/// The real Getui provider over the real `CurlTransport` (HTTP/2 + TLS) against the fake Getui, through the
/// `Sender`: auth and the token's life, each answer code, batches and `request_id`s.
@Suite("Getui provider against the fake Getui")
struct GetuiProviderTests {
    static let authority = try! TestCertificateAuthority()
    static let appID = "demoAppId0123"
    static let appKey = "demoAppKey456"
    static let masterSecret = "getui-master-secret-do-not-log"
    static let start = 1_783_101_600_000

    struct Bed {
        let fake: FakeGetui
        let provider: GetuiProvider
        let sender: Sender
        let pruned: Pruned
        let logs: CapturingLogHandler.Store
        let clock: WallClock

        func advance(seconds: Int) { clock.milliseconds.withLock { $0 += seconds * 1000 } }
    }

    /// The provider's wall clock, moved by hand.
    final class WallClock: Sendable {
        let milliseconds = Mutex(GetuiProviderTests.start)
    }

    final class Pruned: TokenPruning {
        let targets = Mutex<[PushTarget]>([])
        func dropToken(_ target: PushTarget, reason: String) async { targets.withLock { $0.append(target) } }
    }

    static func with(
        requestID: (@Sendable () -> String)? = nil, _ body: (Bed) async throws -> Void
    ) async throws {
        let fake = try await FakeGetui.start(
            authority: authority, appID: appID, appKey: appKey, masterSecret: masterSecret)
        let transport = try CurlTransport(configuration: CurlTransport.Configuration(caFile: authority.caFile))
        let clock = WallClock()
        let now: @Sendable () -> Int = { clock.milliseconds.withLock { $0 } }
        let configuration = GetuiProvider.Configuration(
            endpoint: fake.url, appID: appID, appKey: appKey, requestTimeout: .seconds(120))
        let provider =
            if let requestID {
                GetuiProvider(
                    configuration: configuration, masterSecret: Secret(masterSecret), transport: transport, now: now,
                    requestID: requestID)
            } else {
                GetuiProvider(
                    configuration: configuration, masterSecret: Secret(masterSecret), transport: transport, now: now)
            }
        let logs = CapturingLogHandler.Store()
        let pruned = Pruned()
        let sender = Sender(
            provider: provider, logger: CapturingLogHandler.logger(logs), pruning: pruned, clock: ImmediateClock())
        defer { transport.shutdown() }
        let bed = Bed(fake: fake, provider: provider, sender: sender, pruned: pruned, logs: logs, clock: clock)
        do {
            try await body(bed)
        } catch {
            try? await fake.stop()
            throw error
        }
        try await fake.stop()
    }

    static let update = LiveActivityPush(
        activity: "match-1", attributesType: "MatchAttributes", event: .update, timestamp: 1_783_101_700,
        contentState: ["homeScore": 1, "awayScore": 0], priority: .high)
    static let startPush = LiveActivityPush(
        activity: "match-1", attributesType: "MatchAttributes", event: .start, timestamp: 1_783_101_650,
        contentState: ["homeScore": 0], attributes: ["home": "AUS"],
        alert: LiveActivityAlert(title: "Kick-off", body: "AUS 0–0 EGY"), priority: .high)

    static func target(_ cid: String = "cid-a", laID: String? = "la-1") -> PushTarget {
        PushTarget(
            kind: .activity, token: nil, device: "iphone-\(cid)", address: ProviderAddress(device: cid, activity: laID))
    }

    static func ios(_ request: FakeProviderRequest) throws -> [String: Any] {
        let channel = try #require(request.json["push_channel"] as? [String: Any])
        return try #require(channel["ios"] as? [String: Any])
    }

    @Test func theSignIsSHA256OfAppKeyTimestampAndMasterSecret() {
        #expect(
            FakeGetui.sign(appKey: "appkey-1", timestamp: "1783101600000", masterSecret: "master-secret")
                == "7e7efba62e984a3974899ee2a7a2baa2189a146561fff81205fdb8c324629a27")
    }

    @Test func oneTokenServesManyPushesAndTheBodyIsTheGuidesShape() async throws {
        try await Self.with { bed in
            for _ in 0..<3 { #expect(await bed.sender.send(Self.update, to: Self.target()).delivered) }
            #expect(bed.fake.issuedTokens == 1)
            #expect(await bed.provider.fetchedTokens == 1)
            #expect(bed.fake.accepted.count == 3)
            #expect(bed.fake.pushRequests.allSatisfy { bed.fake.validTokens.contains($0.header("token") ?? "") })
            let request = try #require(bed.fake.accepted.first)
            #expect(request.path == "/v2/\(Self.appID)/push/single/cid")
            #expect(
                request.body
                    == #"{"audience":{"cid":["cid-a"]},"push_channel":{"ios":{"aps":{"content-available":0,"content-state":{"awayScore":0,"homeScore":1},"event":"update","timestamp":1783101700},"laId":"la-1","type":"liveactivity"}},"push_message":{"transmission":"{\"activity\":\"match-1\",\"event\":\"update\",\"timestamp\":1783101700}"},"request_id":"<request-id>","settings":{"ttl":3600000}}"#
            )
        }
    }

    @Test func aStartCarriesAttributesAndAlertAndNoLaId() async throws {
        try await Self.with { bed in
            let target = PushTarget(kind: .pushToStart, token: nil, address: ProviderAddress(device: "cid-a"))
            #expect(await bed.sender.send(Self.startPush, to: target).delivered)
            let ios = try Self.ios(try #require(bed.fake.accepted.first))
            #expect(ios["laId"] == nil)
            let aps = try #require(ios["aps"] as? [String: Any])
            #expect(aps["event"] as? String == "start")
            #expect(aps["attributes-type"] as? String == "MatchAttributes")
            #expect(aps["attributes"] as? [String: String] == ["home": "AUS"])
            #expect(aps["alert"] as? [String: String] == ["title": "Kick-off", "body": "AUS 0–0 EGY"])
        }
    }

    @Test func theTokenIsRenewedShortlyBeforeItsExpireTime() async throws {
        try await Self.with { bed in
            #expect(await bed.sender.send(Self.update, to: Self.target()).delivered)
            bed.advance(seconds: 86_400 - 600)
            #expect(await bed.sender.send(Self.update, to: Self.target()).delivered)
            #expect(bed.fake.issuedTokens == 1, "ten minutes before expire_time the token is still used")
            bed.advance(seconds: 400)
            #expect(await bed.sender.send(Self.update, to: Self.target()).delivered)
            #expect(bed.fake.issuedTokens == 2, "within five minutes of expire_time a new one is fetched")
        }
    }

    @Test func code10001RefreshesTheTokenAndRetriesOnce() async throws {
        try await Self.with { bed in
            #expect(await bed.sender.send(Self.update, to: Self.target()).delivered)
            bed.fake.expireTokens()
            let receipt = await bed.sender.send(Self.update, to: Self.target())
            #expect(receipt.delivered)
            #expect(bed.fake.issuedTokens == 2)
            #expect(bed.fake.pushRequests.count == 3)
        }
    }

    @Test func a10001AfterTheRefreshIsNotRetriedAgain() async throws {
        try await Self.with { bed in
            bed.fake.script([FakeGetui.Fault(code: 10001), FakeGetui.Fault(code: 10001)])
            let receipt = await bed.sender.send(Self.update, to: Self.target())
            #expect(!receipt.delivered)
            guard case .retry = receipt.outcome else {
                Issue.record("expected a final retry, got \(receipt.outcome)")
                return
            }
            #expect(bed.fake.pushRequests.count == 2, "the first try and one after the refresh")
            #expect(bed.fake.issuedTokens == 2)
        }
    }

    @Test(arguments: [
        FakeGetui.Fault(code: 10005, msg: "push rate exceeded"),
        FakeGetui.Fault(code: 10003, msg: "auth rate exceeded", onAuth: true),
    ])
    func aRateLimitPausesTheWholeProvider(fault: FakeGetui.Fault) async throws {
        try await Self.with { bed in
            bed.fake.script([fault])
            let first = await bed.sender.send(Self.update, to: Self.target())
            let reason =
                fault.onAuth
                ? "rate_limited: Getui auth answered code \(fault.code) (HTTP 401)"
                : "Getui answered code \(fault.code) (HTTP 401)"
            #expect(first.outcome == .retry(afterSeconds: 60, reason: reason))
            #expect(first.attempts == 1, "a minute is past the sender's backoff: the outbox takes it later")
            let sent = bed.fake.requests.count
            let other = await bed.sender.send(Self.update, to: Self.target("cid-b"))
            #expect(other.outcome == .retry(afterSeconds: 60, reason: "Getui rate limit: paused"))
            #expect(bed.fake.requests.count == sent, "nothing is sent while paused")
            bed.advance(seconds: 30)
            #expect(
                await bed.sender.send(Self.update, to: Self.target()).outcome
                    == .retry(afterSeconds: 30, reason: "Getui rate limit: paused"))
            bed.advance(seconds: 30)
            #expect(await bed.sender.send(Self.update, to: Self.target()).delivered)
            #expect(bed.sender.stoppedReason == nil)
        }
    }

    @Test func anInvalidCidIsDroppedAndOnlyItInABatch() async throws {
        try await Self.with { bed in
            bed.fake.invalidate(cid: "cid-b")
            let receipts = await bed.sender.send(
                Self.update, to: [Self.target("cid-a"), Self.target("cid-b"), Self.target("cid-c")])
            #expect(receipts.map(\.delivered) == [true, false, true])
            #expect(
                receipts[1].outcome
                    == .dropToken(reason: "Getui answered code 20001 (HTTP 400): target user is invalid"))
            #expect(bed.pruned.targets.withLock { $0.map(\.address.device) } == ["cid-b"])
            let single = "/v2/\(Self.appID)/push/single/cid"
            #expect(
                bed.fake.pushRequests.map(\.path) == [
                    "/v2/\(Self.appID)/push/single/batch/cid", single, single, single,
                ],
                "the refused batch, then each message alone")
            #expect(bed.fake.accepted.count == 2)
            #expect(bed.sender.stoppedReason == nil)
        }
    }

    @Test func a301MovesEveryLaterRequestToTheNamedDomain() async throws {
        try await Self.with { bed in
            #expect(await bed.sender.send(Self.update, to: Self.target()).delivered)
            bed.fake.moveDomain()
            #expect(await bed.sender.send(Self.update, to: Self.target()).delivered)
            #expect(await bed.provider.domain == bed.fake.movedURL)
            #expect(await bed.sender.send(Self.update, to: Self.target()).delivered)
            #expect(bed.fake.rejections == ["301: domain error"], "one 301, then the new domain only")
            #expect(bed.fake.accepted.count == 3)
            #expect(bed.fake.requests.suffix(2).allSatisfy { $0.header("host")?.hasPrefix("localhost") == true })
            #expect(bed.fake.issuedTokens == 1, "the token stays valid on the new domain")
        }
    }

    @Test(arguments: [
        FakeGetui.Fault(code: 10002, msg: "appId or ip in black list"),
        FakeGetui.Fault(code: 20001, msg: "push_channel is invalid"),
        FakeGetui.Fault(code: 1, msg: "failed"),
    ])
    func otherCodesAreConfigurationErrors(fault: FakeGetui.Fault) async throws {
        try await Self.with { bed in
            bed.fake.script([fault])
            let receipt = await bed.sender.send(Self.update, to: Self.target())
            #expect(
                receipt.outcome
                    == .configurationError(reason: "Getui answered code \(fault.code) (HTTP \(fault.status))"))
            #expect(bed.sender.stoppedReason != nil)
            #expect(await bed.sender.send(Self.update, to: Self.target()).attempts == 0, "the provider stopped")
        }
    }

    @Test func aWrongMasterSecretIsAConfigurationError() async throws {
        let fake = try await FakeGetui.start(
            authority: Self.authority, appID: Self.appID, appKey: Self.appKey, masterSecret: "another-secret")
        defer { Task { try? await fake.stop() } }
        let transport = try CurlTransport(configuration: CurlTransport.Configuration(caFile: Self.authority.caFile))
        defer { transport.shutdown() }
        let provider = GetuiProvider(
            configuration: GetuiProvider.Configuration(endpoint: fake.url, appID: Self.appID, appKey: Self.appKey),
            masterSecret: Secret(Self.masterSecret), transport: transport)
        let outcome = await provider.deliver(Self.update, to: [Self.target()])[0]
        #expect(outcome == .configurationError(reason: "rejected: Getui auth answered code 20001 (HTTP 400)"))
        #expect(fake.pushRequests.isEmpty)
    }

    @Test func batchesAreSplitAt200Messages() async throws {
        try await Self.with { bed in
            let targets = (0..<450).map { Self.target("cid-\($0)") }
            let receipts = await bed.sender.send(Self.update, to: targets)
            #expect(receipts.count == 450)
            #expect(receipts.allSatisfy { $0.delivered })
            let lists = bed.fake.accepted.map { ($0.json["msg_list"] as? [[String: Any]])?.count ?? 1 }
            #expect(lists.sorted() == [50, 200, 200], "the three requests go at once, one token for all")
            #expect(bed.fake.accepted.allSatisfy { $0.path == "/v2/\(Self.appID)/push/single/batch/cid" })
            #expect(bed.fake.accepted.allSatisfy { $0.json["is_async"] as? Bool == false })
            #expect(bed.fake.issuedTokens == 1)
        }
    }

    @Test func requestIDsAreUniqueAndTenTo32Characters() async throws {
        try await Self.with { bed in
            _ = await bed.sender.send(Self.update, to: (0..<5).map { Self.target("cid-\($0)") })
            _ = await bed.sender.send(Self.update, to: Self.target())
            let ids = bed.fake.requestIDs
            #expect(ids.count == 6)
            #expect(Set(ids).count == 6)
            #expect(ids.allSatisfy { (10...32).contains($0.count) })
        }
        #expect(GetuiProvider.randomRequestID().count == 32)
    }

    @Test func theFakeRefusesARepeatedRequestID() async throws {
        try await Self.with(requestID: { "always-the-same-id" }) { bed in
            #expect(await bed.sender.send(Self.update, to: Self.target()).delivered)
            let receipt = await bed.sender.send(Self.update, to: Self.target())
            #expect(receipt.outcome == .configurationError(reason: "Getui answered code 20001 (HTTP 400)"))
            #expect(bed.fake.rejections == ["20001: request_id cannot be repeat."])
        }
    }

    @Test func noSecretIsLogged() async throws {
        try await Self.with { bed in
            bed.fake.script([FakeGetui.Fault(code: 2, msg: "service is starting")])
            _ = await bed.sender.send(Self.update, to: Self.target())
            bed.fake.expireTokens()
            _ = await bed.sender.send(Self.update, to: Self.target())
            bed.fake.invalidate(cid: "cid-z")
            _ = await bed.sender.send(Self.update, to: Self.target("cid-z"))
            bed.fake.script([FakeGetui.Fault(code: 10005, msg: "rate")])
            _ = await bed.sender.send(Self.update, to: Self.target())
            bed.advance(seconds: 61)
            bed.fake.script([FakeGetui.Fault(code: 10002, msg: "black list")])
            _ = await bed.sender.send(Self.update, to: Self.target())
            let logs = bed.logs.all.joined(separator: "\n")
            #expect(logs.contains("push will be retried"))
            #expect(logs.contains("provider configuration error"))
            #expect(!logs.contains(Self.masterSecret))
            #expect(bed.fake.issuedTokens == 2)
            for request in bed.fake.pushRequests {
                let token = try #require(request.header("token"))
                #expect(!logs.contains(token), "no auth token")
            }
            let signs = bed.fake.requests.filter { $0.path.hasSuffix("/auth") }.compactMap {
                (try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any])?["sign"] as? String
            }
            #expect(signs.count == 2)
            for sign in signs { #expect(!logs.contains(sign), "no sign") }
        }
    }
}
