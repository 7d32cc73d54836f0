public import Foundation

/// One HTTP request (or a `file://` read) to hand to an ``HTTPTransport``.
public struct HTTPRequest: Sendable {
    /// The method, in upper case: `GET`, `POST`, `PUT`, `DELETE`, `HEAD`, …
    public var method: String
    /// An absolute `http`, `https` or `file` URL. Other schemes are refused with ``HTTPError/Code/invalidURL``.
    public var url: String
    /// The header fields to send, in order. A transport adds `User-Agent`, `Accept-Encoding` and, for
    /// ``validators``, the conditional fields, unless they are already here.
    public var headers: [HTTPHeader]
    /// The request body, sent with a `Content-Length`. `POST`, `PUT` and `PATCH` without a body send an
    /// empty one.
    public var body: Data?
    /// The limit for the whole exchange: connecting, sending, waiting and reading the body.
    public var timeout: Duration
    /// The largest decoded response body accepted; a larger one fails with
    /// ``HTTPError/Code/responseTooLarge`` instead of being buffered.
    public var maxResponseBytes: Int
    /// Validators from an earlier response; makes the request conditional (a `304` answers it).
    public var validators: CacheValidators?

    /// Creates a request; a plain `GET` with a 30 s timeout and an 8 MiB response cap by default.
    public init(
        method: String = "GET",
        url: String,
        headers: [HTTPHeader] = [],
        body: Data? = nil,
        timeout: Duration = .seconds(30),
        maxResponseBytes: Int = 8 << 20,
        validators: CacheValidators? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        self.validators = validators
    }
}
