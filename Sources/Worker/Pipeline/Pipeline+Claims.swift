import Logging
import Store

extension Pipeline {
    /// Runs `body` while, on a shared store, this worker's claims on `rows` are renewed every quarter of their
    /// length: a slow round keeps its rows, so no other worker sends them again. The renewal is a child task
    /// of this one and ends with `body`. On a store of one worker `body` simply runs.
    ///
    /// The renewals sleep on the continuous clock, not the worker's injected one: the claims run out on the
    /// database's clock, in real time, whatever clock a test pretends.
    func renewingClaims<T: Sendable>(_ rows: [OutboxKey], while body: () async -> T) async -> T {
        guard let shared = store as? any SharedStore, !rows.isEmpty else { return await body() }
        let logger = logger
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
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
            let result = await body()
            group.cancelAll()
            return result
        }
    }
}
