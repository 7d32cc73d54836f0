import LiveRelayCore
import Logging
import Rules
import StoreCore
import Throttling

/// What looks at activities decide, shared by the plan and the timer stage: the ledger (or the contracts)
/// on each look's intents, the pushes handed to the throttle, and the save that keeps the throttle and the
/// subscription book in step with what was written.
struct Decider: Sendable {
    let store: any ActivityStore
    let rules: RuleBook
    let ledger: ActivityLedger
    let queue: StoredThrottle
    /// The content-state contracts, by attributes type: every state is checked and its dates written
    /// before it is queued.
    let contracts: [String: ContentContract]
    /// The personal subscriptions, told of the activities that started or ended once they are written.
    let book: SubscriptionBook
    let metrics: LiveRelayMetrics
    let logger: Logger

    /// What a poll's looks came to, to be saved with ``save(_:_:)``.
    struct DecidedLooks {
        var steps: [ChangeStep]
        /// The records the decisions changed, in key order, and every record they read as it was.
        var changed: [ActivityRecord]
        var before: [ActivityKey: ActivityRecord]
        /// The activities the looks name: their throttle states are loaded, and reverted if the save fails.
        var touched: Set<ActivityKey>
    }

    /// The ledger's decisions for a poll's looks (changes, and deleted subscriptions' ends): the records they
    /// name are read (those in `read` already are, as the poll began: `looked` names every key that read
    /// asked for, so one it found no record for is not asked again), and their throttle states loaded.
    func decide(
        _ looks: [(FeedChange, RuleEvaluation)], feed: String, read: [ActivityKey: ActivityRecord] = [:],
        looked: Set<ActivityKey> = [], now: Int
    ) async throws(StoreFailure) -> DecidedLooks {
        // What the alerts on an entity's channel are told with the ones whose rules decided it.
        let sharing = try await channelShareCopies(looks.map(\.1.intents))
        let touched = Set(looks.flatMap { $0.1.intents.map(\.activity) } + sharing.copies.joined().map(\.activity))
        var records = read.merging(sharing.records) { a, _ in a }
        let unread = touched.subtracting(records.keys).subtracting(looked)
        if !unread.isEmpty { records.merge(try await store.activities(unread)) { a, _ in a } }
        let before = records
        // One read for the throttle states of every activity this poll may push to.
        try await queue.load(touched, deciding: true)
        let steps = try await decide(
            looks.map { ($0, $1, feed) }, shared: sharing.copies, records: &records, now: now)
        let changed = records.values.filter { before[$0.key] != $0 }.sorted { $0.key < $1.key }
        return DecidedLooks(steps: steps, changed: changed, before: before, touched: touched)
    }

    /// Saves what `decide` came to with `write` (one transaction); the throttle forgets its changes if that
    /// fails, and the subscription book hears of the activities that started or ended once it is written.
    func save(_ decided: DecidedLooks, _ write: () async throws(StoreFailure) -> Void) async throws(StoreFailure) {
        do {
            try await write()
        } catch {
            await queue.revert(decided.touched)
            throw error
        }
        book.note(decided.changed, before: decided.before)
    }

    /// The ledger's decisions for each change's (or timer look's) intents, in order, with metrics and logs
    /// for the rules that fired or failed; then every push they made handed to the throttle in that order,
    /// in one call.
    /// `shared`, when given, holds for each look the intents its alerts' entity channels add
    /// (``ChannelShare``): decided with the look's own, not counted as rules that fired.
    func decide(
        _ looks: [(change: FeedChange, evaluation: RuleEvaluation, feed: String)], shared: [[ActivityIntent]] = [],
        records: inout [ActivityKey: ActivityRecord], now: Int
    ) async throws(StoreFailure) -> [ChangeStep] {
        var steps: [ChangeStep] = []
        // Every push made, in order, and the step of each (a push is copied once, into what the throttle takes).
        var pushes: [PendingPush] = []
        var stepOf: [Int] = []
        for (i, (change, evaluation, feed)) in looks.enumerated() {
            let intents = i < shared.count ? evaluation.intents + shared[i] : evaluation.intents
            let decisions =
                contracts.isEmpty
                ? ledger.apply(intents, to: &records, now: now)
                : decideUnderContracts(intents, records: &records, now: now, feed: feed)
            for case .push(let pending) in decisions {
                pushes.append(pending)
                stepOf.append(steps.count)
            }
            steps.append(
                ChangeStep(
                    change: change, fired: evaluation.intents.map(\.ruleID), errors: evaluation.errors,
                    decisions: decisions))
            for rule in evaluation.intents.map(\.ruleID) { metrics.ruleFired(rule) }
            for error in evaluation.errors {
                metrics.ruleError(error.rule)
                logger.error(
                    "rule failed", metadata: ["rule": "\(error.rule)", "feed.id": "\(feed)", "error": "\(error)"])
            }
        }
        guard !pushes.isEmpty else { return steps }
        let outcomes = try await queue.submit(pushes, now: now)
        for ((step, pending), outcome) in zip(zip(stepOf, pushes), outcomes) {
            steps[step].queued[pending.push.activity] = outcome
            if case .coalesced = outcome { metrics.coalesced() }
        }
        return steps
    }
}
