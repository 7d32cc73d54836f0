public import Foundation

/// What a ``LoopbackHTTPServer`` handler answers: a response, or a fault that stands in for a broken server.
public struct ServerResponse: Sendable {
    /// Ways to misbehave instead of answering.
    public enum Fault: Sendable, Hashable {
        /// Close the connection (HTTP/1.1) or reset the stream (HTTP/2, `RST_STREAM`) without a response.
        case reset
        /// Never answer; the request stays open until the client gives up or the server stops.
        case hang
        /// Close the whole TCP connection (on HTTP/2, every stream on it) without a response.
        case closeConnection
        /// HTTP/2: send GOAWAY with the stream before this one as the last processed, and leave this stream
        /// unanswered (the client takes it, and any later one, as never processed).
        case goAway
        /// HTTP/2: reset this stream with `REFUSED_STREAM` (the server did not process it).
        case refuse
        /// HTTP/2: announce this `SETTINGS_MAX_CONCURRENT_STREAMS` on the connection, then answer normally.
        case lowerStreamLimit(Int)
    }

    /// The status code.
    public var status: Int
    /// Header fields to send; `content-length` is added unless ``omitContentLength``.
    public var headers: [(name: String, value: String)]
    /// The body, before any ``gzip`` encoding.
    public var body: Data
    /// Send the body gzip-encoded with `content-encoding: gzip`.
    public var gzip: Bool
    /// Send no `content-length` (HTTP/1.1 then uses chunked encoding), so the client learns the size only
    /// as the body arrives.
    public var omitContentLength: Bool
    /// How long to wait before answering.
    public var delay: Duration?
    /// Misbehave instead of answering.
    public var fault: Fault?

    /// Creates a response.
    public init(
        status: Int = 200,
        headers: [(name: String, value: String)] = [],
        body: Data = Data(),
        gzip: Bool = false,
        omitContentLength: Bool = false,
        delay: Duration? = nil,
        fault: Fault? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.gzip = gzip
        self.omitContentLength = omitContentLength
        self.delay = delay
        self.fault = fault
    }

    /// A `text/plain` response.
    public static func text(_ text: String, status: Int = 200) -> ServerResponse {
        ServerResponse(status: status, headers: [("content-type", "text/plain")], body: Data(text.utf8))
    }

    /// A response that only misbehaves.
    public static func fault(_ fault: Fault) -> ServerResponse {
        ServerResponse(fault: fault)
    }
}
