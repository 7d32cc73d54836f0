import Delivery
import Foundation
import HTTP
import LiveRelayCore
import LiveRelayTesting
import Logging
import Synchronization
import Testing
import _CryptoExtras

/// The real FCM provider over the real `CurlTransport` (HTTP/2 + TLS) against the fake FCM, through the
/// `Sender`: each error class of the FCM table.
@Suite("FCM provider against the fake FCM")
struct FCMProviderTests {
    static let authority = try! TestCertificateAuthority()
    static let key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let email = "liverelay@demo-project.iam.gserviceaccount.com"

    struct Bed {
        let fake: FakeFCM
        let provider: FCMProvider
        let sender: Sender
        let pruned: Pruned
        let logs: CapturingLogHandler.Store
    }

    final class Pruned: TokenPruning {
        let targets = Mutex<[PushTarget]>([])
        func dropToken(_ target: PushTarget, reason: String) async { targets.withLock { $0.append(target) } }
    }

    /// `lane`: the messages go over the push lane (as the worker sends them), the token requests over libcurl.
    /// `count` installs, each with an activity token and its registration token.
    static func targets(_ count: Int) -> [PushTarget] {
        (0..<count).map {
            PushTarget(
                kind: .activity, token: String(format: "%04x", $0), device: "iphone-\($0)",
                address: ProviderAddress(device: "fcm-registration-\($0)"))
        }
    }

    static func with(lane: Bool = false, _ body: (Bed) async throws -> Void) async throws {
        let fake = try await FakeFCM.start(
            authority: authority, clientEmail: email, projectID: "demo-project",
            publicKey: key.publicKey)
        let transport = try CurlTransport(configuration: CurlTransport.Configuration(caFile: authority.caFile))
        let pushLane = lane ? try HTTP2Lane(configuration: HTTP2Lane.Configuration(caFile: authority.caFile)) : nil
        let account = FCMServiceAccount(
            key: key, clientEmail: email, projectID: "demo-project", privateKeyID: "k1", tokenURI: fake.tokenURL)
        let provider = FCMProvider(
            configuration: FCMProvider.Configuration(endpoint: fake.url, requestTimeout: .seconds(120)),
            account: account, transport: pushLane ?? transport, tokenTransport: transport,
            now: { 1_783_101_600 })
        let logs = CapturingLogHandler.Store()
        let pruned = Pruned()
        let sender = Sender(
            provider: provider, logger: CapturingLogHandler.logger(logs), pruning: pruned, clock: ImmediateClock())
        defer {
            transport.shutdown()
            pushLane?.shutdown()
        }
        do {
            try await body(Bed(fake: fake, provider: provider, sender: sender, pruned: pruned, logs: logs))
        } catch {
            try? await fake.stop()
            throw error
        }
        try await fake.stop()
    }

    static let push = LiveActivityPush(
        activity: "match-1", attributesType: "MatchAttributes", event: .update, timestamp: 1_783_101_700,
        contentState: ["homeScore": 1, "awayScore": 0], priority: .high)
    static let target = PushTarget(
        kind: .activity, token: "5f3c", device: "iphone-a", address: ProviderAddress(device: "fcm-registration-a"))

    /// As the worker sends: the messages of a fan-out over the push lane, the access token over libcurl.
    @Test func aFanOutGoesOverThePushLane() async throws {
        try await Self.with(lane: true) { bed in
            let receipts = await bed.sender.send([(Self.push, Self.targets(200))])[0]
            #expect(receipts.allSatisfy { $0.delivered }, "\(bed.fake.rejections.prefix(3))")
            #expect(bed.fake.accepted.count == 200)
            #expect(bed.fake.issuedTokens == 1)
        }
    }

    /// A server 100 ms away: the requests in flight are what bounds a fan-out (no batch endpoint), so many more
    /// than 64 go at once, over more connections than one once its 100 streams are taken. (Long enough that a
    /// loaded machine's second connection, made beside the lane's thread, still arrives mid-fan-out.)
    @Test func aFanOutToAFarServerKeepsManyMessagesInFlight() async throws {
        try await Self.with(lane: true) { bed in
            bed.fake.setLatency(.milliseconds(100))
            let receipts = await bed.sender.send([(Self.push, Self.targets(2000))])[0]
            #expect(receipts.allSatisfy { $0.delivered }, "\(bed.fake.rejections.prefix(3))")
            #expect(bed.fake.accepted.count == 2000)
            #expect(bed.fake.mostInFlight > 100, "\(bed.fake.mostInFlight) at most in flight")
            #expect(bed.fake.mostInFlight <= 500)
            #expect(bed.fake.connectionCount > 1)
        }
    }

