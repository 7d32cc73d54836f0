import Delivery
import HTTP
import LiveRelayCore
import LiveRelayTesting
import Logging
import MetricsTestKit
import Synchronization
import Testing

@Suite struct SenderTests {
    /// Answers each delivery with the next scripted outcome (then `.delivered`), and counts refreshes.
    final class ScriptedProvider: SingleTargetProvider {
        let traits: ProviderTraits
        let script: Mutex<[DeliveryOutcome]>
        let calls = Mutex(0)
        let refreshes = Mutex(0)
        /// Per call: whether the requests it would make carry the caller's fence.
        let fenced = Mutex<[Bool]>([])

        init(kind: ProviderKind = .apns, maxConcurrentDeliveries: Int = 64, _ outcomes: [DeliveryOutcome]) {
            traits = ProviderTraits(
                kind: kind, addressing: .apnsTokens(environment: nil),
                maxConcurrentDeliveries: maxConcurrentDeliveries)
            script = Mutex(outcomes)
        }

        func deliver(_ push: LiveActivityPush, to target: PushTarget) async -> DeliveryOutcome {
            calls.withLock { $0 += 1 }
            fenced.withLock { $0.append(SendFence.current != nil) }
            return script.withLock { $0.isEmpty ? .delivered : $0.removeFirst() }
        }

        func refreshCredentials() async { refreshes.withLock { $0 += 1 } }
    }

    /// Takes up to `size` targets per request and answers for each target with the next outcome scripted
    /// for its token (then `.delivered`); counts refreshes and records the requests.
    final class ScriptedBatchProvider: PushProvider {
        let traits: ProviderTraits
        let script: Mutex<[String: [DeliveryOutcome]]>
        let requests = Mutex<[[String]]>([])
        let refreshes = Mutex(0)

        init(size: Int, _ answers: [String: [DeliveryOutcome]]) {
            traits = ProviderTraits(kind: .getui, addressing: .deviceAddresses(registry: "getui"), maxBatchSize: size)
            script = Mutex(answers)
        }

        func deliver(_ push: LiveActivityPush, to targets: [PushTarget]) async -> [DeliveryOutcome] {
            requests.withLock { $0.append(targets.map { $0.token ?? "" }) }
            return script.withLock { script in
                targets.map { target in
                    guard let token = target.token, var next = script[token], !next.isEmpty else { return .delivered }
                    defer { script[token] = next }
                    return next.removeFirst()
                }
            }
        }

        func refreshCredentials() async { refreshes.withLock { $0 += 1 } }
    }

    final class Pruned: TokenPruning {
        let tokens = Mutex<[String]>([])
        func dropToken(_ target: PushTarget, reason: String) async { tokens.withLock { $0.append(target.token ?? "") } }
    }

    static let push = LiveActivityPush(
        activity: "a", attributesType: "T", event: .update, timestamp: 1, contentState: [:], priority: .high)
    static let target = PushTarget(kind: .activity, token: "aa11")
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test func temporaryFailuresAreRetriedWithExponentialBackoffOnTheClock() async {
        let provider = ScriptedProvider([
            .retry(afterSeconds: nil, reason: "503"), .retry(afterSeconds: nil, reason: "429"),
            .retry(afterSeconds: nil, reason: "timeout"),
        ])
        let clock = ImmediateClock()
        let sender = Sender(provider: provider, logger: Self.logger, clock: clock, jitter: { 1 })
        let receipt = await sender.send(Self.push, to: Self.target)
        #expect(receipt.outcome == .delivered)
        #expect(receipt.attempts == 4)
        #expect(clock.sleeps == [.milliseconds(500), .seconds(1), .seconds(2)])
    }

    @Test func jitterSpreadsTheDelayBetweenHalfAndAllOfIt() {
        let policy = RetryPolicy()
        #expect(policy.delay(afterAttempt: 2, retryAfterSeconds: nil, jitter: 0) == .milliseconds(500))
        #expect(policy.delay(afterAttempt: 2, retryAfterSeconds: nil, jitter: 0.5) == .milliseconds(750))
        #expect(policy.delay(afterAttempt: 3, retryAfterSeconds: nil, jitter: 0.99)! < .seconds(2))
        #expect(policy.delay(afterAttempt: 4, retryAfterSeconds: nil, jitter: 0) == nil, "4 attempts at most")
    }

