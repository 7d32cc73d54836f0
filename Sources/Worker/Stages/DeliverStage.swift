import Delivery
import LiveRelayCore
import Logging
import StoreCore
import Throttling

/// The delivery stage: what is due in the outbox (rows left by a crash too) goes to each provider's
/// sender, and each request's receipts are written as they come in. A row leaves the outbox on a final
/// receipt (delivered, token dropped, rejected, or the provider's configuration error recorded); a temporary
/// failure puts it off as ``RetryPolicy/outbox`` says. A start delivered to a device makes its activity
/// active. On a shared store the rows are claimed first (``SharedClaims``).
struct DeliverStage: Sendable {
    let store: any OutboxStore & ActivityStore
    let rules: RuleBook
    let ledger: ActivityLedger
    let queue: StoredThrottle
    /// Each provider's sender, by provider id.
    let senders: [String: Sender]
    /// After delivery: the devices started on a channel, and the channels of ended activities; `nil` when no
    /// provider has channels.
    let channels: ChannelKeeper?
    /// On a store several workers share: the claims; `nil` on a store of one worker.
    let claims: SharedClaims?
    let metrics: LiveRelayMetrics
    let logger: Logger
    /// Draws in `0..<1`, for the outbox's backoff jitter.
    let random: @Sendable () -> Double
    /// Seconds after which a device started without reporting the activity's token may be started again;
    /// `nil`: never (see ``StartGuard``).
    let restartAfter: Int?
    /// Outbox rows a round takes at once. On a shared store each batch is claimed, so smaller batches share a
    /// fan-out between more workers (a worker alone takes more, ``SharedClaims/batch(_:)``).
    let claimBatch: Int

    /// Every round due now, a batch at a time until one is not full (at most 100: rows that stay due, a retry
    /// due at once, never keep it going), each read while the one before it is out. What each delivered is
    /// counted, not kept (``PushDelivery/compacted()``): a goal to a million devices is a hundred rounds.
    func runDue(now: Int) async throws(StoreFailure) -> (deliveries: [PushDelivery], rounds: Int) {
        var result: [PushDelivery] = []
        var (full, rounds) = (true, 0)
        var ahead: ReadAhead?
        // A round read ahead is followed by one read after its receipts, even when it was not full: a fan-out
        // whose last targets were read while others were out did not know they were the last, and that read
        // finds it spent and removes it (nothing is left behind).
        var wasAhead = false
        while (full || wasAhead) && rounds < 100 {
            wasAhead = ahead != nil
            let round = try await run(now: now, ahead: ahead, readAhead: rounds < 98)
            result += round.deliveries.map { $0.compacted() }
            (full, ahead) = (round.full, round.ahead)
            rounds += 1
        }
        return (result, rounds)
    }

    /// A round read while the one before it was out: it is ready when that one's receipts are written, so
    /// the push lane does not idle while it is read (``OutboxInFlight``). On a shared store the read is a
    /// claim, made as `owner`.
    struct ReadAhead: Sendable {
        fileprivate let read: Task<Result<[OutboxEntry], StoreFailure>, Never>
        fileprivate let limit: Int
        fileprivate let owner: String?
        /// When the read began: a claim is taken only while it surely holds (``SharedClaims/takesReadAhead(age:claimSeconds:)``).
        fileprivate let began: ContinuousClock.Instant

        /// Stops the read (a round that failed does not take it).
        func cancel() { read.cancel() }
    }

