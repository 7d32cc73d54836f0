import Foundation
import LiveRelayCore
import StoreCore
import Throttling

extension ReleaseStage {
    /// What the released pushes supersede among the rows still waiting for their activities.
    func superseded(by released: [ActivityKey: LiveActivityPush])
        async throws(StoreFailure) -> (rewrites: [OutboxRewrite], drops: [OutboxEntry])
    {
        guard !released.isEmpty else { return ([], []) }
        var rewrites: [OutboxRewrite] = []
        var drops: [OutboxEntry] = []
        let decoder = JSONValueDecoder()
        for row in try await store.waitingOutbox(activities: released.keys) {
            guard let newer = released[row.key.activity],
                let waiting = try? decoder.decode(LiveActivityPush.self, stored: row.push)
            else { continue }
            switch Supersession.decide(waiting: waiting, released: newer) {
            case .keep:
                break
            case .drop:
                drops.append(row)
            case .rewrite(let push):
                var rewritten = row
                rewritten.push = push.writtenJSON()
                rewritten.timestamp = push.timestamp
                rewrites.append(OutboxRewrite(row: rewritten, previousTimestamp: row.timestamp))
            }
        }
        return (rewrites, drops)
    }
}