    @Test func retryAfterIsHonouredAndALongOneGivesUp() async {
        let provider = ScriptedProvider([.retry(afterSeconds: 3, reason: "429")])
        let clock = ImmediateClock()
        let receipt = await Sender(provider: provider, logger: Self.logger, clock: clock, jitter: { 0 })
            .send(Self.push, to: Self.target)
        #expect(receipt.delivered)
        #expect(clock.sleeps == [.seconds(3)])

        let patient = ScriptedProvider([.retry(afterSeconds: 600, reason: "429")])
        let given = await Sender(provider: patient, logger: Self.logger, clock: ImmediateClock())
            .send(Self.push, to: Self.target)
        #expect(given.outcome == .retry(afterSeconds: 600, reason: "429"))
        #expect(given.attempts == 1)
    }

    /// A request that failed while the worker held its claims is not retried once they have lapsed (a worker
    /// frozen past its timeouts wakes to retry them): its target gets a not-sent receipt, its row being
    /// another worker's now.
    @Test func aRetryIsNotMadeOnceTheClaimsLapsed() async {
        let provider = ScriptedProvider([.retry(afterSeconds: nil, reason: "timeout")])
        let asked = Mutex(0)
        let receipts = await Sender(provider: provider, logger: Self.logger, clock: ImmediateClock())
            .send(
                [(Self.push, [Self.target])],
                admit: {
                    asked.withLock {
                        $0 += 1; return $0 == 1
                    }
                })
        #expect(provider.calls.withLock { $0 } == 1, "the first request, and no retry")
        #expect(receipts[0].first?.notSent == true)
        #expect(asked.withLock { $0 } == 2)
        #expect(provider.fenced.withLock { $0 } == [true], "a transport's own resend asks the fence too")
    }

    @Test func retriesEndAfterTheLastAttempt() async {
        let provider = ScriptedProvider(Array(repeating: .retry(afterSeconds: nil, reason: "503"), count: 10))
        let receipt = await Sender(provider: provider, logger: Self.logger, clock: ImmediateClock())
            .send(Self.push, to: Self.target)
        #expect(receipt.attempts == 4)
        #expect(receipt.failed)
        #expect(provider.calls.withLock { $0 } == 4)
    }

    @Test func aDeadTokenIsPrunedAndNotRetried() async {
        let provider = ScriptedProvider([.dropToken(reason: "Unregistered (410)")])
        let pruned = Pruned()
        let receipt = await Sender(provider: provider, logger: Self.logger, pruning: pruned, clock: ImmediateClock())
            .send(Self.push, to: Self.target)
        #expect(receipt.outcome == .dropToken(reason: "Unregistered (410)"))
        #expect(!receipt.failed)
        #expect(pruned.tokens.withLock { $0 } == ["aa11"])
        #expect(provider.calls.withLock { $0 } == 1)
    }

    @Test func expiredCredentialsAreRefreshedAndRetriedOnce() async {
        let provider = ScriptedProvider([.refreshCredentials(reason: "ExpiredProviderToken")])
        let receipt = await Sender(provider: provider, logger: Self.logger, clock: ImmediateClock())
            .send(Self.push, to: Self.target)
        #expect(receipt.delivered)
        #expect(provider.refreshes.withLock { $0 } == 1)

        let stubborn = ScriptedProvider(Array(repeating: .refreshCredentials(reason: "ExpiredProviderToken"), count: 5))
        let failed = await Sender(provider: stubborn, logger: Self.logger, clock: ImmediateClock())
            .send(Self.push, to: Self.target)
        #expect(failed.failed)
        #expect(stubborn.refreshes.withLock { $0 } == 1)
        #expect(stubborn.calls.withLock { $0 } == 2)
    }

