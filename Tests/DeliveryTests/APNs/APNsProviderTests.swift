import Crypto
import Delivery
import Foundation
import HTTP
import LiveRelayCore
import LiveRelayTesting
import Logging
import Synchronization
import Testing

@Suite("APNs provider against the fake APNs over HTTP/2 + TLS")
struct APNsProviderTests {
    typealias Bed = APNsTestbed
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    final class Pruned: TokenPruning {
        let tokens = Mutex<[String]>([])
        func dropToken(_ target: PushTarget, reason: String) async { tokens.withLock { $0.append(target.token ?? "") } }
    }

    @Test func aPushArrivesWithItsHeadersAndExactBody() async throws {
        try await Bed.with { bed in
            let token = Bed.token(1)
            let outcome = await bed.provider.deliver(
                Bed.update(1), to: PushTarget(kind: .activity, token: token, environment: .sandbox))
            #expect(outcome == .delivered)
            let push = try #require(bed.fake.accepted.first)
            #expect(push.path == "/3/device/" + token)
            #expect(push.headers["apns-push-type"] == "liveactivity")
            #expect(push.headers["apns-topic"] == "com.example.scores.push-type.liveactivity")
            #expect(push.headers["apns-priority"] == "5")
            #expect(push.headers["apns-expiration"] == "1783105300")
            #expect(push.headers["apns-id"] == APNsRequestEncoder.apnsID(for: Bed.update(1), token: token))
            #expect(push.body == #"{"aps":{"content-state":{"homeScore":1},"event":"update","timestamp":1783101700}}"#)
        }
    }

    @Test func aTokenFromTheOtherEnvironmentIsNotSent() async throws {
        try await Bed.with { bed in
            let outcome = await bed.provider.deliver(
                Bed.update(), to: PushTarget(kind: .activity, token: Bed.token(1), environment: .production))
            guard case .rejected(let reason) = outcome else { Issue.record("\(outcome)"); return }
            #expect(reason.contains("production"))
            #expect(bed.fake.requestCount == 0)
        }
    }

    @Test func unregisteredAndBadTokensArePrunedAndNeverRetried() async throws {
        try await Bed.with { bed in
            let pruned = Pruned()
            let sender = Sender(provider: bed.provider, logger: Self.logger, pruning: pruned, clock: ImmediateClock())
            // A first success shows the topic is right, so later token errors are about the tokens.
            _ = await sender.send(Bed.update(), to: PushTarget(kind: .activity, token: Bed.token(9)))
            bed.fake.unregister(Bed.token(1))
            bed.fake.unregister(Bed.token(2), reason: "ExpiredToken")
            let gone = await sender.send(Bed.update(), to: PushTarget(kind: .activity, token: Bed.token(1)))
            let expired = await sender.send(Bed.update(), to: PushTarget(kind: .activity, token: Bed.token(2)))
            let bad = await sender.send(
                Bed.update(), to: PushTarget(kind: .activity, token: "zz" + Bed.token(3).dropFirst(2)))
            #expect(gone.outcome == .dropToken(reason: "APNs answered Unregistered (410)"))
            #expect(expired.outcome == .dropToken(reason: "APNs answered ExpiredToken (410)"))
            #expect(bad.outcome == .dropToken(reason: "APNs answered BadDeviceToken (400)"))
            #expect([gone, expired, bad].allSatisfy { $0.attempts == 1 })
            #expect(pruned.tokens.withLock { $0 } == [Bed.token(1), Bed.token(2), "zz" + Bed.token(3).dropFirst(2)])
            #expect(bed.fake.requestCount == 4)
        }
    }

