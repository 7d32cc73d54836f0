/// Why a request got no response.
///
/// `code` is a stable short name fit for a metric label; `url` never carries credentials or query values;
/// `message` says what went wrong in words, with libcurl's own error text.
public struct HTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of failure. An open set: new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// A short stable name, usable as a metric label (`timeout`, `tls`, …).
        public let name: String

        /// Creates a code; prefer the predefined ones.
        public init(_ name: String) { self.name = name }

        /// The whole request, or connecting, took longer than allowed.
        public static let timeout = Code("timeout")
        /// No connection could be made: name resolution failed, or the peer refused or was unreachable.
        public static let connectionFailed = Code("connection_failed")
        /// The peer closed or reset the connection (or reset the HTTP/2 stream) before a full response.
        public static let connectionReset = Code("connection_reset")
        /// The TLS handshake failed, including a certificate that does not verify.
        public static let tls = Code("tls")
        /// The response body is larger than the request's `maxResponseBytes`.
        public static let responseTooLarge = Code("response_too_large")
        /// The URL is malformed or its scheme is not `http`, `https` or `file`.
        public static let invalidURL = Code("invalid_url")
        /// A `file://` URL names a file that does not exist or cannot be read.
        public static let fileNotFound = Code("file_not_found")
        /// The peer answered with something that is not valid HTTP (or valid content encoding).
        public static let protocolError = Code("protocol_error")
        /// The calling task was cancelled; the transfer was stopped.
        public static let cancelled = Code("cancelled")
        /// The transport was shut down before the transfer finished.
        public static let shutdown = Code("shutdown")
        /// Anything not classified above; `message` has the details.
        public static let other = Code("other")

        /// The same as `name`.
        public var description: String { name }
    }

    /// The class of failure.
    public var code: Code
    /// The request URL with userinfo removed and query values replaced by `…` (see ``redact(_:)``).
    public var url: String
    /// What went wrong, including libcurl's error text when there is one.
    public var message: String
    /// libcurl's `CURLcode`, when the failure came from libcurl.
    public var curlCode: Int?

    /// Creates an error; `url` is redacted here, so a raw request URL may be passed.
    public init(code: Code, url: String, message: String, curlCode: Int? = nil) {
        self.code = code
        self.url = Self.redact(url)
        self.message = message
        self.curlCode = curlCode
    }

    /// `timeout: GET https://api.example/x?key=…: Operation timed out after 200 milliseconds…`
    public var description: String { "\(code.name): \(url): \(message)" }
}