    @Test func aConfigurationErrorStopsThatProviderOnly() async {
        let broken = ScriptedProvider(kind: .apns, [.configurationError(reason: "InvalidProviderToken (403)")])
        let brokenSender = Sender(provider: broken, logger: Self.logger, clock: ImmediateClock())
        let healthy = Sender(provider: ScriptedProvider(kind: .fcm, []), logger: Self.logger, clock: ImmediateClock())
        let first = await brokenSender.send(Self.push, to: Self.target)
        #expect(first.outcome == .configurationError(reason: "InvalidProviderToken (403)"))
        let later = await brokenSender.send(Self.push, to: Self.target)
        #expect(later.attempts == 0, "fails fast without calling the provider")
        #expect(later.outcome == .configurationError(reason: "provider stopped: InvalidProviderToken (403)"))
        #expect(broken.calls.withLock { $0 } == 1)
        #expect(brokenSender.stoppedReason == "InvalidProviderToken (403)")
        #expect(await healthy.send(Self.push, to: Self.target).delivered)
    }

    /// One loop for a single push and a batch: the targets of a request that asked for a retry go again
    /// together after the backoff, those delivered are not sent again, and a refresh happens once while the
    /// retries still wait for their backoff.
    @Test func aBatchRetriesOnlyItsFailedTargetsAndARefreshDoesNotSkipTheBackoff() async {
        let targets = (0..<5).map { PushTarget(kind: .activity, token: "t\($0)") }
        let provider = ScriptedBatchProvider(
            size: 3,
            [
                "t1": [.retry(afterSeconds: nil, reason: "503")], "t2": [.refreshCredentials(reason: "10001")],
                "t4": [.dropToken(reason: "20001")],
            ])
        let clock = ImmediateClock()
        let receipts = await Sender(provider: provider, logger: Self.logger, clock: clock, jitter: { 1 })
            .send(Self.push, to: targets)
        #expect(receipts.map(\.target.token) == ["t0", "t1", "t2", "t3", "t4"])
        #expect(
            receipts.map(\.outcome.metricLabel) == [
                "delivered", "delivered", "delivered", "delivered", "token_dropped",
            ])
        let requests = provider.requests.withLock { $0 }
        #expect(requests.count == 3)
        #expect(Set(requests) == [["t0", "t1", "t2"], ["t3", "t4"], ["t1", "t2"]], "only t1 and t2 went again")
        #expect(provider.refreshes.withLock { $0 } == 1)
        #expect(clock.sleeps == [.milliseconds(500)], "the retry waited its backoff although a refresh came with it")
    }

    /// A batch that drops one of its addresses says how many of how many; the line for the dropped one names
    /// its device, not the batch's size.
    @Test func aBatchSaysHowManyAddressesItDropped() async {
        let targets = [
            PushTarget(kind: .activity, token: "t0", device: "phone-0"),
            PushTarget(kind: .activity, token: "t1", device: "phone-1"),
        ]
        let provider = ScriptedBatchProvider(size: 10, ["t1": [.dropToken(reason: "20001")]])
        let logs = CapturingLogHandler.Store()
        _ = await Sender(provider: provider, logger: CapturingLogHandler.logger(logs), clock: ImmediateClock())
            .send(Self.push, to: targets)
        let dropped = logs.all.filter { $0.contains("token dropped") }
        #expect(dropped.count == 1)
        #expect(dropped.first?.contains("device=phone-1") == true)
        #expect(dropped.first?.contains("targets=") == false)
        #expect(
            logs.all.contains {
                $0.contains("tokens dropped from a batch") && $0.contains("dropped=1") && $0.contains("targets=2")
            })
    }

    /// A fan-out's batch is one request: each outcome among its receipts is counted (one increment per run of
    /// the same outcome), a dropped token too, and the request's time is one observation of the histogram.
    @Test func aBatchCountsEveryReceiptAndTimesTheRequestOnce() async throws {
        let targets = (0..<5).map { PushTarget(kind: .activity, token: "t\($0)", device: "phone-\($0)") }
        let provider = ScriptedBatchProvider(
            size: 10, ["t2": [.dropToken(reason: "Unregistered")], "t4": [.rejected(reason: "BadDeviceToken")]])
        let metrics = TestMetrics()
        let receipts = await Sender(
            provider: provider, logger: Logger(label: "test"), clock: ImmediateClock(),
            metrics: PushMetrics(factory: metrics)
        ).send(Self.push, to: targets)
        #expect(receipts.map(\.delivered) == [true, true, false, true, false])
        #expect(provider.requests.withLock { $0.count } == 1)
        func pushes(_ outcome: String) throws -> Int64 {
            try metrics.expectCounter(
                "liverelay_pushes_total",
                [("provider", "getui"), ("priority", "\(Self.push.priority.rawValue)"), ("outcome", outcome)]
            ).totalValue
        }
        #expect(try pushes("delivered") == 3)
        #expect(try pushes("token_dropped") == 1)
        #expect(try pushes("rejected") == 1)
        #expect(try metrics.expectCounter("liverelay_tokens_dropped_total", [("provider", "getui")]).totalValue == 1)
        #expect(try metrics.expectTimer("liverelay_send_duration_seconds", [("provider", "getui")]).values.count == 1)
    }

    /// A server that echoes the request's `authorization` (and writes a novel) in its error: the reason that
    /// reaches the logs and the receipt has no credential and is bounded.
    @Test func aProvidersAnswerIsRedactedAndBoundedBeforeItIsLogged() async {
        let jwt =
            "eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQzEyM0RFRkcifQ.eyJpc3MiOiJERUYxMjNHSElKIiwiaWF0IjoxNzAwMDAwMDAwfQ."
            + "MEUCIQDx7b3k9Zq0p1r2s3t4u5v6w7x8y9z0A1B2C3D4E5F6G7H8"
        let echo =
            #"400 Bad Request: {"echo": {"authorization": "bearer \#(jwt)"}, "detail": ""#
            + String(repeating: "lorem ipsum ", count: 500) + #""}"#
        let provider = ScriptedProvider([.rejected(reason: echo)])
        let logs = CapturingLogHandler.Store()
        let receipt = await Sender(
            provider: provider, logger: CapturingLogHandler.logger(logs), clock: ImmediateClock()
        )
        .send(Self.push, to: PushTarget(kind: .activity, token: "t0", device: "phone-0"))
        #expect(!logs.all.joined().contains("eyJ"), "no part of the JWT is logged")
        #expect(!receipt.outcome.reason.contains("eyJ"))
        #expect(receipt.outcome.reason.hasPrefix("400 Bad Request: {\"echo\": {\"authorization\": \"bearer [redacted]"))
        #expect(receipt.outcome.reason.count < DeliveryOutcome.maxReasonLength + 40)
        #expect(receipt.outcome.reason.hasSuffix("more characters)"))
    }

    /// Many pushes at once: each gets its receipts in target order, and the provider's concurrency bound
    /// holds (one at a time keeps the release order, as the console needs).
    @Test func manyPushesKeepTheirOrderWhenTheProviderTakesOneAtATime() async {
        let provider = RecordingProvider()
        let pushes = (1...5).map {
            LiveActivityPush(
                activity: ActivityKey("a\($0)"), attributesType: "T", event: .update, timestamp: $0, contentState: [:],
                priority: .high)
        }
        let work = pushes.map {
            ($0, [PushTarget(kind: .activity, token: "x"), PushTarget(kind: .activity, token: "y")])
        }
        let receipts = await Sender(provider: provider, logger: Self.logger).send(work)
        #expect(receipts.map { $0.map(\.target.token) } == Array(repeating: ["x", "y"], count: 5))
        #expect(
            provider.deliveries.map { "\($0.push.activity) \($0.target.token!)" }
                == pushes.flatMap {
                    ["\($0.activity) x", "\($0.activity) y"]
                })
    }

    /// The outbox's rounds: 5 s doubling to five minutes, any Retry-After honoured, ten rounds at most.
    @Test func theOutboxPolicyBacksOffInMinutesAndHonoursAnyRetryAfter() {
        let outbox = RetryPolicy.outbox
        #expect(outbox.delay(afterAttempt: 1, retryAfterSeconds: nil, jitter: 1) == .seconds(5))
        #expect(outbox.delay(afterAttempt: 3, retryAfterSeconds: nil, jitter: 1) == .seconds(20))
        #expect(outbox.delay(afterAttempt: 9, retryAfterSeconds: nil, jitter: 1) == .seconds(300))
        #expect(outbox.delay(afterAttempt: 2, retryAfterSeconds: 3600, jitter: 0) == .seconds(3600))
        #expect(outbox.delay(afterAttempt: 10, retryAfterSeconds: nil, jitter: 0) == nil)
        #expect(RetryPolicy().delay(afterAttempt: 1, retryAfterSeconds: 3600, jitter: 0) == nil)
    }
}
