import Logging
import Synchronization

/// Which of many identical log events to write: the first of a kind at once, then at most one per `window`
/// saying how many like it were left out, and what is left at the end of a round (``drain()``). A fan-out to
/// a million devices failing the same way writes a few lines, not a million. Pure: the time comes in.
public struct RepeatedLog<Instant: InstantProtocol>: Sendable where Instant.Duration == Swift.Duration {
    /// How long identical events are counted before the next is written.
    public let window: Duration
    private var kinds: [String: (written: Instant, suppressed: Int)] = [:]

    public init(window: Duration) { self.window = window }

    /// Records an event of `kind` at `now`: `nil` to leave it out, or the number of events like it left out
    /// since the last one written (0 for the first) to write it with.
    public mutating func record(_ kind: String, now: Instant) -> Int? {
        guard let seen = kinds[kind], seen.written.duration(to: now) < window else {
            let suppressed = kinds[kind]?.suppressed ?? 0
            kinds[kind] = (now, 0)
            return suppressed
        }
        kinds[kind]!.suppressed += 1
        return nil
    }

    /// The events left out and not yet told, by kind; forgets every kind.
    public mutating func drain() -> [String: Int] {
        defer { kinds = [:] }
        return kinds.compactMapValues { $0.suppressed > 0 ? $0.suppressed : nil }
    }
}

/// A sender's repeated log lines: each kind written once, then at most once per ten seconds with how many
/// like it were left out, and the rest told when a batch ends (``flush(_:)``).
final class RepeatedLines: Sendable {
    private let log = Mutex(RepeatedLog<ContinuousClock.Instant>(window: .seconds(10)))

    /// Writes the line, unless a line of `kind` was written less than ten seconds ago (then it is counted).
    func log(
        _ logger: Logger, _ level: Logger.Level, _ message: Logger.Message, kind: String, _ metadata: Logger.Metadata
    ) {
        guard let earlier = log.withLock({ $0.record(kind, now: .now) }) else { return }
        var metadata = metadata
        if earlier > 0 { metadata["repeated-since-last"] = "\(earlier)" }
        logger.log(level: level, message, metadata: metadata)
    }

    /// Tells how many lines of each kind were left out since they were last written.
    func flush(_ logger: Logger) {
        for (kind, count) in log.withLock({ $0.drain() }).sorted(by: { $0.key < $1.key }) {
            logger.info("more log lines like this were left out", metadata: ["event": "\(kind)", "count": "\(count)"])
        }
    }
}
