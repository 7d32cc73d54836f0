/// Sends one HTTP request and returns the complete response.
///
/// `CurlTransport` is the real one; tests may substitute a fake. Failures are typed: anything that kept a
/// response from arriving is an ``HTTPError`` (cancellation of the calling task included, as
/// ``HTTPError/Code/cancelled``). A response with any status, `4xx` and `5xx` included, is not an error.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and waits for the whole response.
    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse
}