    /// One batch of due rows, sent; `full` when the batch was as large as allowed (more may be due). `ahead` is
    /// the batch read while the last one was out; with `readAhead`, the next batch is read while this one is
    /// out, if this one is full.
    ///
    /// On a shared store a batch read ahead is claimed while the one before it goes out: it is taken only
    /// while its claims surely hold (``SharedClaims/takesReadAhead(age:claimSeconds:)``), and it is sent as
    /// the owner that claimed it (a worker that has rejoined since sends none of it).
    func run(now: Int, ahead: ReadAhead? = nil, readAhead: Bool = false) async throws(StoreFailure) -> (
        deliveries: [PushDelivery], full: Bool, ahead: ReadAhead?
    ) {
        if let claims, !claims.mayClaim { return ([], false, nil) }
        var owner = claims?.owner
        let limit = claims?.batch(claimBatch) ?? claimBatch
        var due: [OutboxEntry]
        var readLimit = limit
        let age = ahead.map { ContinuousClock.now - $0.began }
        if let ahead, let age,
            claims.map({ SharedClaims.takesReadAhead(age: age, claimSeconds: $0.store.claimSeconds) }) ?? true
        {
            due = try await ahead.read.value.get()
            (owner, readLimit) = (ahead.owner, ahead.limit)
        } else {
            ahead?.cancel()
            due = try await store.dueOutbox(now: now, limit: limit)
        }
        let full = due.count == readLimit
        let inFlight = readAhead && full ? OutboxInFlight(due) : nil
        // A start waiting for an activity that has ended since (its end decided, perhaps still held by the
        // throttle) never goes out.
        let start = PushTarget.TokenKind.pushToStart.rawValue
        let startingActivities = Set(due.filter { $0.kind == start }.map(\.key.activity))
        if !startingActivities.isEmpty {
            let ended = Set(
                try await store.activities(startingActivities).values.filter { $0.phase == .ended }.map(\.key))
            let stale = due.filter { $0.kind == start && ended.contains($0.key.activity) }
            if !stale.isEmpty {
                for row in stale {
                    logger.info(
                        "start dropped: the activity has ended", metadata: ["activity.key": "\(row.key.activity)"])
                }
                try await store.completeOutbox(stale)
                due.removeAll { $0.kind == start && ended.contains($0.key.activity) }
            }
        }
        try await admitStarts(&due, now: now)
        guard !due.isEmpty else {
            try await channels?.deleteDue(now: now)
            return ([], full, nil)
        }
        // The next round is read while this one is out (after this one's stale starts are settled).
        let next = inFlight.map { inFlight in
            ReadAhead(
                read: Task { [store] in
                    do throws(StoreFailure) {
                        return .success(try await store.dueOutbox(now: now, limit: limit, after: inFlight))
                    } catch {
                        return .failure(error)
                    }
                }, limit: limit, owner: claims?.owner, began: .now)
        }
        let deliver = { [due] () async -> Result<[PushDelivery], StoreFailure> in
            do throws(StoreFailure) {
                return .success(try await deliverBatch(due, owner: owner, now: now))
            } catch {
                return .failure(error)
            }
        }
        // On a shared store the claims are renewed while the batch goes out.
        let sent: Result<[PushDelivery], StoreFailure>
        if let claims { sent = await claims.renewing(due.map(\.key), while: deliver) } else { sent = await deliver() }
        switch sent {
        case .success(let deliveries): return (deliveries, full, next)
        case .failure(let failure):
            next?.cancel()
            throw failure
        }
    }

    /// Sends one claimed batch and writes its receipts as they come in; then the channels and the starts it
    /// settled.
    func deliverBatch(_ due: [OutboxEntry], owner: String?, now: Int) async throws(StoreFailure)
        -> [PushDelivery]
    {
        let batch = OutboxBatch(due, routes: rules.routes, providers: Set(senders.keys))
        // Each request's receipts are written as they come in, while the rest are sent (several that arrive
        // during one write share the next), so a crash resends at most what was in flight.
        let settlement = OutboxSettlement(
            rows: batch.rows, pushes: batch.sentPushes, pushOfRow: batch.pushOfRow, now: now, jitter: random)
        // A fan-out's cursor moves past the targets whose receipts are written, in the same writes.
        let progress = FanOutTracker(batch.rows)
        let sentOnce = SentOnce()
        let journal = ReceiptJournal()
        async let failure = journal.write { indices, receipts async throws(StoreFailure) in
            var (indices, receipts) = (indices, receipts)
            if Task.isCancelled {
                // The stop cut the round: a request it cut short is no answer, and its row stays as it was.
                let kept = zip(indices, receipts).filter { !$0.1.outcome.isRetry }
                (indices, receipts) = (kept.map(\.0), kept.map(\.1))
            } else if receipts.contains(where: \.notSent) {
                // Fenced (the claims lapsed): a request never made is no answer; another worker has the row.
                let kept = zip(indices, receipts).filter { !$0.1.notSent }
                (indices, receipts) = (kept.map(\.0), kept.map(\.1))
            }
            let (done, later, started, delivered) = settlement.settle(indices, receipts, logger: logger)
            // Each push's sent state once per round, in the first write that has it.
            let sent = sentOnce.firstTime(delivered)
            let cursors = progress.written(indices)
            // Written even when the stop has cancelled the round: a receipt not written is a push sent again.
            let written = await finishingEvenIfCancelled { () -> StoreFailure? in
                do throws(StoreFailure) {
                    try await store.settleOutbox(
                        done: done, later: later, started: started, sent: sent, cursors: cursors, now: now)
                } catch {
                    return error
                }
                return nil
            }
            if let written { throw written }
        }
        let sent = await send(batch, owner: owner, finished: journal.record)
        journal.finish()
        if let failure = await failure { throw failure }
        var deliveries = await deliveries(batch, sent, settlement: settlement, now: now)
        for delivery in deliveries where delivery.push.event == .end && delivery.lost > 0 {
            reportLostEnd(delivery)
        }
        if let channels {
            try await channels.recordDeliveries(&deliveries, now: now)
            try await channels.deleteDue(now: now)
        }
        let started = deliveries.filter { $0.push.event == .start && $0.delivered }.map(\.push)
        if !started.isEmpty {
            var records = try await store.activities(Set(started.map(\.activity)))
            let changed = ledger.delivered(started, records: &records)
            // Only the phase: the rest of a record may have moved on since it was read (a poll under way).
            if !changed.isEmpty { try await store.markActive(changed.map(\.key)) }
        }
        return deliveries
    }

