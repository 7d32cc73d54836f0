import CoreMetrics
import HTTP
public import LiveRelayCore
public import Logging
import Synchronization

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
/// Pushes go out in requests of up to the provider's ``ProviderTraits/maxBatchSize`` targets, at most
/// ``ProviderTraits/maxConcurrentDeliveries`` requests at once (or about that many targets, for a provider
/// whose ``ProviderTraits/concurrencyCountsTargets``); a single push to a single target is a batch of one.
/// It logs each final outcome once, with the same metadata keys for every provider (never the token), and
/// records every receipt in the push metrics.
public struct Sender: Sendable {
    /// The provider behind this sender.
    public let provider: any PushProvider
    let pruning: (any TokenPruning)?
    let clock: any Clock<Duration>
    let retry: RetryPolicy
    let jitter: @Sendable () -> Double
    let health = ProviderHealth()
    /// Identical lines (the same outcome for many targets) are written once and then counted.
    let repeated = RepeatedLines()
    let logger: Logger
    let metrics: PushMetrics

    /// - Parameters:
    ///   - pruning: where dropped tokens go; `nil` forgets nothing (the console).
    ///   - clock: what backoff waits on; tests pass one that does not sleep.
    ///   - jitter: a random number in `0..<1` per retry.
    ///   - metrics: where each receipt is counted.
    public init(
        provider: any PushProvider, logger: Logger, pruning: (any TokenPruning)? = nil,
        clock: any Clock<Duration> = ContinuousClock(), retry: RetryPolicy = RetryPolicy(),
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, metrics: PushMetrics = .none
    ) {
        self.provider = provider
        self.logger = logger
        self.pruning = pruning
        self.clock = clock
        self.retry = retry
        self.jitter = jitter
        self.metrics = metrics
    }

    /// The configuration error that stopped the provider, if one did.
    public var stoppedReason: String? { health.stoppedReason }

    /// Delivers one push to one target and reports the final outcome.
    public func send(_ push: LiveActivityPush, to target: PushTarget) async -> DeliveryReceipt {
        await send([(push, [target])])[0][0]
    }

    /// Delivers one push to its targets; receipts in the order of `targets`.
    public func send(_ push: LiveActivityPush, to targets: [PushTarget]) async -> [DeliveryReceipt] {
        await send([(push, targets)])[0]
    }

    /// Delivers each push to its targets, in requests of up to the provider's batch size, a bounded number
    /// at once (in order when the provider allows one at a time). Receipts per push, in target order.
    /// `finished`, when given, hears each request's final receipts as soon as they are known (the push's index
    /// in `work`, the targets' range, their receipts), so the caller can record them before the rest are in;
    /// it runs on the task that made the request (several may call it at once) and must not wait.
    /// `admit`, when given, is asked before each request: once it says no (the worker's claims on these
    /// pushes lapsed), no more requests are made, and the rest get receipts that are ``DeliveryReceipt/notSent``.
    public func send(
        _ work: [(push: LiveActivityPush, targets: [PushTarget])], admit: (@Sendable () -> Bool)? = nil,
        finished: (@Sendable (_ item: Int, _ targets: Range<Int>, _ receipts: [DeliveryReceipt]) -> Void)? = nil
    ) async -> [[DeliveryReceipt]] {
        let traits = provider.traits
        var requests: [(item: Int, targets: Range<Int>)] = []
        var targetCount = 0
        for (item, entry) in work.enumerated() {
            targetCount += entry.targets.count
            for start in stride(from: 0, to: entry.targets.count, by: traits.maxBatchSize) {
                requests.append((item, start..<min(start + traits.maxBatchSize, entry.targets.count)))
            }
        }
        // Targets in flight, for a provider that counts them: as many requests as hold that many targets on
        // average in this call, and one more, so the next batch waits in the transport while the last of one
        // are answered.
        var tasks = min(traits.maxConcurrentDeliveries, requests.count)
        if traits.concurrencyCountsTargets, targetCount > requests.count {
            let perRequest = Double(targetCount) / Double(requests.count)
            tasks = min(requests.count, Int((Double(traits.maxConcurrentDeliveries) / perRequest).rounded(.up)) + 1)
        }
        // As many tasks as requests may be in flight, each taking the next request in order as it finishes
        // one (a task per request would cost a task's creation, first allocation and group bookkeeping per push).
        let queue = RequestQueue(count: requests.count)
        let done = await withTaskGroup(of: [(request: Int, receipts: [DeliveryReceipt])].self) { [requests] group in
            for _ in 0..<tasks {
                group.addTask {
                    var done: [(request: Int, receipts: [DeliveryReceipt])] = []
                    while let index = queue.next() {
                        let request = requests[index]
                        let targets = Array(work[request.item].targets[request.targets])
                        let receipts: [DeliveryReceipt]
                        if queue.isFenced || admit?() == false {
                            if queue.fence() {
                                logger.warning(
                                    "requests stopped: this worker's claims lapsed (another worker sends these pushes)",
                                    metadata: ["provider": "\(traits.kind)", "requests": "\(requests.count - index)"])
                            }
                            receipts = targets.map { DeliveryReceipt.notSent(to: $0) }
                        } else {
                            receipts = await deliver(work[request.item].push, to: targets, admit: admit)
                        }
                        finished?(request.item, request.targets, receipts)
                        done.append((index, receipts))
                    }
                    return done
                }
            }
            var all: [(request: Int, receipts: [DeliveryReceipt])] = []
            all.reserveCapacity(requests.count)
            for await part in group { all += part }
            return all
        }
        // Requests were made in target order, item by item: their receipts, put back in request order, are each
        // item's in target order (copied once: a fan-out's ten thousand receipts a round).
        var byRequest = [[DeliveryReceipt]](repeating: [], count: requests.count)
        for (index, sent) in done { byRequest[index] = sent }
        var receipts = work.map { entry in
            var receipts: [DeliveryReceipt] = []
            receipts.reserveCapacity(entry.targets.count)
            return receipts
        }
        for (index, request) in requests.enumerated() { receipts[request.item] += byRequest[index] }
        return receipts
    }

