import Delivery
import LiveRelayCore
import Logging
import StoreCore
import Synchronization

/// What the receipts of a delivery round do to its outbox rows. A final receipt (delivered, token dropped,
/// rejected, given up) takes the row out; a temporary failure puts it off as ``RetryPolicy/outbox`` says; a
/// start that got through marks its device as started, and a push that got through its activity's
/// `sent_at` and delivered state, in the same write.
struct OutboxSettlement: Sendable {
    /// The round's rows, by index.
    let rows: [OutboxEntry]
    /// The round's pushes, as their activities keep them when they get through.
    let pushes: [SentPush]
    /// Each row's push: its index in `pushes`.
    let pushOfRow: [Int]
    let now: Int
    /// A random number in `0..<1` per row put off.
    let jitter: @Sendable () -> Double

    /// True when the receipt ends the row's life in the outbox.
    func isFinal(_ index: Int, _ receipt: DeliveryReceipt) -> Bool {
        delay(rows[index], receipt.outcome, jitter: 0) == nil
    }

    /// When a row whose push got `outcome` goes again, or `nil` when it leaves the outbox: a temporary failure
    /// as ``RetryPolicy/outbox`` says, a throttled target as ``RetryPolicy/throttled`` says.
    private func delay(_ row: OutboxEntry, _ outcome: DeliveryOutcome, jitter: Double) -> Duration? {
        switch outcome {
        case .retry(let after, _):
            RetryPolicy.outbox.delay(afterAttempt: row.attempts + 1, retryAfterSeconds: after, jitter: jitter)
        case .throttled(let after, _):
            RetryPolicy.throttled.delay(afterAttempt: row.attempts + 1, retryAfterSeconds: after, jitter: jitter)
        default: nil
        }
    }

    /// The writes for these rows' receipts.
    func settle(_ indices: [Int], _ receipts: [DeliveryReceipt], logger: Logger) -> (
        done: [OutboxEntry], later: [OutboxEntry], started: [DeviceStart], sent: [SentPush]
    ) {
        var done: [OutboxEntry] = []
        var later: [OutboxEntry] = []
        var started: [DeviceStart] = []
        var sent: [SentPush] = []
        // Each push once per write, however many of its targets got it (a fan-out's batch is one push).
        var sentPushes = Set<Int>()
        var lastSent = -1
        for (index, receipt) in zip(indices, receipts) {
            if receipt.delivered {
                let push = pushOfRow[index]
                if push != lastSent, sentPushes.insert(push).inserted { sent.append(pushes[push]) }
                lastSent = push
                if let start = rows[index].deviceStart { started.append(start) }
            }
            if let delay = delay(rows[index], receipt.outcome, jitter: receipt.outcome.isRetry ? jitter() : 0) {
                var row = rows[index]
                row.attempts += 1
                row.nextAttempt = now + max(1, Int((delay / .seconds(1)).rounded(.up)))
                later.append(row)
            } else {
                if receipt.outcome.isRetry {
                    logger.error(
                        "push given up after retries",
                        metadata: [
                            "activity.key": "\(rows[index].key.activity)", "attempts": "\(rows[index].attempts + 1)",
                        ])
                }
                // A fan-out's target has no row to take out: its cursor moves past it (``FanOutProgress``).
                if rows[index].fanOut == nil { done.append(rows[index]) }
            }
        }
        return (done, later, started, sent)
    }
}

/// The receipts of a delivery round as the senders finish requests, handed to one writer in arrival order:
/// receipts that arrive while a write is under way go together in the next, so writing keeps up with any
/// sending rate and a crash loses at most the receipts of one write and the requests in flight.
final class ReceiptJournal: Sendable {
    private let pending = Mutex<(rows: [Int], receipts: [DeliveryReceipt])>(([], []))
    private let signal: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (signal, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Adds a request's receipts (the rows they are for, in order). Never waits.
    func record(_ rows: [Int], _ receipts: [DeliveryReceipt]) {
        pending.withLock {
            $0.rows += rows
            $0.receipts += receipts
        }
        continuation.yield()
    }

    /// No more receipts will come.
    func finish() { continuation.finish() }

    /// Hands the receipts to `body` in groups, until `finish` and the last group is written. The first
    /// failure ends the writing and is returned once every receipt has arrived; the receipts not written
    /// keep their rows in the outbox, to be sent again.
    func write<Failure: Error>(_ body: ([Int], [DeliveryReceipt]) async throws(Failure) -> Void) async -> Failure? {
        var failure: Failure?
        for await _ in signal {
            let group = pending.withLock { taken in
                defer { taken = ([], []) }
                return taken
            }
            guard failure == nil, !group.rows.isEmpty else { continue }
            do { try await body(group.rows, group.receipts) } catch { failure = error }
        }
        return failure
    }
}

/// The pushes a delivery round has recorded as sent, so each is written once per round: a fan-out's receipts
/// come in hundreds of writes, and with the round's `now`, the push's timestamp and its state every write
/// after the first would change nothing (records are saved without `sent_at` and the delivered state, so
/// nothing in between undoes it). Fed by the receipt writer one write at a time; a failed write ends the round.
final class SentOnce: Sendable {
    private let recorded = Mutex<Set<PushID>>([])

    /// Those of `sent` no earlier write of this round has recorded.
    func firstTime(_ sent: [SentPush]) -> [SentPush] {
        recorded.withLock { recorded in
            sent.filter { recorded.insert(PushID(activity: $0.activity, timestamp: $0.timestamp)).inserted }
        }
    }
}

/// A round's ``FanOutProgress``, fed by the receipt writer one write at a time.
final class FanOutTracker: Sendable {
    private let progress: Mutex<FanOutProgress>

    init(_ rows: [OutboxEntry]) { progress = Mutex(FanOutProgress(rows)) }

    /// The cursors these rows' written receipts move.
    func written(_ indices: [Int]) -> [FanOutCursor] { progress.withLock { $0.written(indices) } }
}
