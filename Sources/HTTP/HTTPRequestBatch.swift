/// Requests that share everything but their path and a few header fields: one push to many device
/// tokens. A transport that takes them together (``HTTPBatchTransport``) encodes what they share once.
public struct HTTPRequestBatch: Sendable {
    /// One request of the batch: what it does not share with the others.
    public struct Item: Sendable {
        /// The path (with its query), starting with `/`, after the shared base URL.
        public var path: String
        /// Header fields of this request alone, sent after the shared ones.
        public var headers: [HTTPHeader]

        /// An item.
        public init(path: String, headers: [HTTPHeader] = []) {
            self.path = path
            self.headers = headers
        }
    }

    /// What every request shares: its method, header fields, body, timeout and response cap. Its `url` is the
    /// base (`scheme://authority`) each item's path follows; it makes no request of its own.
    public var shared: HTTPRequest
    /// The requests, in order.
    public var items: [Item]
    /// Whether the header fields of a `2xx` response are kept. A fan-out reads only the status of a
    /// success; leaving its header fields out spares copying them for every request.
    public var keepsSuccessHeaders: Bool

    /// A batch.
    public init(shared: HTTPRequest, items: [Item], keepsSuccessHeaders: Bool = false) {
        self.shared = shared
        self.items = items
        self.keepsSuccessHeaders = keepsSuccessHeaders
    }
}

/// An ``HTTPTransport`` that also takes a batch of requests at once.
///
/// Contract: the result has one entry per item of the batch, in its order, each what ``send(_:)`` would
/// have given for that request alone (a response with any status, or its ``HTTPError``); the call returns
/// when every request has its result. The requests go out in the batch's order; one request's failure does
/// not affect the others. A successful response's header fields are left out unless the batch keeps them.
/// Cancelling the calling task cancels the requests not yet answered.
public protocol HTTPBatchTransport: HTTPTransport {
    /// Sends every request of `batch` and waits for all of their results.
    func send(_ batch: HTTPRequestBatch) async -> [Result<HTTPResponse, HTTPError>]
}
