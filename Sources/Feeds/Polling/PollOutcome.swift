/// What one poll of a feed came to, with the response headers that steer the next one.
public struct PollOutcome: Sendable, Hashable {
    /// The kind of outcome.
    public enum Result: Sendable, Hashable {
        /// A body that normalised: its facts were compared and saved.
        case fresh
        /// `304 Not Modified`: nothing changed.
        case notModified
        /// No usable facts; nothing was emitted and the previous facts stay.
        case failed(FeedError.Kind)
    }

    /// The kind of outcome.
    public var result: Result
    /// The HTTP status, when a response arrived (`file:` reads are 200).
    public var status: Int?
    /// The raw `Retry-After` header: seconds or an HTTP date.
    public var retryAfter: String?
    /// The raw `Cache-Control` header.
    public var cacheControl: String?
    /// For a failure: what went wrong, in words (no secrets: URLs are redacted).
    public var message: String?
    /// For a fresh body: how many entities changed.
    public var changes: Int
    /// For a fresh body: how many pushes it handed to the throttle.
    public var pushes: Int

    /// Creates an outcome.
    public init(
        _ result: Result, status: Int? = nil, retryAfter: String? = nil, cacheControl: String? = nil,
        message: String? = nil, changes: Int = 0, pushes: Int = 0
    ) {
        self.result = result
        self.status = status
        self.retryAfter = retryAfter
        self.cacheControl = cacheControl
        self.message = message
        self.changes = changes
        self.pushes = pushes
    }

    /// True for `fresh` and `notModified`.
    public var succeeded: Bool {
        if case .failed = result { return false }
        return true
    }
}
