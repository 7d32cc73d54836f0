/// Everything the worker keeps: feeds' facts and schedules, activity records, throttle states, the outbox,
/// the token and address registries, channels, history and timers. Two stores implement it with the same
/// semantics (one suite runs against both): ``SQLiteStore`` (one file, the default, for one worker) and
/// the PostgreSQL store (several workers on one database).
///
/// Writes that belong together are one method and one transaction (a poll's ``commit(_:)``, a release's
/// ``commitRelease(throttleStates:outbox:fanOuts:rewrites:drops:history:paces:)``, a round's
/// ``settleOutbox(done:later:started:sent:cursors:now:)``), so a crash between two never leaves half of one.
public protocol StateStore:
    FeedStore, ActivityStore, TimerStore, ThrottleStore, OutboxStore, RegistryStore, SubscriptionStore, AddressStore,
    ChannelStore, ProviderTokenStore, SchemaStore
{}

/// A store several workers share (PostgreSQL): each worker has a name on its claims, and named leases let
/// one worker at a time do what must not be done twice (poll the feeds). Lease times are the database's
/// clock, so workers whose clocks disagree still agree on who holds a lease.
public protocol SharedStore: StateStore {
    /// This worker's name on its claims and leases.
    var worker: String { get }
    /// Takes or renews the lease `name` for this worker for `seconds`: `true` when this worker holds it now.
    func acquireLease(_ name: String, seconds: Int) async throws(StoreFailure) -> Bool
    /// Gives the lease up, if this worker holds it (a graceful stop), so another takes it at once.
    func releaseLease(_ name: String) async throws(StoreFailure)
    /// Who holds the lease and for how many more seconds, if anyone does.
    func leaseHolder(_ name: String) async throws(StoreFailure) -> (worker: String, seconds: Int)?
    /// How long a claim on outbox rows lasts.
    var claimSeconds: Int { get }
    /// Extends this worker's claims on these rows by ``claimSeconds`` from now: a delivery round that runs
    /// long (a slow provider) keeps its rows, so no other worker sends them again meanwhile. Claims a failed
    /// round left are not renewed: they expire and the rows go to whoever claims next.
    func renewClaims(_ rows: [OutboxKey]) async throws(StoreFailure)
    /// How often this worker's heartbeat is written (``heartbeat()``).
    var heartbeatInterval: Duration { get }
    /// Writes this worker's heartbeat; first gives up its claims and rejoins under a new incarnation when it
    /// stalled so long that another worker may have taken them (see ``WorkerHeartbeat``).
    func heartbeat() async throws(StoreFailure) -> HeartbeatOutcome
    /// Whether this worker may still send the rows it claimed: checked before claiming, so a worker that
    /// stalled past its heartbeat timeout claims nothing until it rejoined.
    var holdsClaims: Bool { get }
    /// The name on the claims this worker takes now (its name and incarnation).
    var claimOwner: String { get }
    /// Whether rows claimed as `owner` may still be sent: checked before each request, so a worker that
    /// stalled past its heartbeat timeout (or rejoined since) sends none of them.
    func holdsClaims(as owner: String) -> Bool
    /// The workers seen and the rows still claimed by gone ones.
    func workersStatus() async throws(StoreFailure) -> WorkersStatus
    /// How many workers were live (their heartbeat not lapsed, this one's included) at this worker's last
    /// ``workersStatus()``; `nil` before the first.
    var workersAlive: Int? { get }
}

/// Push-to-start windows a release changed: each key's send times, and the time before which a send no longer
/// counts (the pacing window's start), so windows left empty are removed.
public struct StartPaces: Sendable, Hashable {
    public var windows: [String: [Int]]
    public var keepFrom: Int

    public init(windows: [String: [Int]] = [:], keepFrom: Int = 0) {
        self.windows = windows
        self.keepFrom = keepFrom
    }
}
