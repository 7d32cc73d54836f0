public import Foundation
public import HTTP

/// Fetches one feed body through the transport, with conditional GET when the server gave validators.
public struct FeedFetcher: Sendable {
    public let transport: any HTTPTransport

    public init(transport: any HTTPTransport) { self.transport = transport }

    /// A fetched body, or the news that it has not changed.
    public enum Fetched: Sendable {
        case body(Data, CacheValidators?)
        case notModified
    }

    /// A fetch and what the response said about when to ask again.
    public struct Response: Sendable {
        /// The body, `304`, or the feed error.
        public var result: Result<Fetched, FeedError>
        /// The HTTP status, when a response arrived.
        public var status: Int?
        /// The `Retry-After` header, as sent.
        public var retryAfter: String?
        /// The `Cache-Control` header, as sent.
        public var cacheControl: String?
    }

    /// Fetches, keeping the headers that steer polling. Any status but 200 and 304 is a feed error.
    public func response(_ feed: FeedRuntime, validators: CacheValidators?) async -> Response {
        let request = HTTPRequest(
            method: "GET", url: feed.url, headers: feed.headers.map { HTTPHeader(name: $0.name, value: $0.value) },
            timeout: .seconds(feed.timeout), maxResponseBytes: feed.maxBodyBytes, validators: validators)
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            let kind: FeedError.Kind = error.code == .responseTooLarge ? .tooLarge : .transport
            return Response(
                result: .failure(FeedError(kind: kind, feed: feed.id, url: error.url, message: error.message)))
        }
        var out = Response(
            result: .success(.notModified), status: response.status, retryAfter: response.header("Retry-After"),
            cacheControl: response.header("Cache-Control"))
        switch response.status {
        case 200: out.result = .success(.body(response.body, response.validators))
        case 304: out.result = .success(.notModified)
        default:
            // Redirects are not followed (a feed moved, or an error page elsewhere): say where it points.
            let redirect =
                (300..<400).contains(response.status)
                ? ", a redirect\(response.header("Location").map { " to \(HTTPError.redact($0))" } ?? ""), which is not followed: give the feed its new URL"
                : ""
            out.result = .failure(
                FeedError(
                    kind: .httpStatus, feed: feed.id, url: HTTPError.redact(feed.url),
                    message: "HTTP \(response.status)\(redirect)\(out.retryAfter.map { ", Retry-After \($0)" } ?? "")"
                        + Self.excerpt(response.body, hiding: feed.headers.map(\.value))))
        }
        return out
    }

    /// The start of an error response's body (a JSON message, an HTML title), on one line, with any request
    /// header value (an API token a server might echo) replaced by `…`.
    static func excerpt(_ body: Data, hiding secrets: [String]) -> String {
        var text = String(decoding: body.prefix(4096), as: UTF8.self)
        for secret in secrets where secret.count >= 4 { text = text.replacingOccurrences(of: secret, with: "…") }
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: .whitespaces)
        return line.isEmpty ? "" : ": \"\(line.prefix(100))\(line.count > 100 ? "…" : "")\""
    }
}
