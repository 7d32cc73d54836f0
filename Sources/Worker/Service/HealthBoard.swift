import Feeds
import Foundation
import Synchronization

/// What `/healthz` reports: each feed's last poll and the provider's last delivery round.
public final class HealthBoard: Sendable {
    /// One feed's health.
    public struct FeedHealth: Sendable, Codable, Equatable {
        public var ok: Bool
        public var lastPoll: Int?
        public var lastSuccess: Int?
        public var error: String?
    }

    /// The provider's health.
    public struct ProviderHealth: Sendable, Codable, Equatable {
        public var name: String
        public var ok: Bool
        public var sent: Int
        public var failed: Int
        public var pending: Int
    }

    private let state: Mutex<(feeds: [String: FeedHealth], provider: ProviderHealth)>

    public init(feeds: [String], provider: String) {
        state = Mutex(
            (
                Dictionary(uniqueKeysWithValues: feeds.map { ($0, FeedHealth(ok: true)) }),
                ProviderHealth(name: provider, ok: true, sent: 0, failed: 0, pending: 0)
            ))
    }

    public func record(_ report: Tick.FeedReport, at now: Int) {
        state.withLock { s in
            var h = s.feeds[report.feed] ?? FeedHealth(ok: true)
            h.lastPoll = now
            h.ok = report.error == nil
            h.error = report.error?.description
            if report.error == nil { h.lastSuccess = now }
            s.feeds[report.feed] = h
        }
    }

    public func record(_ report: Tick.DeliveryReport) {
        state.withLock { s in
            s.provider.sent += report.sentHigh + report.sentLow
            s.provider.failed += report.failed
            s.provider.pending = report.pending
            if report.sentHigh + report.sentLow + report.failed > 0 { s.provider.ok = report.failed == 0 }
        }
    }

    /// The whole board, and whether everything is healthy.
    public var snapshot: (healthy: Bool, feeds: [String: FeedHealth], provider: ProviderHealth) {
        state.withLock { s in (s.feeds.values.allSatisfy(\.ok) && s.provider.ok, s.feeds, s.provider) }
    }
}
