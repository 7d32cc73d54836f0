public import Foundation

/// A complete response: status, header fields and the decoded body.
///
/// Every status is a response, `304 Not Modified` and `5xx` included; only a failure to get a response
/// at all is an ``HTTPError``. A successful `file://` read has status `200`.
public struct HTTPResponse: Sendable {
    /// The status code of the final response (`200`, `304`, `429`, …).
    public var status: Int
    /// The header fields of the final response, in the order received.
    public var headers: [HTTPHeader]
    /// The body, already decoded from `gzip`, `br`, `deflate` or `zstd` content encoding.
    public var body: Data
    /// The protocol version the response arrived with.
    public var httpVersion: HTTPVersion
    /// The `ETag` and `Last-Modified` of the response, to make the next request conditional.
    public var validators: CacheValidators?

    /// Creates a response; `validators` default to those found in `headers`.
    public init(
        status: Int,
        headers: [HTTPHeader] = [],
        body: Data = Data(),
        httpVersion: HTTPVersion = .http1_1,
        validators: CacheValidators? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.httpVersion = httpVersion
        self.validators = validators ?? CacheValidators(headers: headers)
    }

    /// The value of the first header field called `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first(named: name)
    }

    /// Whether the status is in the `2xx` range.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The `Retry-After` header in its delay-seconds form (what push services send), or `nil` when it is
    /// absent or an HTTP date.
    public var retryAfterSeconds: Int? {
        header("retry-after").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { max(0, $0) }
    }
}