    @Test func overloadAndUnavailabilityAreRetriedWithBackoff() async throws {
        try await Bed.with { bed in
            bed.fake.script([
                .status(429, reason: "TooManyProviderTokenUpdates"),
                .status(503, reason: "ServiceUnavailable", retryAfter: 2),
                .dropConnection, .status(500, reason: "InternalServerError"),
            ])
            let clock = ImmediateClock()
            let sender = Sender(
                provider: bed.provider, logger: Self.logger, clock: clock,
                retry: RetryPolicy(maxAttempts: 5), jitter: { 0 })
            let receipt = await sender.send(Bed.update(), to: PushTarget(kind: .activity, token: Bed.token(1)))
            #expect(receipt.delivered)
            #expect(receipt.attempts == 5)
            #expect(clock.sleeps == [.milliseconds(250), .seconds(2), .seconds(1), .seconds(2)])
            #expect(bed.fake.accepted.count == 1)
        }
    }

    /// `429 TooManyRequests` (too many requests to one token or channel) is not asked again at once: the
    /// outbox sends the target's newest state when it has room.
    @Test func tooManyRequestsToOneTargetIsThrottledNotRetriedAtOnce() async throws {
        try await Bed.with { bed in
            bed.fake.script([.status(429, reason: "TooManyRequests", retryAfter: 30)])
            let clock = ImmediateClock()
            let sender = Sender(
                provider: bed.provider, logger: Self.logger, clock: clock,
                retry: RetryPolicy(maxAttempts: 5), jitter: { 0 })
            let receipt = await sender.send(Bed.update(), to: PushTarget(kind: .activity, token: Bed.token(1)))
            #expect(receipt.outcome == .throttled(afterSeconds: 30, reason: "APNs answered TooManyRequests (429)"))
            #expect(receipt.attempts == 1)
            #expect(clock.sleeps.isEmpty)
            #expect(bed.fake.requestCount == 1)
        }
    }

    @Test func aWrongBundleIDIsAConfigurationErrorNotATokenToDrop() async throws {
        try await Bed.with(configure: { $0.bundleID = "com.example.typo" }) { bed in
            let outcome = await bed.provider.deliver(Bed.update(), to: PushTarget(kind: .activity, token: Bed.token(1)))
            #expect(outcome == .configurationError(reason: "APNs answered TopicDisallowed (400)"))
        }
    }

    @Test func aTokenSignedWithAnotherKeyIsAConfigurationError() async throws {
        try await Bed.with { bed in
            let stranger = APNsProvider(
                configuration: bed.provider.configuration,
                key: APNsSigningKey(key: .init(), keyID: "ABC123DEFG", teamID: "DEF123GHIJ"),
                transport: bed.transport, now: { bed.time.now })
            let outcome = await stranger.deliver(Bed.update(), to: PushTarget(kind: .activity, token: Bed.token(1)))
            #expect(outcome == .configurationError(reason: "APNs answered InvalidProviderToken (403)"))
        }
    }

    @Test func oneTokenAtMostEvery20MinutesOverASimulatedHour() async throws {
        try await Bed.with { bed in
            let sender = Sender(provider: bed.provider, logger: Self.logger, clock: ImmediateClock())
            for minute in 0...65 {
                let receipt = await sender.send(
                    Bed.update(minute, at: bed.time.now), to: PushTarget(kind: .activity, token: Bed.token(minute)))
                #expect(receipt.delivered, "minute \(minute)")
                bed.time.advance(by: 60)
            }
            let issued = bed.fake.providerTokens.map(\.issuedAt)
            #expect(issued.count == 2)
            #expect(zip(issued, issued.dropFirst()).allSatisfy { $1 - $0 >= 20 * 60 })
            #expect(bed.provider.mintedTokens == 2)
            #expect(bed.fake.rejections.isEmpty)
        }
    }

