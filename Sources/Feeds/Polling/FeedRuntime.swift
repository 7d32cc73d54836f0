import Foundation
import HTTP
public import LiveRelayCore

/// One feed, ready to poll: where it is, how often, and how its bodies become facts.
public struct FeedRuntime: Sendable {
    public var id: String
    public var url: String
    public var interval: Int
    public var timeout: Int
    public var maxBodyBytes: Int
    /// The longest wait (seconds) a server's `Retry-After` or ban may impose; `nil`: tied to the interval.
    public var longestWait: Int?
    /// The longest wait (seconds) a server's `max-age` may impose; `nil`: tied to the interval.
    public var longestMaxAge: Int?
    /// Header values with secrets already read. Never log these.
    public var headers: [(name: String, value: String)]
    /// The feed's generic mapping or preset, ready to turn bodies into facts.
    public var normalizer: any FeedNormalizer

    /// A feed; the config's, or one outside any config, such as `liverelay facts --preset binance ticker.json`
    /// reads.
    public init(
        id: String, url: String, interval: Int = 30, timeout: Int = 10, maxBodyBytes: Int = 8 << 20,
        longestWait: Int? = nil, longestMaxAge: Int? = nil, headers: [(name: String, value: String)] = [],
        normalizer: any FeedNormalizer
    ) {
        self.id = id
        self.url = url
        self.interval = interval
        self.timeout = timeout
        self.maxBodyBytes = maxBodyBytes
        self.longestWait = longestWait
        self.longestMaxAge = longestMaxAge
        self.headers = headers
        self.normalizer = normalizer
    }

    /// The feed's polling schedule: its interval, 10 % jitter, backoff capped at ten minutes, a server's
    /// waits capped at `longest-wait` and `longest-max-age` (by default tied to the interval).
    public var pollPolicy: PollSchedule.Policy {
        PollSchedule.Policy(
            interval: .seconds(interval), longestWait: longestWait.map { .seconds($0) },
            longestMaxAge: longestMaxAge.map { .seconds($0) })
    }

    /// Fetches the feed once (unconditionally) and normalises the body: the facts rules would receive, or
    /// the feed error the poller would log.
    public func currentFacts(caFile: String? = nil) async -> Result<[String: Facts], FeedError> {
        let redacted = HTTPError.redact(url)
        let transport: CurlTransport
        do {
            transport = try CurlTransport(configuration: CurlTransport.Configuration(caFile: caFile))
        } catch {
            return .failure(FeedError(kind: .transport, feed: id, url: redacted, message: error.message))
        }
        defer { transport.shutdown() }
        let body: Data
        switch await FeedFetcher(transport: transport).response(self, validators: nil).result {
        case .failure(let error): return .failure(error)
        case .success(.notModified):
            return .failure(
                FeedError(kind: .httpStatus, feed: id, url: redacted, message: "HTTP 304 without a request validator"))
        case .success(.body(let data, _)): body = data
        }
        do {
            return .success(try normalizer.entities(body))
        } catch {
            return .failure(FeedError(kind: error.kind, feed: id, url: redacted, message: error.message))
        }
    }
}