    /// Tells how many log lines of each kind were left out since they were last written (at the end of a
    /// delivery round).
    public func flushRepeatedLogs() {
        repeated.flush(logger)
    }

    /// One request's targets to their final outcomes: the targets to retry go again together after the
    /// backoff, a refresh happens once for them all, dropped tokens are pruned one by one.
    /// `admit`, when given, is asked again before each retry: a request whose claims lapsed while it waited
    /// (the worker stalled, or was frozen past its timeouts) is not made again; its targets get
    /// ``DeliveryReceipt/notSent`` receipts, as their rows are another worker's now.
    private func deliver(_ push: LiveActivityPush, to targets: [PushTarget], admit: (@Sendable () -> Bool)? = nil)
        async -> [DeliveryReceipt]
    {
        let started = ContinuousClock.now
        let kind = provider.traits.kind
        // Per target: its device; per request (retries, a batch's drops): how many targets. Made only when a
        // line is logged: a push delivered at the info level logs nothing.
        lazy var metadata: Logger.Metadata = [
            "provider": "\(kind)", "activity.key": "\(push.activity)", "push.event": "\(push.event)",
            "push.priority": "\(push.priority.rawValue)", "token.kind": "\(targets[0].kind.rawValue)",
        ]
        func about(_ target: PushTarget) -> Logger.Metadata {
            guard let device = target.device else { return metadata }
            return metadata.merging(["device": "\(device)"]) { $1 }
        }
        var dropped = 0
        var receipts = [DeliveryReceipt?](repeating: nil, count: targets.count)
        if let reason = health.stoppedReason {
            return targets.map {
                DeliveryReceipt(
                    target: $0, outcome: .configurationError(reason: "provider stopped: \(reason)"), attempts: 0)
            }
        }
        var pending = Array(targets.indices)
        var attempts = 0
        var refreshed = false
        while !pending.isEmpty {
            if attempts > 0, admit?() == false {
                for index in pending { receipts[index] = .notSent(to: targets[index]) }
                repeated.log(
                    logger, .warning, "retry not made: this worker's claims lapsed (another worker sends these pushes)",
                    kind: "fenced retry", metadata.merging(["targets": "\(pending.count)"]) { $1 })
                break
            }
            attempts += 1
            // What a server answered is bounded and stripped of echoed credentials before anything reads it.
            // The fence goes with the requests too: a transport that would send one again on its own (a lost
            // connection) asks it first.
            let requested = pending.map { targets[$0] }
            let outcomes: [DeliveryOutcome]
            if let admit {
                outcomes = await SendFence.$current.withValue(SendFence(admit)) {
                    await provider.deliver(push, to: requested)
                }.map(\.sanitized)
            } else {
                outcomes = await provider.deliver(push, to: requested).map(\.sanitized)
            }
            var again: [(index: Int, outcome: DeliveryOutcome)] = []
            var throttled = 0
            var retryAfter: Int?
            var backoff = false
            var refresh = false
            for (index, outcome) in zip(pending, outcomes) {
                let target = targets[index]
                switch outcome {
                case .retry(let after, _):
                    again.append((index, outcome))
                    backoff = true
                    if let after { retryAfter = max(retryAfter ?? 0, after) }
                case .throttled:
                    // Asking again at once only spends the target's window: the outbox waits for it.
                    throttled += 1
                    receipts[index] = DeliveryReceipt(target: target, outcome: outcome, attempts: attempts)
                case .refreshCredentials where !refreshed:
                    again.append((index, outcome))
                    refresh = true
                case .refreshCredentials(let reason):
                    let final = DeliveryOutcome.retry(
                        afterSeconds: nil, reason: "\(reason), again after refreshing the credentials")
                    receipts[index] = finish(
                        final, "push not delivered this time", reason, attempts, target, about(target))
                case .delivered:
                    logger.debug("push delivered", metadata: about(target).merging(["attempts": "\(attempts)"]) { $1 })
                    receipts[index] = DeliveryReceipt(target: target, outcome: outcome, attempts: attempts)
                case .dropToken(let reason):
                    await pruning?.dropToken(target, reason: reason)
                    dropped += 1
                    receipts[index] = finish(outcome, "token dropped", reason, attempts, target, about(target))
                case .configurationError(let reason):
                    if health.stop(reason: reason) {
                        logger.critical(
                            "provider configuration error: provider stopped",
                            metadata: metadata.merging(["reason": "\(reason)"]) { $1 })
                    }
                    receipts[index] = DeliveryReceipt(target: target, outcome: outcome, attempts: attempts)
                case .rejected(let reason):
                    receipts[index] = finish(outcome, "push rejected", reason, attempts, target, about(target))
                }
            }
            if throttled > 0 {
                repeated.log(
                    logger, .info, "push throttled by the provider: the newest state goes when the target has room",
                    kind: "throttled",
                    metadata.merging([
                        "reason":
                            "\(outcomes.first(where: { if case .throttled = $0 { true } else { false } })!.reason)",
                        "targets": "\(throttled)",
                    ]) { $1 })
            }
            pending = again.map(\.index)
            if pending.isEmpty { break }
            if refresh {
                refreshed = true
                await provider.refreshCredentials()
                // The retry after a refresh uses up no backoff attempt; targets that asked for a retry still wait.
                if !backoff {
                    attempts -= 1
                    continue
                }
            }
            if Task.isCancelled {
                // The worker is stopping: the request was cut, not answered. The caller keeps the push.
                for (index, outcome) in again {
                    receipts[index] = DeliveryReceipt(target: targets[index], outcome: outcome, attempts: attempts)
                }
                repeated.log(logger, .info, "push not sent: the worker is stopping", kind: "stopping", metadata)
                break
            }
            guard let delay = retry.delay(afterAttempt: attempts, retryAfterSeconds: retryAfter, jitter: jitter()),
                (try? await clock.sleep(for: delay)) != nil
            else {
                // Not given up: a push in the outbox goes again at a later round (which says when it gives up).
                for (index, outcome) in again {
                    receipts[index] = finish(
                        outcome, "push not delivered this time", outcome.reason, attempts, targets[index],
                        about(targets[index]))
                }
                break
            }
            repeated.log(
                logger, .info, "push will be retried", kind: "retried \(again[0].outcome.reason)",
                metadata.merging([
                    "reason": "\(again[0].outcome.reason)", "delay": "\(delay)", "targets": "\(again.count)",
                ]) { $1 })
        }
        if dropped > 0, targets.count > 1 {
            logger.warning(
                "tokens dropped from a batch",
                metadata: metadata.merging(["dropped": "\(dropped)", "targets": "\(targets.count)"]) { $1 })
        }
        let done = receipts.map { $0! }
        let elapsed = ContinuousClock.now - started
        metrics.record(done, priority: push.priority, provider: kind, duration: elapsed)
        return done
    }

