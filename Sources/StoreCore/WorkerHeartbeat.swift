/// Whether a worker sharing a store may still act on its outbox claims, decided from its own heartbeats.
/// Pure: the times come in (any monotonic clock's instants).
///
/// Every worker writes a heartbeat on the database's clock every `interval`; another worker takes over the
/// claims of one whose heartbeat is older than `timeout`. A worker counts its own claims as held only until
/// the start of its last heartbeat that was written, plus `timeout`, less `margin`: past that, another
/// worker may already have taken them, so it sends none of them (the fence checked before each request).
/// A worker that finds itself past that point (a stall, a SIGSTOP, the database out of reach) rejoins under
/// a new incarnation: its old claims are given up, and its new ones are its own again.
public struct WorkerHeartbeat<Instant: InstantProtocol>: Sendable where Instant.Duration == Swift.Duration {
    /// How often a heartbeat is written.
    public let interval: Duration
    /// How old a heartbeat may be before the worker counts as gone.
    public let timeout: Duration
    /// What the fence keeps in hand: clocks drift, and a heartbeat is written some time after it starts.
    public let margin: Duration
    /// When the last heartbeat that was written started.
    public private(set) var lastWritten: Instant?

    /// What to do at a heartbeat.
    public enum Decision: Sendable, Equatable {
        /// Write it: the claims are still this worker's.
        case beat
        /// The claims may be another's by now (none was written for `stalled`): give them up, take a new
        /// incarnation, then write the heartbeat.
        case rejoin(stalled: Duration)
    }

    /// A worker's heartbeat: written every `interval`, gone after `timeout`; the margin is a quarter of the
    /// timeout, at most a second.
    public init(interval: Duration, timeout: Duration) {
        self.interval = interval
        self.timeout = timeout
        margin = min(timeout / 4, .seconds(1))
    }

    /// What to do at a heartbeat starting at `now`.
    public func decide(now: Instant) -> Decision {
        guard let lastWritten else { return .beat }
        let since = lastWritten.duration(to: now)
        return holds(since: since) ? .beat : .rejoin(stalled: since)
    }

    /// Records a heartbeat that started at `started` and was written.
    public mutating func written(startedAt started: Instant) {
        if let lastWritten, lastWritten > started { return }
        lastWritten = started
    }

    /// Whether the worker may act on its claims at `now` (send a claimed row).
    public func holdsClaims(now: Instant) -> Bool {
        guard let lastWritten else { return false }
        return holds(since: lastWritten.duration(to: now))
    }

    private func holds(since: Duration) -> Bool { since < timeout - margin }
}

/// What a heartbeat did.
public enum HeartbeatOutcome: Sendable, Equatable {
    /// It was written.
    case beat
    /// The worker had stalled for `stalled` (its claims may have been taken over): it gave up the `released`
    /// rows still claimed under its old incarnation and wrote its heartbeat under a new one.
    case rejoined(stalled: Duration, released: Int)
}

/// The workers sharing a store, as their heartbeats show them.
public struct WorkersStatus: Sendable, Equatable, Codable {
    /// One worker incarnation.
    public struct Worker: Sendable, Equatable, Codable {
        /// Its name (`postgres.worker`, or host and process id).
        public var name: String
        /// The name on its claims: its name and incarnation.
        public var owner: String
        /// Seconds since its last heartbeat, on the database's clock.
        public var heartbeatAge: Int
        /// Whether its heartbeat has lapsed: the others take its claims over.
        public var gone: Bool

        public init(name: String, owner: String, heartbeatAge: Int, gone: Bool) {
            self.name = name
            self.owner = owner
            self.heartbeatAge = heartbeatAge
            self.gone = gone
        }

        enum CodingKeys: String, CodingKey {
            case name, owner, gone
            case heartbeatAge = "heartbeat-age"
        }
    }

    /// Every worker that wrote a heartbeat in the last hour.
    public var workers: [Worker]
    /// Outbox rows still claimed by workers whose heartbeat has lapsed (taken over at the next claim).
    public var rowsHeldByGoneWorkers: Int

    public init(workers: [Worker], rowsHeldByGoneWorkers: Int) {
        self.workers = workers
        self.rowsHeldByGoneWorkers = rowsHeldByGoneWorkers
    }

    enum CodingKeys: String, CodingKey {
        case workers
        case rowsHeldByGoneWorkers = "rows-held-by-gone-workers"
    }
}