    @Test func manyPushesAwaitOneMintWhoseSaveTakesAWhile() async throws {
        let cache = SlowTokenCache()
        try await Bed.with(tokenCache: cache) { bed in
            let delivered = await withTaskGroup(of: Bool.self) { group in
                for n in 0..<50 {
                    group.addTask {
                        await bed.provider.deliver(Bed.update(n), to: PushTarget(kind: .activity, token: Bed.token(n)))
                            == .delivered
                    }
                }
                var all: [Bool] = []
                for await one in group { all.append(one) }
                return all
            }
            #expect(delivered.count == 50 && delivered.allSatisfy { $0 })
            // One token, minted once, saved before any request carried it; the cache read once.
            #expect(bed.provider.mintedTokens == 1)
            #expect(cache.saves.load(ordering: .relaxed) == 1)
            #expect(cache.loads.load(ordering: .relaxed) >= 1)
            #expect(Set(bed.fake.providerTokens.map(\.token)).count == 1)
            #expect(cache.saved.withLock { $0?.token } == bed.fake.providerTokens.first?.token)
        }
    }

    @Test func aCachedTokenYoungEnoughIsUsedInsteadOfANewOne() async throws {
        let cache = SlowTokenCache()
        try await Bed.with(tokenCache: cache) { bed in
            let issuedAt = bed.time.now - 10 * 60
            let earlier = try bed.key.token(issuedAt: issuedAt)
            cache.saved.withLock { $0 = (earlier, issuedAt) }
            let outcome = await bed.provider.deliver(Bed.update(), to: PushTarget(kind: .activity, token: Bed.token(1)))
            #expect(outcome == .delivered)
            #expect(bed.provider.mintedTokens == 0, "a token 10 minutes old is kept (APNs refuses a new one so soon)")
            #expect(bed.fake.providerTokens.map(\.issuedAt) == [issuedAt])
            #expect(cache.saves.load(ordering: .relaxed) == 0)
        }
    }

    @Test func anExpiredProviderTokenIsReplacedOnceAndThePushRetried() async throws {
        try await Bed.with { bed in
            let sender = Sender(provider: bed.provider, logger: Self.logger, clock: ImmediateClock())
            #expect(await sender.send(Bed.update(), to: PushTarget(kind: .activity, token: Bed.token(1))).delivered)
            bed.time.advance(by: 30 * 60)
            bed.fake.script([.status(403, reason: "ExpiredProviderToken")])
            let receipt = await sender.send(Bed.update(2), to: PushTarget(kind: .activity, token: Bed.token(2)))
            #expect(receipt.delivered)
            #expect(bed.fake.providerTokens.count == 2, "re-minted after ExpiredProviderToken")
        }
    }

    @Test func manyPushesShareFewConnectionsWithinTheServersStreamLimit() async throws {
        try await Bed.with(maxConcurrentStreams: 5) { bed in
            // The server's SETTINGS bind the client once received: open the connection with one push first.
            #expect(
                await bed.provider.deliver(Bed.update(), to: PushTarget(kind: .activity, token: Bed.token(99)))
                    == .delivered)
            bed.fake.setResponseDelay(.milliseconds(20))
            let results = await withTaskGroup(of: DeliveryOutcome.self) { group in
                for n in 0..<60 {
                    group.addTask {
                        await bed.provider.deliver(Bed.update(n), to: PushTarget(kind: .activity, token: Bed.token(n)))
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.allSatisfy { $0 == .delivered })
            #expect(bed.fake.accepted.count == 61)
            #expect(bed.fake.maxInFlight <= 5)
            #expect(bed.fake.connectionCount == 1)
        }
    }
}

/// A provider-token cache that takes its time (as a database can), counting its calls.
final class SlowTokenCache: ProviderTokenCache {
    let loads = Atomic<Int>(0)
    let saves = Atomic<Int>(0)
    let saved = Mutex<(token: String, issuedAt: Int)?>(nil)

    func load(key: String) async -> (token: String, issuedAt: Int)? {
        loads.add(1, ordering: .relaxed)
        try? await Task.sleep(for: .milliseconds(50))
        return saved.withLock { $0 }
    }

    func save(key: String, token: String, issuedAt: Int) async -> (token: String, issuedAt: Int) {
        saves.add(1, ordering: .relaxed)
        try? await Task.sleep(for: .milliseconds(200))
        saved.withLock { $0 = (token, issuedAt) }
        return (token, issuedAt)
    }
}
