import Logging
import StoreCore

/// The delivery stage's claims on a store several workers share (PostgreSQL): a worker claims the rows it
/// sends, keeps them while its round runs, and sends each only while they are still its own. A store of one
/// worker (SQLite) has none of this: ``DeliverStage`` holds no `SharedClaims` there.
struct SharedClaims: Sendable {
    let store: any SharedStore
    let logger: Logger

    /// Whether this worker may claim rows now: one whose heartbeat lapsed claims nothing until its next
    /// heartbeat has rejoined it.
    var mayClaim: Bool { store.holdsClaims }

    /// Rows a delivery round claims now, of `claimBatch` (``batch(claimBatch:workersAlive:alone:)``), with the
    /// workers the last heartbeat counted.
    func batch(_ claimBatch: Int) -> Int {
        Self.batch(claimBatch: claimBatch, workersAlive: store.workersAlive)
    }

    /// Rows a delivery round claims: `claimBatch` while other workers are alive to share a fan-out with, and
    /// while their number is not known yet; a worker alone claims as many as a round on a store of one
    /// worker takes (`alone`, or `claimBatch` if larger). Alone, small claims only cost: each is a claim and
    /// its settlements, a round trip to the database apiece, with nobody to share the rows with. A worker
    /// that joins meanwhile claims the next batch at once, and the first sees it at its next heartbeat.
    static func batch(claimBatch: Int, workersAlive: Int?, alone: Int = 10_000) -> Int {
        workersAlive == 1 ? max(claimBatch, alone) : claimBatch
    }

    /// Whether a round claimed `age` ago, while the round before it went out, may still be sent: its rows'
    /// claims are renewed only once it goes out itself, so it is taken only within half their length
    /// (`claimSeconds`), when the claims surely hold. Past that it is left to lapse and its rows are claimed
    /// again.
    static func takesReadAhead(age: Duration, claimSeconds: Int) -> Bool {
        age < .seconds(claimSeconds) / 2
    }

    /// The name the rows claimed now are claimed as (the worker and its incarnation).
    var owner: String { store.claimOwner }

    /// Whether the rows claimed as `owner` are still surely this worker's, asked before each request.
    func fence(_ owner: String) -> @Sendable () -> Bool {
        let store = store
        return { @Sendable in store.holdsClaims(as: owner) }
    }

    /// Runs `body` while this worker's claims on `rows` are renewed every quarter of their length: a slow
    /// round keeps its rows, so no other worker sends them again. The renewal is a child task of this one and
    /// ends with `body`.
    ///
    /// The renewals sleep on the continuous clock, not the worker's injected one: the claims run out on the
    /// database's clock, in real time, whatever clock a test pretends.
    func renewing<T: Sendable>(_ rows: [OutboxKey], while body: () async -> T) async -> T {
        guard !rows.isEmpty else { return await body() }
        let (store, logger) = (store, logger)
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(max(store.claimSeconds * 1000 / 4, 500)))
                    guard !Task.isCancelled else { return }
                    do {
                        try await store.renewClaims(rows)
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
