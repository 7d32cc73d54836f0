import Delivery
import LiveRelayCore
import Logging
import Throttling

extension LiveRelayWorker.Rounds {
    /// The info lines of a delivery round: one per activity start or end the throttle released, and one for
    /// the round with its counts (never one per device).
    func logRound(decisions: [ThrottleDecision], deliveries: [PushDelivery], report: DeliveryReport) {
        for case .send(let push, _) in decisions where push.event == .start || push.event == .end {
            logger.info(
                push.event == .start ? "activity starting" : "activity ending",
                metadata: [
                    "activity.key": "\(push.activity)", "attributes-type": "\(push.attributesType)",
                    "push.priority": "\(push.priority.rawValue)",
                ])
        }
        guard !decisions.isEmpty || !deliveries.isEmpty else { return }
        let tallies = report.providers.values
        logger.info(
            "delivery round",
            metadata: [
                "released": "\(decisions.count { if case .send = $0 { true } else { false } })",
                "held": "\(report.held)",
                "sent": "\(tallies.reduce(0) { $0 + $1.sent })",
                "failed": "\(tallies.reduce(0) { $0 + $1.failed })",
                "broadcasts": "\(tallies.reduce(0) { $0 + $1.broadcasts })",
                "pending": "\(report.pending)",
            ])
    }
}
