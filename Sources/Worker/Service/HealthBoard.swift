public import Delivery
public import Feeds
import Foundation
public import Store
import Synchronization

/// What `/healthz` reports: each feed's polls and the outbox's rounds, read from the counters of the poll
/// loops themselves (the same ones `/metrics` counts from), and each provider's deliveries.
public final class HealthBoard: Sendable {
    /// One loop's health (a feed, or the outbox).
    public struct LoopHealth: Sendable, Codable, Equatable {
        /// Whether its last poll succeeded.
        public var ok: Bool
        /// When (UNIX seconds) it last polled.
        public var lastPoll: Int?
        /// When it last succeeded.
        public var lastSuccess: Int?
        /// What its last poll's failure was (a feed error, or the state store's).
        public var error: String?

        init(_ counters: PollCounters) {
            ok = counters.healthy
            lastPoll = counters.lastPoll
            lastSuccess = counters.lastSuccess
            error = counters.lastError
        }
    }

    /// A provider's health.
    public struct ProviderHealth: Sendable, Codable, Equatable {
        /// Its kind.
        public var name: String
        /// False once a round's deliveries through it all failed, until one succeeds again.
        public var ok: Bool
        public var sent: Int
        public var failed: Int
        /// Pushes waiting, every provider together.
        public var pending: Int
    }

    /// Everything `/healthz` shows.
    public struct Snapshot: Sendable, Codable, Equatable {
        /// `ok`, or `degraded` when a feed, the outbox or a provider is not.
        public var status: String
        public var feeds: [String: LoopHealth]
        /// The outbox's delivery rounds (they fail only when the state store does).
        public var outbox: LoopHealth
        /// The default provider.
        public var provider: ProviderHealth
        /// Every provider, by id.
        public var providers: [String: ProviderHealth]
        /// On a shared store: the workers seen (their heartbeats) and the outbox rows still claimed by gone
        /// ones; absent on SQLite.
        public var workers: WorkersStatus?

        /// Whether everything is healthy.
        public var healthy: Bool { status == "ok" }
    }

    private let feeds: [PollLoop]
    private let outbox: PollLoop
    private let deliveries: DeliveryHealth
    private let workers: @Sendable () -> WorkersStatus?

    /// A board over the worker's loops and the providers' deliveries.
    public init(
        feeds: [PollLoop], outbox: PollLoop, deliveries: DeliveryHealth,
        workers: @escaping @Sendable () -> WorkersStatus? = { nil }
    ) {
        self.feeds = feeds
        self.outbox = outbox
        self.deliveries = deliveries
        self.workers = workers
    }

    /// The whole board.
    public var snapshot: Snapshot {
        let feeds = Dictionary(uniqueKeysWithValues: self.feeds.map { ($0.name, LoopHealth($0.counters)) })
        let outbox = LoopHealth(self.outbox.counters)
        let (providers, defaultProvider) = deliveries.current
        let healthy = feeds.values.allSatisfy(\.ok) && outbox.ok && providers.values.allSatisfy(\.ok)
        return Snapshot(
            status: healthy ? "ok" : "degraded", feeds: feeds, outbox: outbox,
            provider: providers[defaultProvider]!, providers: providers, workers: workers())
    }
}

/// Each provider's deliveries so far, counted from every delivery round.
public final class DeliveryHealth: Sendable {
    private let defaultProvider: String
    private let providers: Mutex<[String: HealthBoard.ProviderHealth]>

    /// Nothing delivered yet by these providers (kinds by id).
    public init(providers: [String: ProviderKind], defaultProvider: String) {
        self.defaultProvider = defaultProvider
        self.providers = Mutex(
            providers.mapValues {
                HealthBoard.ProviderHealth(name: $0.rawValue, ok: true, sent: 0, failed: 0, pending: 0)
            })
    }

    /// Counts a delivery round.
    public func record(_ report: DeliveryReport) {
        providers.withLock { all in
            for id in all.keys {
                let tally = report.providers[id] ?? DeliveryReport.Tally()
                all[id]!.sent += tally.sent
                all[id]!.failed += tally.failed
                all[id]!.pending = report.pending
                if tally.sent + tally.failed > 0 { all[id]!.ok = tally.failed == 0 }
            }
        }
    }

    /// Every provider's health, and the default provider's id.
    var current: (providers: [String: HealthBoard.ProviderHealth], defaultProvider: String) {
        (providers.withLock { $0 }, defaultProvider)
    }
}
