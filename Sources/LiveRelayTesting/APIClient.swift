import Foundation
public import HTTP

/// Calls a running worker's HTTP API on loopback, with its bearer token unless told otherwise.
public struct APIClient: Sendable {
    /// The API's port on 127.0.0.1.
    public let port: Int
    /// The bearer token sent by default.
    public let bearer: String?
    private let transport: any HTTPTransport

    /// A client of the API on `port`.
    public init(port: Int, bearer: String?, transport: any HTTPTransport) {
        self.port = port
        self.bearer = bearer
        self.transport = transport
    }

    /// A request with the client's bearer token; the status and the body as text.
    public func request(_ method: String, _ path: String, body: String? = nil) async throws -> (
        status: Int, body: String
    ) {
        try await request(method, path, body: body, bearer: bearer)
    }

    /// A request with the given bearer token, or none.
    public func request(_ method: String, _ path: String, body: String? = nil, bearer: String?) async throws -> (
        status: Int, body: String
    ) {
        var headers = [HTTPHeader("Content-Type", "application/json")]
        if let bearer { headers.append(HTTPHeader("Authorization", "Bearer \(bearer)")) }
        let response = try await transport.send(
            HTTPRequest(
                method: method, url: "http://127.0.0.1:\(port)\(path)", headers: headers,
                body: body.map { Data($0.utf8) }))
        return (response.status, String(decoding: response.body, as: UTF8.self))
    }

    /// A request with exactly these headers (an `Authorization` of the caller's own, or none); the whole
    /// response, its headers included.
    public func send(_ method: String, _ path: String, headers: [HTTPHeader], body: String? = nil) async throws
        -> HTTPResponse
    {
        try await transport.send(
            HTTPRequest(
                method: method, url: "http://127.0.0.1:\(port)\(path)", headers: headers,
                body: body.map { Data($0.utf8) }))
    }
}
