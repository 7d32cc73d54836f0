import LiveRelayCore
import Logging
import StoreCore

/// Late joiners: a device that begins to follow an entity whose activity runs gets the activity's start
/// (``LateJoinDecision``), staged by the release round like any start (its targets, its pace, the outbox).
extension ReleaseStage {
    /// Late joins a release round looks at, at most.
    static let lateJoinsPerRound = 1_000

    /// The starts of the late joins (``LateJoinDecision``), each logged; what they skip is logged at debug.
    func lateJoinStarts(_ joins: [LateJoin]) async throws(StoreFailure) -> [LiveActivityPush] {
        guard !joins.isEmpty else { return [] }
        let activities = try await store.activities(of: joins.map(\.entity))
        var starts: [LiveActivityPush] = []
        for decision in LateJoinDecision.decide(joins, activities: activities) {
            switch decision {
            case .start(let push):
                starts.append(push)
                logger.info(
                    "late joiner: the running activity starts on the device",
                    metadata: ["activity.key": "\(push.activity)", "device": "\(push.device ?? "")"])
            case .skip(let join, let activity, let reason):
                metrics.lateJoin(reason.label)
                logger.debug(
                    "late joiner not started",
                    metadata: [
                        "entity": "\(join.entity.feed)/\(join.entity.id)", "device": "\(join.device)",
                        "activity.key": "\(activity.map(\.rawValue) ?? "")", "reason": "\(reason)",
                    ])
            }
        }
        return starts
    }
}