    /// What became of each push of the round, in the order its first row was due, from its receipts (`sent`,
    /// as ``send(_:owner:finished:)`` gives them), compacted as it is built (``PushDelivery/compacted()``):
    /// a goal's ten thousand receipts a round are counted, not copied. A channel APNs throttled takes
    /// nothing new before its row's next try: a state released meanwhile replaces that row and goes then, not
    /// into the closed window.
    func deliveries(
        _ batch: OutboxBatch, _ sent: [String: [[DeliveryReceipt]]], settlement: OutboxSettlement, now: Int
    ) async -> [PushDelivery] {
        let channel = PushTarget.TokenKind.channel.rawValue
        var deliveries: [(first: Int, delivery: PushDelivery)] = []
        for (provider, pushes) in batch.byProvider {
            guard let receipts = sent[provider] else { continue }
            for (push, receipts) in zip(pushes, receipts) {
                var delivery = PushDelivery(push: push.push, provider: provider, receipts: [])
                for (row, receipt) in zip(push.rows, receipts) {
                    if case .throttled(let after, _) = receipt.outcome, batch.rows[row].kind == channel,
                        let channel = batch.rows[row].channel
                    {
                        let wait =
                            RetryPolicy.throttled.delay(afterAttempt: 1, retryAfterSeconds: after, jitter: 1) ?? .zero
                        await queue.holdBroadcasts(
                            channel: channel, until: now + Int((wait / .seconds(1)).rounded(.up)))
                    }
                    if receipt.failed, settlement.isFinal(row, receipt) { delivery.lost += 1 }
                    if receipt.delivered, receipt.target.kind == .activity, receipt.target.channel == nil {
                        delivery.deliveredTokenCount += 1
                    } else {
                        delivery.receipts.append(receipt)
                    }
                }
                deliveries.append((push.rows[0], delivery))
            }
        }
        return deliveries.sorted { $0.first < $1.first }.map(\.delivery)
    }

    /// Each provider's share of the batch through its sender, the providers at once: by provider, the receipts
    /// of each of its pushes (``OutboxBatch/byProvider``), in target order. `finished` hears each request's
    /// receipts (with their rows) as soon as they are known.
    func send(
        _ batch: OutboxBatch, owner: String?, finished: @escaping @Sendable ([Int], [DeliveryReceipt]) -> Void
    ) async -> [String: [[DeliveryReceipt]]] {
        // On a shared store each request goes only while this worker's claims are surely its own.
        let fence = owner.flatMap { claims?.fence($0) }
        var sent: [String: [[DeliveryReceipt]]] = [:]
        await withTaskGroup(of: (String, [[DeliveryReceipt]]).self) { group in
            for (provider, pushes) in batch.byProvider {
                guard let sender = senders[provider] else { continue }
                group.addTask {
                    let receipts = await sender.send(
                        pushes.map { ($0.push, $0.targets) }, admit: fence
                    ) { item, targets, receipts in finished(Array(pushes[item].rows[targets]), receipts) }
                    return (provider, receipts)
                }
            }
            for await (provider, receipts) in group { sent[provider] = receipts }
        }
        for (provider, pushes) in batch.byProvider where sent[provider] == nil {
            let receipts = pushes.map { push in
                push.targets.map {
                    DeliveryReceipt(
                        target: $0, outcome: .rejected(reason: "no provider \(provider) to send it"), attempts: 0)
                }
            }
            for (push, receipts) in zip(pushes, receipts) { finished(push.rows, receipts) }
            sent[provider] = receipts
        }
        return sent
    }
}
