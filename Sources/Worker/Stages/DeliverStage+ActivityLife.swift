import Delivery
import LiveRelayCore
import Logging
import StoreCore
import Throttling

/// The guards of an activity's life in a delivery round: one start per device, and ends that are lost said
/// loudly.
extension DeliverStage {
    /// One start per device and activity (``StartGuard``): starts to a device that runs the activity or was
    /// started already, and a second start to one device in the round, are taken out of `due` and the
    /// outbox. A start that gets through marks its device when its receipt is written (one write with the
    /// row's end), so only a start in flight at a crash can go twice, and none is lost.
    func admitStarts(_ due: inout [OutboxEntry], now: Int) async throws(StoreFailure) {
        let starts = due.compactMap { row in row.deviceStart.map { (row, $0) } }
        guard !starts.isEmpty else { return }
        let states = try await store.deviceStates(Array(Set(starts.map(\.1))))
        var admitted = Set<DeviceStart>()
        var refused: [OutboxEntry] = []
        for (row, start) in starts {
            let state = states[start]
            switch StartGuard.decide(
                startedAt: state?.startedAt, tokenAt: state?.tokenAt, now: now, restartAfter: restartAfter)
            {
            case .send where admitted.insert(start).inserted:
                break
            case .send:
                // A second token of the same device (rotated, or of another environment) in this round.
                refused.append(row)
            case .skip(let reason):
                logger.info(
                    "start not sent",
                    metadata: ["activity.key": "\(start.activity)", "device": "\(start.device)", "reason": "\(reason)"])
                refused.append(row)
            }
        }
        if !refused.isEmpty {
            try await store.completeOutbox(refused)
            let gone = Set(refused.map(\.key))
            due.removeAll { gone.contains($0.key) }
        }
    }

    /// An end that will never reach some of its targets leaves the activity running on those devices (until
    /// its stale date, or iOS's eight hours): said loudly, counted, and reported by the round.
    func reportLostEnd(_ delivery: PushDelivery) {
        let reasons = Set(delivery.receipts.filter(\.failed).map(\.outcome.reason)).sorted()
        logger.error(
            "activity end not delivered",
            metadata: [
                "activity.key": "\(delivery.push.activity)", "provider": "\(delivery.provider)",
                "targets": "\(delivery.lost)", "reason": "\(reasons.joined(separator: "; "))",
            ])
        metrics.endLost(provider: delivery.provider)
    }
}
