import Delivery
import LiveRelayCore
import LiveRelayTesting
import Logging
import Synchronization
import Testing

@Suite struct SenderTests {
    /// Answers each delivery with the next scripted outcome (then `.delivered`), and counts refreshes.
    final class ScriptedProvider: PushProvider {
        let name: String
        let script: Mutex<[DeliveryOutcome]>
        let calls = Mutex(0)
        let refreshes = Mutex(0)

        init(name: String = "scripted", _ outcomes: [DeliveryOutcome]) {
            self.name = name
            script = Mutex(outcomes)
        }

        func deliver(_ push: LiveActivityPush, to target: PushTarget) async -> DeliveryOutcome {
            calls.withLock { $0 += 1 }
            return script.withLock { $0.isEmpty ? .delivered : $0.removeFirst() }
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
        let broken = ScriptedProvider(name: "apns", [.configurationError(reason: "InvalidProviderToken (403)")])
        let brokenSender = Sender(provider: broken, logger: Self.logger, clock: ImmediateClock())
        let healthy = Sender(provider: ScriptedProvider(name: "fcm", []), logger: Self.logger, clock: ImmediateClock())
        let first = await brokenSender.send(Self.push, to: Self.target)
        #expect(first.outcome == .configurationError(reason: "InvalidProviderToken (403)"))
        let later = await brokenSender.send(Self.push, to: Self.target)
        #expect(later.attempts == 0, "fails fast without calling the provider")
        #expect(later.outcome == .configurationError(reason: "provider stopped: InvalidProviderToken (403)"))
        #expect(broken.calls.withLock { $0 } == 1)
        #expect(brokenSender.stoppedReason == "InvalidProviderToken (403)")
        #expect(await healthy.send(Self.push, to: Self.target).delivered)
    }
}
