import LiveRelayCore
import Logging

extension Sender {
    /// Delivers one push to several targets through a ``BatchPushProvider``, up to its
    /// ``PushProvider/maxBatchSize`` targets per request, acting on each target's outcome exactly as
    /// ``send(_:to:)`` does for one: the targets to retry go again together after the backoff, a refresh
    /// happens once for the whole batch, dropped tokens are pruned one by one. Other providers get one
    /// ``send(_:to:)`` per target. Receipts come back in the order of `targets`.
    public func send(_ push: LiveActivityPush, to targets: [PushTarget]) async -> [DeliveryReceipt] {
        guard let batching = provider as? BatchPushProvider, batching.maxBatchSize > 1 else {
            var receipts: [DeliveryReceipt] = []
            for target in targets { receipts.append(await send(push, to: target)) }
            return receipts
        }
        var receipts = [DeliveryReceipt?](repeating: nil, count: targets.count)
        let size = batching.maxBatchSize
        for start in stride(from: 0, to: targets.count, by: size) {
            let chunk = Array(start..<min(start + size, targets.count))
            for (index, receipt) in await sendBatch(push, to: chunk.map { targets[$0] }, via: batching)
                .enumerated()
            {
                receipts[chunk[index]] = receipt
            }
        }
        return receipts.compactMap { $0 }
    }

    private func sendBatch(_ push: LiveActivityPush, to targets: [PushTarget], via provider: BatchPushProvider) async
        -> [DeliveryReceipt]
    {
        let metadata: Logger.Metadata = [
            "provider": "\(provider.name)", "activity.key": "\(push.activity)", "push.event": "\(push.event)",
            "push.priority": "\(push.priority.rawValue)", "targets": "\(targets.count)",
        ]
        if let reason = health.stoppedReason {
            return targets.map {
                DeliveryReceipt(
                    target: $0, outcome: .configurationError(reason: "provider stopped: \(reason)"), attempts: 0)
            }
        }
        var receipts = [DeliveryReceipt?](repeating: nil, count: targets.count)
        var pending = Array(targets.indices)
        var attempts = 0
        var refreshed = false
        var last: [Int: DeliveryOutcome] = [:]
        while !pending.isEmpty {
            attempts += 1
            let outcomes = await provider.deliver(push, to: pending.map { targets[$0] })
            var again: [Int] = []
            var retryAfter: Int?
            var refresh = false
            for (index, outcome) in zip(pending, outcomes) {
                let target = targets[index]
                last[index] = outcome
                switch outcome {
                case .retry(let after, _):
                    again.append(index)
                    if let after { retryAfter = max(retryAfter ?? 0, after) }
                case .refreshCredentials where !refreshed:
                    again.append(index)
                    refresh = true
                case .refreshCredentials(let reason):
                    let final = DeliveryOutcome.retry(
                        afterSeconds: nil, reason: "\(reason), again after refreshing the credentials")
                    receipts[index] = finish(final, "push not delivered, giving up", reason, attempts, target, metadata)
                case .delivered:
                    receipts[index] = DeliveryReceipt(target: target, outcome: outcome, attempts: attempts)
                case .dropToken(let reason):
                    await pruning?.dropToken(target, reason: reason)
                    receipts[index] = finish(outcome, "token dropped", reason, attempts, target, metadata)
                case .configurationError(let reason):
                    if health.stop(reason: reason) {
                        logger.critical(
                            "provider configuration error: provider stopped",
                            metadata: metadata.merging(["reason": "\(reason)"]) { $1 })
                    }
                    receipts[index] = DeliveryReceipt(target: target, outcome: outcome, attempts: attempts)
                case .rejected(let reason):
                    receipts[index] = finish(outcome, "push rejected", reason, attempts, target, metadata)
                }
            }
            pending = again
            if pending.isEmpty { break }
            if refresh {
                refreshed = true
                attempts -= 1  // as for one target: the retry after a refresh uses up no backoff attempt
                await provider.refreshCredentials()
                continue
            }
            guard let delay = retry.delay(afterAttempt: attempts, retryAfterSeconds: retryAfter, jitter: jitter()),
                (try? await clock.sleep(for: delay)) != nil
            else {
                for index in pending {
                    receipts[index] = finish(
                        last[index] ?? .retry(afterSeconds: nil, reason: "no answer"), "push not delivered, giving up",
                        "retries exhausted", attempts, targets[index], metadata)
                }
                break
            }
            logger.info("push will be retried", metadata: metadata.merging(["delay": "\(delay)"]) { $1 })
        }
        if refreshed { logger.debug("credentials refreshed during a batch", metadata: metadata) }
        return receipts.enumerated().map { index, receipt in
            receipt
                ?? DeliveryReceipt(
                    target: targets[index], outcome: .retry(afterSeconds: nil, reason: "not sent"), attempts: attempts)
        }
    }
}
