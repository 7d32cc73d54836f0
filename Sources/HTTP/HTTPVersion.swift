/// The protocol version a response arrived with.
public enum HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    /// HTTP/1.0.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    case http1_0
    /// HTTP/1.1.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    case http1_1
    /// HTTP/2, over TLS (negotiated with ALPN) or cleartext with prior knowledge.
    case http2
    /// HTTP/3.
    case http3
    /// Not HTTP: a `file://` response, or a version libcurl did not report.
    case unknown

    /// `HTTP/1.1`, `HTTP/2`, …; `unknown` for non-HTTP responses.
    public var description: String {
        switch self {
        case .http1_0: "HTTP/1.0"
        case .http1_1: "HTTP/1.1"
        case .http2: "HTTP/2"
        case .http3: "HTTP/3"
        case .unknown: "unknown"
        }
    }
}
