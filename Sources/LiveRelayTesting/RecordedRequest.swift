public import Foundation

/// A request as a ``LoopbackHTTPServer`` received it, body read to the end.
public struct RecordedRequest: Sendable {
    /// The method, such as `GET` or `POST`.
    public var method: String
    /// The request target: path and query (`/v1/feed?id=3`).
    public var path: String
    /// The header fields in the order received (HTTP/2 names arrive in lower case).
    public var headers: [(name: String, value: String)]
    /// The whole request body.
    public var body: Data
    /// `HTTP/1.1` or `HTTP/2`.
    public var httpVersion: String
    /// Which TCP connection carried it, numbered from 1 in the order the server accepted them.
    public var connectionID: Int

    /// Creates a record.
    public init(
        method: String, path: String, headers: [(name: String, value: String)], body: Data, httpVersion: String,
        connectionID: Int
    ) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.httpVersion = httpVersion
        self.connectionID = connectionID
    }

    /// The value of the first header field called `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The body as UTF-8 text.
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}
