import LiveRelayCore
import Logging

/// The front end every push goes through, whatever the provider. Providers only encode, send and classify;
/// the sender acts on the class, the same way for all of them:
/// - `retry`: waits (exponential backoff with jitter, honouring `Retry-After`, on the injected clock) and
///   sends again, up to the policy's attempts;
/// - `dropToken`: removes the token from the registry, so it is never used again; no retry;
/// - `refreshCredentials`: asks the provider to refresh and retries once;
/// - `configurationError`: stops the provider loudly; every later push for it fails at once with the
///   recorded reason (other providers have their own senders and go on);
/// - `rejected`: gives this push up.
///
/// It logs each final outcome once, with the same metadata keys for every provider, and never the token.
public struct Sender: Sendable {
    /// The provider behind this sender.
    public let provider: any PushProvider
    let pruning: (any TokenPruning)?
    let clock: any Clock<Duration>
    let retry: RetryPolicy
    let jitter: @Sendable () -> Double
    let health = ProviderHealth()
    let logger: Logger

    /// - Parameters:
    ///   - pruning: where dropped tokens go; `nil` forgets nothing (the console).
    ///   - clock: what backoff waits on; tests pass one that does not sleep.
    ///   - jitter: a random number in `0..<1` per retry.
    public init(
        provider: any PushProvider, logger: Logger, pruning: (any TokenPruning)? = nil,
        clock: any Clock<Duration> = ContinuousClock(), retry: RetryPolicy = RetryPolicy(),
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.provider = provider
        self.logger = logger
        self.pruning = pruning
        self.clock = clock
        self.retry = retry
        self.jitter = jitter
    }

    /// The configuration error that stopped the provider, if one did.
    public var stoppedReason: String? { health.stoppedReason }

    /// Delivers one push to one target, retrying as its outcomes say, and reports the final one.
    public func send(_ push: LiveActivityPush, to target: PushTarget) async -> DeliveryReceipt {
        var metadata: Logger.Metadata = [
            "provider": "\(provider.name)", "activity.key": "\(push.activity)", "push.event": "\(push.event)",
            "push.priority": "\(push.priority.rawValue)", "token.kind": "\(target.kind.rawValue)",
        ]
        if let device = target.device { metadata["device"] = "\(device)" }
        if let reason = health.stoppedReason {
            return DeliveryReceipt(
                target: target, outcome: .configurationError(reason: "provider stopped: \(reason)"), attempts: 0)
        }
        var attempts = 0
        var refreshed = false
        while true {
            attempts += 1
            let outcome = await provider.deliver(push, to: target)
            switch outcome {
            case .delivered:
                logger.debug("push delivered", metadata: metadata.merging(["attempts": "\(attempts)"]) { $1 })
                return DeliveryReceipt(target: target, outcome: outcome, attempts: attempts)
            case .retry(let after, let reason):
                guard let delay = retry.delay(afterAttempt: attempts, retryAfterSeconds: after, jitter: jitter()),
                    (try? await clock.sleep(for: delay)) != nil
                else {
                    return finish(outcome, "push not delivered, giving up", reason, attempts, target, metadata)
                }
                logger.info(
                    "push will be retried",
                    metadata: metadata.merging(["reason": "\(reason)", "delay": "\(delay)"]) { $1 })
            case .refreshCredentials(let reason):
                guard !refreshed else {
                    let final = DeliveryOutcome.retry(
                        afterSeconds: nil, reason: "\(reason), again after refreshing the credentials")
                    return finish(final, "push not delivered, giving up", reason, attempts, target, metadata)
                }
                refreshed = true
                attempts -= 1  // the retry after a refresh does not use up a backoff attempt
                await provider.refreshCredentials()
            case .dropToken(let reason):
                await pruning?.dropToken(target, reason: reason)
                return finish(outcome, "token dropped", reason, attempts, target, metadata)
            case .configurationError(let reason):
                if health.stop(reason: reason) {
                    logger.critical(
                        "provider configuration error: provider stopped",
                        metadata: metadata.merging(["reason": "\(reason)"]) { $1 })
                }
                return DeliveryReceipt(target: target, outcome: outcome, attempts: attempts)
            case .rejected(let reason):
                return finish(outcome, "push rejected", reason, attempts, target, metadata)
            }
        }
    }

    func finish(
        _ outcome: DeliveryOutcome, _ message: Logger.Message, _ reason: String, _ attempts: Int, _ target: PushTarget,
        _ metadata: Logger.Metadata
    ) -> DeliveryReceipt {
        logger.warning(message, metadata: metadata.merging(["reason": "\(reason)", "attempts": "\(attempts)"]) { $1 })
        return DeliveryReceipt(target: target, outcome: outcome, attempts: attempts)
    }
}
