import Foundation

/// When to poll a feed next, and why.
public struct PollDecision: Sendable, Hashable, CustomStringConvertible {
    /// Why the delay is what it is.
    public enum Reason: Sendable, Hashable {
        /// The feed's interval.
        case interval
        /// The response's `Cache-Control: max-age` (seconds), longer than the interval.
        case cacheMaxAge(Int)
        /// Exponential backoff after this many failures in a row.
        case backoff(failures: Int)
        /// The server's `Retry-After` (seconds) on a 429 or 503.
        case retryAfter(Int)
        /// A ban (Binance's 418) for this many seconds.
        case banned(Int)
    }

    /// How long to wait before the next poll.
    public var delay: Duration
    /// Why.
    public var reason: Reason
    /// The seconds the server asked for when they were more than the policy's longest wait (the reason
    /// then holds the capped value).
    public var cappedFrom: Int?

    /// Creates a decision.
    public init(delay: Duration, reason: Reason, cappedFrom: Int? = nil) {
        self.delay = delay
        self.reason = reason
        self.cappedFrom = cappedFrom
    }

    /// Why, in words: `backoff after 2 failures`, `Retry-After 120 s`, …
    public var reasonText: String {
        let why =
            switch reason {
            case .interval: "interval"
            case .cacheMaxAge(let s): "Cache-Control max-age \(s) s"
            case .backoff(let n): "backoff after \(n) failure\(n == 1 ? "" : "s")"
            case .retryAfter(let s): "Retry-After \(s) s"
            case .banned(let s): "banned for \(s) s"
            }
        return why + (cappedFrom.map { ", capped: the server asked for \($0) s" } ?? "")
    }

    /// `next poll in 60 s (backoff after 2 failures)`.
    public var description: String { "next poll in \(PollDecision.seconds(delay)) s (\(reasonText))" }

    /// A duration in seconds, with milliseconds when it has them.
    static func seconds(_ d: Duration) -> String {
        let (s, atto) = d.components
        let ms = atto / 1_000_000_000_000_000
        return ms == 0 ? "\(s)" : "\(s).\(String(format: "%03d", ms))"
    }
}
