import LiveRelayCore
import Logging
import Rules
import Throttling

extension Pipeline {
    /// A push under its attributes type's contract: its dates written as the contract says, or, when it
    /// breaks the contract, a skip (logged as an error naming the rules, the activity and the fields, and
    /// counted) that leaves the activity's record as it was, so the next state is decided from the last
    /// valid one.
    func enforceContract(
        _ decision: LedgerDecision, records: inout [ActivityKey: ActivityRecord], before: [ActivityKey: ActivityRecord],
        feed: String
    ) -> LedgerDecision {
        guard case .push(var pending) = decision, let contract = contracts[pending.push.attributesType] else {
            return decision
        }
        var result = contract.conformState(pending.push.contentState)
        if case .success(let state) = result {
            pending.push.contentState = state
            if pending.push.event == .start {
                result = contract.conformAttributes(pending.push.attributes ?? .emptyObject)
                if case .success(let attributes) = result { pending.push.attributes = attributes }
            }
        }
        switch result {
        case .success:
            return .push(pending)
        case .failure(let breach):
            let activity = pending.push.activity
            records[activity] = before[activity]
            logger.error(
                "push refused by its contract",
                metadata: [
                    "activity.key": "\(activity)", "rules": "\(pending.push.ruleIDs.joined(separator: ","))",
                    "feed.id": "\(feed)", "contract": "\(contract.file)", "error": "\(breach)",
                ])
            for rule in pending.push.ruleIDs { metrics.ruleError(rule) }
            return .skip(activity: activity, ruleIDs: pending.push.ruleIDs, reason: .breaksContract(breach.description))
        }
    }
}
