import LiveRelayCore
import Logging
import Rules
import Throttling

extension Decider {
    /// The ledger's decisions for one change's (or timer look's) intents, each push under its attributes
    /// type's contract (its dates written as the contract says).
    ///
    /// A push that breaks its contract is skipped (logged as an error naming the rules, the activity and the
    /// fields, and counted) and leaves the activity's record as it was, so the next state is decided from the
    /// last valid one. When several rules made that push, the rules that broke it are singled out
    /// (``brokenIntents(_:of:before:now:)``): each is left out, named in a skip of its own, and the other
    /// rules' patches decide again without it, so one broken rule never takes down what the others produced.
    func decideUnderContracts(
        _ intents: [ActivityIntent], records: inout [ActivityKey: ActivityRecord], now: Int, feed: String
    ) -> [LedgerDecision] {
        let before = records
        var decisions = ledger.apply(intents, to: &records, now: now)
        // Each push conformed in place, once: most changes end here.
        var refused = conformed(&decisions)
        var broken: [(index: Int, breach: ContractBreach)] = []
        for (i, _) in refused {
            guard case .push(let pending) = decisions[i], pending.push.ruleIDs.count > 1 else { continue }
            let mine = intents.indices.filter { intents[$0].activity == pending.push.activity }
            broken += brokenIntents(mine, of: intents, before: before, now: now)
        }
        var brokenSkips: [LedgerDecision] = []
        if !broken.isEmpty {
            let left = Set(broken.map(\.index))
            records = before
            decisions = ledger.apply(
                intents.indices.filter { !left.contains($0) }.map { intents[$0] }, to: &records, now: now)
            refused = conformed(&decisions)
            for (index, breach) in broken.sorted(by: { $0.index < $1.index }) {
                let intent = intents[index]
                logger.error(
                    "rule's patch refused by its contract; the other rules' patches go without it",
                    metadata: [
                        "activity.key": "\(intent.activity)", "rule": "\(intent.ruleID)", "feed.id": "\(feed)",
                        "contract": "\(contracts[intent.attributesType]?.file ?? "")", "error": "\(breach)",
                    ])
                metrics.ruleError(intent.ruleID)
                brokenSkips.append(
                    .skip(
                        activity: intent.activity, ruleIDs: [intent.ruleID],
                        reason: .breaksContract(breach.description)))
            }
        }
        for (i, breach) in refused {
            decisions[i] = refuse(decisions[i], breach, records: &records, before: before, feed: feed)
        }
        decisions.append(contentsOf: brokenSkips)
        return decisions
    }

    /// Conforms each decision's push to its contract, in place; the decisions whose push it refuses (left as
    /// they were), by index.
    private func conformed(_ decisions: inout [LedgerDecision]) -> [(index: Int, breach: ContractBreach)] {
        var refused: [(index: Int, breach: ContractBreach)] = []
        for i in decisions.indices {
            guard case .push(let pending) = decisions[i] else { continue }
            switch conform(pending) {
            case .success(let conformed): decisions[i] = .push(conformed)
            case .failure(let breach): refused.append((i, breach))
            }
        }
        return refused
    }

    /// Which of one activity's intents (`indices` into `intents`) broke its merged push: each whose push
    /// alone, on the state before this change, breaks the contract; then, while the rest still make a
    /// refused push, the latest whose removal leaves a push the contract accepts (later patches win, so it
    /// is the one that broke the others'). Empty when no rule can be singled out: the push is refused whole.
    private func brokenIntents(
        _ indices: [Int], of intents: [ActivityIntent], before: [ActivityKey: ActivityRecord], now: Int
    ) -> [(index: Int, breach: ContractBreach)] {
        /// The contract's verdict on these intents' merged push: `nil` when they make no push.
        func merged(_ chosen: [Int]) -> Result<PendingPush, ContractBreach>? {
            var trial = before
            guard !chosen.isEmpty,
                case .push(let pending)? = ledger.apply(chosen.map { intents[$0] }, to: &trial, now: now).first
            else { return nil }
            return conform(pending)
        }
        var broken: [(index: Int, breach: ContractBreach)] = []
        for index in indices {
            if case .failure(let breach)? = merged([index]) { broken.append((index, breach)) }
        }
        var rest = indices.filter { i in !broken.contains { $0.index == i } }
        while rest.count > 1, case .failure(let breach)? = merged(rest) {
            guard
                let culprit = rest.reversed().first(where: { i in
                    if case .success? = merged(rest.filter { $0 != i }) { return true }
                    return false
                })
            else { break }
            broken.append((culprit, breach))
            rest.removeAll { $0 == culprit }
        }
        return broken
    }

    /// A push with its state (and a start's attributes) as its contract has them, or why the contract refuses
    /// it. A push whose attributes type has no contract is as it is.
    func conform(_ pending: PendingPush) -> Result<PendingPush, ContractBreach> {
        guard let contract = contracts[pending.push.attributesType] else { return .success(pending) }
        var pending = pending
        switch contract.conformState(pending.push.contentState) {
        case .failure(let breach): return .failure(breach)
        case .success(let state): pending.push.contentState = state
        }
        guard pending.push.event == .start else { return .success(pending) }
        switch contract.conformAttributes(pending.push.attributes ?? .emptyObject) {
        case .failure(let breach): return .failure(breach)
        case .success(let attributes): pending.push.attributes = attributes
        }
        return .success(pending)
    }

    /// A decision whose push its contract refuses, as a skip that puts the activity's record back as it was
    /// in `before` (logged and counted).
    private func refuse(
        _ decision: LedgerDecision, _ breach: ContractBreach, records: inout [ActivityKey: ActivityRecord],
        before: [ActivityKey: ActivityRecord], feed: String
    ) -> LedgerDecision {
        guard case .push(let pending) = decision else { return decision }
        let activity = pending.push.activity
        records[activity] = before[activity]
        logger.error(
            "push refused by its contract",
            metadata: [
                "activity.key": "\(activity)", "rules": "\(pending.push.ruleIDs.joined(separator: ","))",
                "feed.id": "\(feed)", "contract": "\(contracts[pending.push.attributesType]?.file ?? "")",
                "error": "\(breach)",
            ])
        for rule in pending.push.ruleIDs { metrics.ruleError(rule) }
        return .skip(activity: activity, ruleIDs: pending.push.ruleIDs, reason: .breaksContract(breach.description))
    }
}
