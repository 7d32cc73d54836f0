public import Feeds
import Foundation
import HTTP
public import LiveRelayCore

extension FeedRuntime {
    /// A feed outside any config, such as `liverelay facts --preset binance ticker.json` reads.
    public init(
        id: String, url: String, normalizer: any FeedNormalizer, headers: [(name: String, value: String)] = [],
        interval: Int = 30, timeout: Int = 10, maxBodyBytes: Int = 8 << 20
    ) {
        self.init(
            id: id, url: url, interval: interval, timeout: timeout, maxBodyBytes: maxBodyBytes, headers: headers,
            normalizer: normalizer)
    }

    /// Fetches the feed once (unconditionally) and normalises the body: the facts rules would receive, or
    /// the feed error the poller would log.
    public func currentFacts(caFile: String? = nil) async -> Result<[String: Facts], FeedError> {
        let transport: CurlTransport
        do {
            transport = try CurlTransport(configuration: CurlTransport.Configuration(caFile: caFile))
        } catch {
            return .failure(FeedError(kind: .transport, feed: id, url: redact(url), message: error.message))
        }
        defer { transport.shutdown() }
        let body: Data
        switch await FeedFetcher(transport: transport).response(self, validators: nil).result {
        case .failure(let error): return .failure(error)
        case .success(.notModified):
            return .failure(
                FeedError(
                    kind: .httpStatus, feed: id, url: redact(url), message: "HTTP 304 without a request validator"))
        case .success(.body(let data, _)): body = data
        }
        do {
            return .success(try normalizer.entities(body))
        } catch {
            return .failure(FeedError(kind: error.kind, feed: id, url: redact(url), message: error.message))
        }
    }
}