    func finish(
        _ outcome: DeliveryOutcome, _ message: Logger.Message, _ reason: String, _ attempts: Int, _ target: PushTarget,
        _ metadata: Logger.Metadata
    ) -> DeliveryReceipt {
        repeated.log(
            logger, .warning, message, kind: "\(message) \(reason)",
            metadata.merging(["reason": "\(reason)", "attempts": "\(attempts)"]) { $1 })
        return DeliveryReceipt(target: target, outcome: outcome, attempts: attempts)
    }
}

/// The requests of one ``Sender/send(_:admit:finished:)`` call, handed out in order to the tasks that send
/// them, and whether the fence has closed on them.
private final class RequestQueue: Sendable {
    private let count: Int
    private let taken = Atomic<Int>(0)
    private let fenced = Atomic<Bool>(false)

    init(count: Int) { self.count = count }

    /// The next request's index; `nil` when all are taken.
    func next() -> Int? {
        let index = taken.wrappingAdd(1, ordering: .relaxed).oldValue
        return index < count ? index : nil
    }

    /// Whether the fence closed on an earlier request.
    var isFenced: Bool { fenced.load(ordering: .relaxed) }

    /// Closes the fence; `true` the first time.
    func fence() -> Bool { !fenced.exchange(true, ordering: .relaxed) }
}