    @Test func aPushIsAcceptedWithOneAccessTokenForManyRequests() async throws {
        try await Self.with { bed in
            for _ in 0..<3 { #expect(await bed.sender.send(Self.push, to: Self.target).delivered) }
            #expect(bed.fake.accepted.count == 3)
            #expect(bed.fake.issuedTokens == 1)
            let message = try #require(bed.fake.accepted.first?.json["message"] as? [String: Any])
            #expect(message["token"] as? String == "fcm-registration-a")
            let apns = try #require(message["apns"] as? [String: Any])
            #expect(apns["live_activity_token"] as? String == "5f3c")
            // FCM passes the APNs headers on: the priority, and how long APNs may keep the push (an hour).
            #expect(
                apns["headers"] as? [String: String] == ["apns-priority": "10", "apns-expiration": "1783105300"])
        }
    }

    @Test func unregisteredDropsTheRegistrationToken() async throws {
        try await Self.with { bed in
            bed.fake.unregister("fcm-registration-a")
            let receipt = await bed.sender.send(Self.push, to: Self.target)
            #expect(receipt.outcome == .dropToken(reason: "FCM answered UNREGISTERED (404)"))
            #expect(receipt.attempts == 1)
            #expect(bed.pruned.targets.withLock { $0.map(\.address.device) } == ["fcm-registration-a"])
        }
    }

    @Test(arguments: [
        (503, "UNAVAILABLE", nil as String?), (500, "INTERNAL", nil), (429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED"),
    ])
    func temporaryErrorsAreRetried(status: Int, canonical: String, code: String?) async throws {
        try await Self.with { bed in
            bed.fake.script([FakeFCM.Fault(status: status, canonical: canonical, errorCode: code, retryAfter: 1)])
            let receipt = await bed.sender.send(Self.push, to: Self.target)
            #expect(receipt.delivered)
            #expect(receipt.attempts == 2)
        }
    }

    @Test func aRevokedAccessTokenIsRefreshedAndThePushRetriedOnce() async throws {
        try await Self.with { bed in
            #expect(await bed.sender.send(Self.push, to: Self.target).delivered)
            bed.fake.revokeAccessTokens()
            let receipt = await bed.sender.send(Self.push, to: Self.target)
            #expect(receipt.delivered)
            #expect(bed.fake.issuedTokens == 1, "the revoked one is gone, one new one issued")
            #expect(await bed.provider.fetchedAccessTokens == 2)
        }
    }

    @Test(arguments: ["INVALID_ARGUMENT", "SENDER_ID_MISMATCH", "THIRD_PARTY_AUTH_ERROR"])
    func configurationErrorsStopTheProvider(code: String) async throws {
        try await Self.with { bed in
            let status = code == "SENDER_ID_MISMATCH" ? 403 : 400
            bed.fake.script([FakeFCM.Fault(status: status, canonical: "INVALID_ARGUMENT", errorCode: code)])
            let receipt = await bed.sender.send(Self.push, to: Self.target)
            #expect(receipt.outcome == .configurationError(reason: "FCM answered \(code) (\(status))"))
            #expect(bed.sender.stoppedReason != nil)
            #expect(bed.fake.accepted.isEmpty)
        }
    }

    @Test func errorCodeIsReadBeforeStatus() {
        let body = FCMErrorBody(code: 404, status: "NOT_FOUND", message: "x", errorCode: "UNREGISTERED")
        #expect(FCMErrorCode.of(body, status: 404) == .unregistered)
        #expect(FCMErrorCode.of(nil, status: 503).action == .retry)
        #expect(FCMErrorCode.of(nil, status: 401).action == .refreshCredentials)
    }

    @Test func noSecretIsLogged() async throws {
        try await Self.with { bed in
            bed.fake.script([FakeFCM.Fault(status: 503, canonical: "UNAVAILABLE")])
            _ = await bed.sender.send(Self.push, to: Self.target)
            bed.fake.revokeAccessTokens()
            _ = await bed.sender.send(Self.push, to: Self.target)
            bed.fake.script([
                FakeFCM.Fault(status: 400, canonical: "INVALID_ARGUMENT", errorCode: "THIRD_PARTY_AUTH_ERROR")
            ])
            _ = await bed.sender.send(Self.push, to: Self.target)
            let logs = bed.logs.all.joined(separator: "\n")
            #expect(!logs.isEmpty)
            #expect(!logs.contains("ya29."), "no access token")
            #expect(!logs.contains("PRIVATE KEY"))
            let keyBody = Self.key.pkcs8PEMRepresentation.split(separator: "\n").dropFirst().prefix(3)
            for line in keyBody { #expect(!logs.contains(line)) }
            #expect(!logs.contains("eyJ"), "no JWT assertion")
        }
    }
}
