import LiveRelayCore

/// A poll that produced no usable facts. It never becomes a change: the previous facts stay.
public struct FeedError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable short name, usable as a metric label.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        public var name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The request did not complete (timeout, reset, TLS, DNS, file missing…).
        public static let transport = Kind("transport")
        /// The server answered with a status other than 200 or 304.
        public static let httpStatus = Kind("http_status")
        /// The body is not JSON (an HTML error page, an empty or truncated body).
        public static let invalidJSON = Kind("invalid_json")
        /// JSON that does not have the shape the feed's mapping expects.
        public static let shape = Kind("shape")
        /// The body is larger than the configured cap.
        public static let tooLarge = Kind("too_large")
        /// A successful response whose body reports an error (Kraken's `error[]` with HTTP 200).
        public static let provider = Kind("provider_error")
        /// The body was fine but its facts could not be read or saved: the state store failed (a locked
        /// or full database). Retried with backoff like any failed poll.
        public static let store = Kind("store")
    }

    public var kind: Kind
    /// The feed id from the config.
    public var feed: String
    /// The URL, with credentials and query values removed.
    public var url: String
    /// What was wrong.
    public var message: String

    public init(kind: Kind, feed: String, url: String, message: String) {
        self.kind = kind
        self.feed = feed
        self.url = url
        self.message = message
    }

    public var description: String { "feed \(feed) (\(url)): \(message)" }
}
