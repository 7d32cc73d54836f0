import Feeds
import Foundation
import HTTP

/// Fetches one feed body through the transport, with conditional GET when the server gave validators.
public struct FeedFetcher: Sendable {
    public let transport: any HTTPTransport

    public init(transport: any HTTPTransport) { self.transport = transport }

    /// A fetched body, or the news that it has not changed.
    public enum Fetched: Sendable {
        case body(Data, CacheValidators?)
        case notModified
    }

    public func fetch(_ feed: FeedRuntime, validators: CacheValidators?) async throws(FeedError) -> Fetched {
        let request = HTTPRequest(
            method: "GET", url: feed.url, headers: feed.headers.map { HTTPHeader(name: $0.name, value: $0.value) },
            timeout: .seconds(feed.timeout), maxResponseBytes: feed.maxBodyBytes, validators: validators)
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            let kind: FeedError.Kind = error.code == .responseTooLarge ? .tooLarge : .transport
            throw FeedError(kind: kind, feed: feed.id, url: error.url, message: error.message)
        }
        switch response.status {
        case 200: return .body(response.body, response.validators)
        case 304: return .notModified
        default:
            throw FeedError(
                kind: .httpStatus, feed: feed.id, url: redact(feed.url),
                message: "HTTP \(response.status)\(response.header("Retry-After").map { ", Retry-After \($0)" } ?? "")")
        }
    }
}
