import Logging
import Store

extension Pipeline {
    /// On a shared store, renews this worker's claims on a round's rows every quarter of their length while
    /// the round runs (cancel the task when it ends): a slow round keeps its rows, so no other worker sends
    /// them again. `nil` on a store of one worker.
    func renewingClaims(_ rows: [OutboxKey]) -> Task<Void, Never>? {
        guard let shared = store as? any SharedStore, !rows.isEmpty else { return nil }
        let logger = logger
        return Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(max(shared.claimSeconds * 1000 / 4, 500)))
                guard !Task.isCancelled else { return }
                do {
                    try await shared.renewClaims(rows)
                } catch {
                    logger.warning("outbox claims not renewed", metadata: ["error": "\(error)"])
                }
            }
        }
    }
}
