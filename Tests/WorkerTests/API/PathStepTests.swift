import Foundation
import Testing

/// Ids that are path steps (`.`, `..`) are refused, sent as they are (a raw request: HTTP clients would
/// resolve them before sending).
@Suite struct PathStepTests {
    /// Sends `request` over a plain TCP connection and returns the whole answer, on a thread of its own (a
    /// blocking read must not hold one of the threads the server's handlers run on).
    static func raw(_ request: String, port: Int) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try blocking(request, port: port) }) }.start()
        }
    }

    private static func blocking(_ request: String, port: Int) throws -> String {
        let connection = try APILimitTests.Connection(port: port)
        // The connection closes its socket when it goes: keep it to the end of the exchange.
        defer { withExtendedLifetime(connection) {} }
        let fd = connection.fd
        // Never wait for ever: the answer is read until the server closes, or for five seconds.
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let bytes = Array(request.utf8)
        guard send(fd, bytes, bytes.count, 0) == bytes.count else { throw POSIXError(.EIO) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            answer += buffer[0..<n]
            // A complete answer: its headers and as many body bytes as they announce.
            let text = String(decoding: answer, as: UTF8.self)
            if let end = text.range(of: "\r\n\r\n"),
                let length = text[..<end.lowerBound].split(separator: "\r\n")
                    .first(where: { $0.lowercased().hasPrefix("content-length:") })
                    .flatMap({ Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }),
                text.utf8.count - text[..<end.upperBound].utf8.count >= length
            {
                break
            }
        }
        return String(decoding: answer, as: UTF8.self)
    }

    @Test(arguments: [".", ".."])
    func dotIdsAreRefused(id: String) async throws {
        try await APITestServer.with { server in
            let body = #"{"token": "\#(String(repeating: "ab", count: 32))", "environment": "sandbox"}"#
            let request =
                "PUT /v1/devices/\(id)/push-to-start/MatchAttributes HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer \(APITestServer.bearer)\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
            let answer = try await Self.raw(request, port: server.port)
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
            #expect(answer.contains("is not a valid device id"), "\(answer)")
        }
    }

    /// Malformed chunked framing is a 400 that says so (not 413 "too large"); a CONNECT is refused with 405
    /// and the connection closed (HTTP gives an answer to CONNECT no body framing, so closing is its end).
    @Test func malformedFramingAndConnectGetClearAnswers() async throws {
        try await APITestServer.with { server in
            let chunked =
                "PUT /v1/devices/iphone-a/push-to-start/MatchAttributes HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer \(APITestServer.bearer)\r\nTransfer-Encoding: chunked\r\n"
                + "Connection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"
            let answer = try await Self.raw(chunked, port: server.port)
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
            #expect(!answer.contains("larger than"), "\(answer)")

            let unknown = try await Self.raw(
                "GET /v2/nothing HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", port: server.port)
            #expect(unknown.hasPrefix("HTTP/1.1 404"), "\(unknown)")
            #expect(unknown.hasSuffix(#"{"error":"not found"}"#), "\(unknown)")

            let connect = "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"
            let refused = try await Self.raw(connect, port: server.port)
            #expect(refused.hasPrefix("HTTP/1.1 405"), "\(refused)")
            #expect(refused.lowercased().contains("connection: close"), "\(refused)")
        }
    }
}
